#!/usr/bin/env bash
# Peak memory (RSS) and time of every command that reads a campaign's CSV or result log, at each
# size given: the dry run, the real run (nginx stand-in, unlimited rate, 32 in flight, contact
# deletion at the end), a rerun of the complete campaign, resume, delete-contacts and report in
# each format. Target (the real-wire work): peak RSS ≤ 1.2× from the smallest size to the
# largest, time linear. The largest log takes ~340 bytes a recipient on disk (10M: ~3.4 GB, plus
# the CSV and the report files): the script deletes each size's files before the next.
#   bench/commands.sh [SIZE…]        (default: 100000 1000000)
set -euo pipefail
. "$(dirname "$0")/lib.sh"
sizes=("$@")
[ ${#sizes[@]} -gt 0 ] || sizes=(100000 1000000)

bench_setup nginx=nginx-light
bench_start_nginx
bench_unlimited_rate

commands=(dry_run run rerun resume delete_contacts report_text report_csv report_json report_html)
declare -A rss wall
for size in "${sizes[@]}"; do
    dir=$bench_work/s$size
    mkdir -p "$dir"
    bench_make_csv "$size" "$dir/r.csv"
    bench_write_cleanup_campaign "$dir" "$NGINX_URL" "per_second: $unlimited_rate, burst: 1, concurrency: 32"
    for command in "${commands[@]}"; do
        case $command in
        dry_run) args=(run "$dir/c.yaml" --dry-run --no-progress --preview 0) ;;
        run | rerun) args=(run "$dir/c.yaml" --yes --no-progress) ;;
        resume) args=(resume "$dir/log.jsonl" --no-progress) ;;
        delete_contacts) args=(delete-contacts "$dir/log.jsonl") ;;
        report_*) args=(report "$dir/log.jsonl" --format "${command#report_}" --output "$dir/report.${command#report_}") ;;
        esac
        bench_time "$command-$size" "$WACAMP" "${args[@]}"
        [ "$T_RC" = 0 ] || { tail -5 "$bench_work/$command-$size.err" >&2; bench_die "wacamp $command at $size exited $T_RC"; }
        rss[$command-$size]=$T_RSS
        wall[$command-$size]=$T_WALL
        rm -f "$dir"/report.*
    done
    log_mb=$(bench_calc "f'{$(stat -c %s "$dir/log.jsonl") / 1e6:.0f}'")
    echo "bench: $size recipients: result log $log_mb MB" >&2
    rm -rf "$dir"
done

mib() { bench_calc "f'{$1 / 1024:.1f}'"; }
first=${sizes[0]}
last=${sizes[${#sizes[@]} - 1]}
printf '%-16s' "peak RSS (MiB)"
for size in "${sizes[@]}"; do printf ' %12s' "$size"; done
printf '   ratio   time ratio (size ratio %s)   ≤ 1.2×\n' "$(bench_calc "f'{$last / $first:g}'")"
for command in "${commands[@]}"; do
    printf '%-16s' "$command"
    for size in "${sizes[@]}"; do printf ' %12s' "$(mib "${rss[$command-$size]}")"; done
    ratio=$(bench_calc "f'{${rss[$command-$last]} / ${rss[$command-$first]}:.2f}'")
    tratio=$(bench_calc "f'{${wall[$command-$last]} / max(${wall[$command-$first]}, 0.001):.1f}'")
    met=$(bench_met "${rss[$command-$last]} <= 1.2 * ${rss[$command-$first]}")
    printf '   %5s×  %6s×                      %s\n' "$ratio" "$tratio" "$met"
    bench_record "peak RSS, $command, $last recipients" "bench/commands.sh ${sizes[*]}" \
        "$(mib "${rss[$command-$last]}") MiB" "$first recipients: $(mib "${rss[$command-$first]}") MiB" \
        "${ratio}×" "≤ 1.2×" "$met"
done

printf '\n%-16s' "wall time (s)"
for size in "${sizes[@]}"; do printf ' %12s' "$size"; done
printf '\n'
for command in "${commands[@]}"; do
    printf '%-16s' "$command"
    for size in "${sizes[@]}"; do printf ' %12s' "${wall[$command-$size]}"; done
    printf '\n'
done
