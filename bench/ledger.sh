#!/usr/bin/env bash
# The account ledger's cost (docs/ledger.md): the send path with the ledger on beside off, a dry run
# against a ledger holding a million suppressed numbers, peak RSS with the ledger on at two sizes,
# and the ledger's size per million sends.
#   bench/ledger.sh [N=200000] [SMALL=10000] [LARGE=1000000]
# - throughput: N recipients, unlimited rate, 32 in flight, nginx stand-in, `account.ledger: off`
#   and on (a fresh ledger each time), alternated twice; the best of each. Target: on ≥ 0.9× off.
# - dry run: LARGE rows against a ledger whose suppression list holds the same LARGE numbers
#   (every row is found and skipped), beside the same dry run with the ledger off; best of 3.
#   Target: ≤ 5 s.
# - memory: peak RSS of a real run (nginx, unlimited, 32 in flight, ledger on) at SMALL and LARGE.
#   Target: LARGE ≤ 1.10× SMALL. The ledger file after LARGE sends gives the size per 1M sends.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
n=${1:-200000}
small=${2:-10000}
large=${3:-1000000}

bench_setup nginx=nginx-light
bench_start_nginx
bench_unlimited_rate
rate="per_second: $unlimited_rate, burst: 1, concurrency: 32"

# bench_ledger_campaign FILE CSV RESULTS LEDGER [EXTRA YAML]: a campaign with `account.ledger: LEDGER`.
bench_ledger_campaign() {
    bench_write_campaign "$1" "$NGINX_URL" "$2" "$3" "$rate"
    printf 'account: {name: bench, ledger: "%s"}\n%s' "$4" "${5:-}" >>"$1"
}

# run_and_check NAME CAMPAIGN [ARGS…]: runs wacamp under bench_time; dies unless it exits 0.
run_and_check() {
    local name=$1
    shift
    bench_time "$name" "$WACAMP" "$@" --yes --no-progress
    [ "$T_RC" = 0 ] || { cat "$bench_work/$name.out" "$bench_work/$name.err" >&2; bench_die "$name exited $T_RC"; }
}

# --- throughput, ledger on vs off -------------------------------------------------------------
bench_make_csv "$n" "$bench_work/r$n.csv"
best_off=0
best_on=0
for pass in 1 2; do
    for mode in off on; do
        ledger=off
        [ "$mode" = on ] && ledger=$bench_work/throughput-$pass.sqlite
        bench_ledger_campaign "$bench_work/t-$mode.yaml" "$bench_work/r$n.csv" "$bench_work/t-$mode-$pass.jsonl" "$ledger"
        run_and_check "throughput-$mode-$pass" run "$bench_work/t-$mode.yaml"
        mps=$(bench_calc "round($n / $T_WALL)")
        printf 'throughput, ledger %-3s pass %s: %s messages/s (%s s)\n' "$mode" "$pass" "$mps" "$T_WALL"
        if [ "$mode" = on ]; then
            best_on=$(bench_calc "max($best_on, $mps)")
        else
            best_off=$(bench_calc "max($best_off, $mps)")
        fi
        rm -f "$bench_work/t-$mode-$pass.jsonl"
    done
done
ratio=$(bench_calc "f'{$best_on / $best_off:.2f}'")
met=$(bench_met "$best_on >= 0.9 * $best_off")
printf 'throughput: ledger on %s messages/s, off %s messages/s: %s× (target ≥ 0.9×: %s)\n' "$best_on" "$best_off" "$ratio" "$met"
bench_record "throughput with the ledger on: $n recipients, unlimited rate, 32 in flight, nginx stand-in (best of 2)" \
    "bench/ledger.sh $n $small $large" "$best_on messages/s" "ledger off: $best_off messages/s" "${ratio}×" \
    "≥ 0.9× off" "$met"
rm -f "$bench_work/r$n.csv" "$bench_work"/throughput-*.sqlite*

# --- a dry run against a million suppressed numbers -------------------------------------------
bench_make_csv "$large" "$bench_work/r$large.csv"
suppressed_ledger=$bench_work/suppressed.sqlite
# The list goes in through a run of one row with suppression.files (the import every run makes).
bench_make_csv 1 "$bench_work/one.csv"
bench_ledger_campaign "$bench_work/import.yaml" "$bench_work/one.csv" "$bench_work/import.jsonl" "$suppressed_ledger" \
    "suppression: {files: [\"$bench_work/r$large.csv\"]}
