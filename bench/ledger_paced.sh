#!/usr/bin/env bash
# The ledger's cost at a paced rate: N recipients at `per_second: RATE, burst: 1` against the
# nginx stand-in, `account: {ledger: off}` beside a fresh SQLite ledger, alternating, PAIRS pairs
# (WACAMP_REF's binary too, when set, in the same pairs): wacamp's CPU (user + sys) µs a message,
# medians, and on ÷ off per binary. At `burst: 1` each turn of the send loop holds one job, so
# each message is a reservation transaction of its own. Target: on ≤ 1.15× off.
#   bench/ledger_paced.sh [N=10000] [RATE=1000]        (env: WACAMP, WACAMP_REF, PAIRS=3)
set -euo pipefail
. "$(dirname "$0")/lib.sh"
n=${1:-10000}
rate=${2:-1000}
pairs=${PAIRS:-3}

bench_setup nginx=nginx-light
bench_start_nginx
bench_make_csv "$n" "$bench_work/paced.csv"

# cpu_of BINARY NAME MODE: one run; prints its CPU µs a sent message.
cpu_of() {
    local binary=$1 name=$2 mode=$3 sent
    rm -rf "$bench_work/$name.jsonl" "$bench_work/$name-state"
    bench_write_campaign "$bench_work/$name.yaml" "$NGINX_URL" "$bench_work/paced.csv" "$bench_work/$name.jsonl" \
        "per_second: $rate, burst: 1"
    if [ "$mode" = off ]; then
        echo 'account: {ledger: off}' >>"$bench_work/$name.yaml"
    else
        printf 'account: {name: bench, ledger: "%s"}\n' "$bench_work/$name-state/ledger.sqlite" >>"$bench_work/$name.yaml"
    fi
    bench_time "$name" "$binary" run "$bench_work/$name.yaml" --yes --no-progress
    sent=$(grep -c '"status":"sent"' "$bench_work/$name.jsonl" || true)
    [ "$T_RC" = 0 ] && [ "$sent" = "$n" ] || { cat "$bench_work/$name.err" >&2; bench_die "$name: exit $T_RC, $sent of $n sent"; }
    bench_calc "round(($T_USER + $T_SYS) * 1e6 / $sent, 1)"
}

median() {
    python3 -c "import statistics, sys; print(round(statistics.median(float(x) for x in sys.argv[1:]), 1))" "$@"
}

binaries=(work)
[ -z "${WACAMP_REF:-}" ] || binaries+=(ref)
declare -A cpu
for pair in $(seq "$pairs"); do
    echo "bench: pair $pair of $pairs" >&2
    for who in "${binaries[@]}"; do
        binary=$WACAMP
        [ "$who" = work ] || binary=$WACAMP_REF
        for mode in off on; do
            cpu[$who-$mode]="${cpu[$who-$mode]:-} $(cpu_of "$binary" "$who-$mode-$pair" "$mode")"
        done
    done
done

echo "Ledger paced: $n recipients at per_second $rate, burst 1, nginx; CPU µs a message, median of $pairs"
bench_machine
for who in "${binaries[@]}"; do
    # shellcheck disable=SC2086  # the lists are numbers
    off=$(median ${cpu[$who-off]})
    # shellcheck disable=SC2086
    on=$(median ${cpu[$who-on]})
    ratio=$(bench_calc "round($on / $off, 2)")
    printf '  %-4s off %6s µs   on %6s µs   on÷off %s×   (off:%s; on:%s)\n' "$who" "$off" "$on" "$ratio" \
        "${cpu[$who-off]}" "${cpu[$who-on]}"
    bench_record "$who: ledger on ÷ off, CPU a message at $rate/s, burst 1" "bench/ledger_paced.sh $n $rate" \
        "$on µs" "$off µs (off)" "${ratio}×" "≤ 1.15×" "$(bench_met "$ratio <= 1.15")"
done
echo "Load average at the end: $(cut -d' ' -f1-3 /proc/loadavg)."
