#!/usr/bin/env bash
# Peak memory (RSS, /usr/bin/time %M) of a dry run and of a real run (nginx stand-in, unlimited
# rate, 32 in flight) with SMALL and LARGE recipients, and of `wacamp --version` as the floor
# (the binary and its shared libraries). Targets: ≤ 32 MiB for LARGE, and LARGE within 10% of SMALL.
#   bench/memory.sh [SMALL=10000] [LARGE=1000000]
# KIND=template: the template campaign of bench/lib.sh (bench_write_template_campaign, its list with
# two more columns; the stand-in answers send-template and serves the template list) instead of
# the text one.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
small=${1:-10000}
large=${2:-1000000}
kind=${KIND:-text}
target_kib=$((32 * 1024))

bench_setup nginx=nginx-light
bench_start_nginx
bench_unlimited_rate

bench_time version "$WACAMP" --version
floor=$T_RSS
declare -A rss
for size in "$small" "$large"; do
    bench_make_csv "$size" "$bench_work/r$size.csv" "$kind"
    for mode in dry real; do
        bench_write_kind_campaign "$kind" "$bench_work/c-$mode-$size.yaml" "$NGINX_URL" "$bench_work/r$size.csv" \
            "$bench_work/log-$mode-$size.jsonl" "per_second: $unlimited_rate, burst: 1, concurrency: 32"
        args=(run "$bench_work/c-$mode-$size.yaml" --yes --no-progress)
        [ "$mode" = dry ] && args+=(--dry-run)
        bench_time "$mode-$size" "$WACAMP" "${args[@]}"
        [ "$T_RC" = 0 ] || { cat "$bench_work/$mode-$size.err" >&2; bench_die "wacamp $mode run of $size exited $T_RC"; }
        rss[$mode-$size]=$T_RSS
    done
    rm -f "$bench_work"/log-*-"$size"*.jsonl "$bench_work/r$size.csv"  # keep the temp dir small
done

mib() { bench_calc "f'{$1 / 1024:.1f}'"; }
printf '%s campaign\n' "$kind"
printf 'peak RSS (MiB)     %12s %12s   ratio   target\n' "$small" "$large"
printf 'wacamp --version   %12s\n' "$(mib "$floor")"
for mode in dry real; do
    s=${rss[$mode-$small]}
    l=${rss[$mode-$large]}
    ratio=$(bench_calc "f'{$l / $s:.3f}'")
    met=$(bench_met "$l <= $target_kib and $l <= 1.10 * $s")
    label=$([ "$mode" = dry ] && echo "dry run" || echo "real run (nginx)")
    printf '%-18s %12s %12s   %s   ≤ 32 MiB and ≤ 1.10×: %s\n' "$label" "$(mib "$s")" "$(mib "$l")" "$ratio" "$met"
    [ "$mode" = real ] && label="real run (nginx, unlimited rate, 32 in flight)"
    command="bench/memory.sh $small $large"
    if [ "$kind" != text ]; then
        label="$kind campaign, $label"
        command="KIND=$kind $command"
    fi
    bench_record "peak RSS, $label, $large recipients" "$command" \
        "$(mib "$l") MiB" "$small recipients: $(mib "$s") MiB; wacamp --version: $(mib "$floor") MiB" \
        "${ratio}×" "≤ 32 MiB, ≤ 1.10×" "$met"
done