"
bench_write_campaign "$bench_work/one-off.yaml" "$NGINX_URL" "$bench_work/one.csv" "$bench_work/one-off.jsonl" "$rate"
printf 'account: {ledger: off}\n' >>"$bench_work/one-off.yaml"
run_and_check import-baseline run "$bench_work/one-off.yaml"
baseline=$T_WALL
run_and_check import run "$bench_work/import.yaml"
import_s=$(bench_calc "f'{$T_WALL - $baseline:.2f}'")
printf 'import of %s numbers into the suppression list (a run with suppression.files, less the same run without): %s s\n' \
    "$large" "$import_s"

bench_ledger_campaign "$bench_work/dry-on.yaml" "$bench_work/r$large.csv" "$bench_work/dry-on.jsonl" "$suppressed_ledger"
bench_ledger_campaign "$bench_work/dry-off.yaml" "$bench_work/r$large.csv" "$bench_work/dry-off.jsonl" off
best_dry_on=
best_dry_off=
for _ in 1 2 3; do
    for mode in off on; do
        run_and_check "dry-$mode" run "$bench_work/dry-$mode.yaml" --dry-run
        if [ "$mode" = on ]; then
            grep -q "skipped $large (suppressed $large)" "$bench_work/dry-on.out" ||
                { cat "$bench_work/dry-on.out" >&2; bench_die "the dry run did not skip every row as suppressed"; }
            best_dry_on=$(bench_calc "min(${best_dry_on:-1e9}, $T_WALL)")
            dry_rss=$T_RSS
        else
            best_dry_off=$(bench_calc "min(${best_dry_off:-1e9}, $T_WALL)")
        fi
    done
done
ratio=$(bench_calc "f'{$best_dry_on / $best_dry_off:.2f}'")
met=$(bench_met "$best_dry_on <= 5")
printf 'dry run of %s rows, all on a suppression list of %s: %s s (ledger off: %s s, %s×; target ≤ 5 s: %s), peak RSS %.1f MiB\n' \
    "$large" "$large" "$best_dry_on" "$best_dry_off" "$ratio" "$met" "$(bench_calc "$dry_rss / 1024")"
bench_record "dry run: $large rows against a ledger of $large suppressed numbers (every row skipped; best of 3)" \
    "bench/ledger.sh $n $small $large" "$best_dry_on s, peak RSS $(bench_calc "f'{$dry_rss / 1024:.1f}'") MiB" \
    "ledger off: $best_dry_off s" "${ratio}×" "≤ 5 s" "$met"
rm -f "$bench_work"/dry-*.jsonl "$bench_work"/dry-*.dry-run.jsonl "$suppressed_ledger"*

# --- peak RSS with the ledger on, and the ledger's size ------------------------------------------
declare -A rss
for size in "$small" "$large"; do
    [ -f "$bench_work/r$size.csv" ] || bench_make_csv "$size" "$bench_work/r$size.csv"
    bench_ledger_campaign "$bench_work/m-$size.yaml" "$bench_work/r$size.csv" "$bench_work/m-$size.jsonl" \
        "$bench_work/m-$size.sqlite"
    run_and_check "memory-$size" run "$bench_work/m-$size.yaml"
    rss[$size]=$T_RSS
    printf 'real run, ledger on, %s recipients: peak RSS %.1f MiB, %s s\n' "$size" "$(bench_calc "$T_RSS / 1024")" "$T_WALL"
done
ratio=$(bench_calc "f'{${rss[$large]} / ${rss[$small]}:.3f}'")
met=$(bench_met "${rss[$large]} <= 1.10 * ${rss[$small]}")
bench_record "peak RSS, real run with the ledger on (nginx, unlimited rate, 32 in flight), $large recipients" \
    "bench/ledger.sh $n $small $large" "$(bench_calc "f'{${rss[$large]} / 1024:.1f}'") MiB" \
    "$small recipients: $(bench_calc "f'{${rss[$small]} / 1024:.1f}'") MiB" "${ratio}×" "≤ 1.10×" "$met"
printf 'peak RSS with the ledger on: %s× from %s to %s recipients (target ≤ 1.10×: %s)\n' "$ratio" "$small" "$large" "$met"

ledger_bytes=0
for f in "$bench_work/m-$large.sqlite" "$bench_work/m-$large.sqlite-wal"; do
    [ -f "$f" ] && ledger_bytes=$((ledger_bytes + $(stat -c %s "$f")))
done
per_million=$(bench_calc "f'{$ledger_bytes * 1e6 / $large / 1048576:.1f}'")
printf 'ledger file after %s sends: %s bytes = %s MiB per 1,000,000 sends (%.0f bytes a send)\n' \
    "$large" "$ledger_bytes" "$per_million" "$(bench_calc "$ledger_bytes / $large")"
bench_record "ledger file size after $large sends (one campaign)" "bench/ledger.sh $n $small $large" \
    "$per_million MiB per 1,000,000 sends" "—" "—" "—" "—"
