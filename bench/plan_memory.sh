#!/usr/bin/env bash
# Peak memory (RSS, /usr/bin/time %M) with a huge `rate.per_day` beside none: `validate` of N
# recipients (its plan asks the account's ledger, on by default, for the day's room) and a real run
# with `account: {ledger: off}` (queue::DailyCap counts the sends; nginx stand-in, unlimited rate,
# 32 in flight). Target: per_day's figure within 10% of the one without.
#   bench/plan_memory.sh [N=1000000] [PER_DAY=1000000000] [REAL_N=200000]
set -euo pipefail
. "$(dirname "$0")/lib.sh"
n=${1:-1000000}
per_day=${2:-1000000000}
real_n=${3:-200000}

bench_setup nginx=nginx-light
bench_start_nginx
bench_unlimited_rate

declare -A rss
bench_make_csv "$n" "$bench_work/r.csv"
for cap in none "$per_day"; do
    rate="per_second: 10"
    [ "$cap" = none ] || rate+=", per_day: $cap"
    bench_write_campaign "$bench_work/v-$cap.yaml" "$NGINX_URL" "$bench_work/r.csv" "$bench_work/v-$cap.jsonl" "$rate"
    bench_time "validate-$cap" "$WACAMP" validate "$bench_work/v-$cap.yaml"
    [ "$T_RC" = 0 ] || { cat "$bench_work/validate-$cap.err" >&2; bench_die "validate ($cap) exited $T_RC"; }
    rss[validate-$cap]=$T_RSS
done
bench_make_csv "$real_n" "$bench_work/real.csv"
for cap in none "$per_day"; do
    rate="per_second: $unlimited_rate, burst: 1, concurrency: 32"
    [ "$cap" = none ] || rate+=", per_day: $cap"
    bench_write_campaign "$bench_work/r-$cap.yaml" "$NGINX_URL" "$bench_work/real.csv" "$bench_work/r-$cap.jsonl" "$rate"
    echo "account: {ledger: off}" >>"$bench_work/r-$cap.yaml"
    bench_time "run-$cap" "$WACAMP" run "$bench_work/r-$cap.yaml" --yes --no-progress
    [ "$T_RC" = 0 ] || { cat "$bench_work/run-$cap.err" >&2; bench_die "run ($cap) exited $T_RC"; }
    rss[run-$cap]=$T_RSS
    rm -f "$bench_work/r-$cap.jsonl"
done

mib() { bench_calc "f'{$1 / 1024:.1f}'"; }
printf 'peak RSS (MiB)                          no per_day  per_day %s   ratio   target\n' "$per_day"
for what in validate run; do
    s=${rss[$what-none]}
    l=${rss[$what-$per_day]}
    ratio=$(bench_calc "f'{$l / $s:.3f}'")
    met=$(bench_met "$l <= 1.10 * $s")
    label=$([ "$what" = validate ] && echo "validate, $n rows, ledger" || echo "run, $real_n rows, ledger off")
    printf '%-38s %12s %12s   %s   ≤ 1.10×: %s\n' "$label" "$(mib "$s")" "$(mib "$l")" "$ratio" "$met"
    bench_record "peak RSS at per_day: $per_day, $label" "bench/plan_memory.sh $n $per_day $real_n" \
        "$(mib "$l") MiB" "without per_day: $(mib "$s") MiB" "${ratio}×" "≤ 1.10×" "$met"
done
