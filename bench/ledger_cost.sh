#!/usr/bin/env bash
# The account ledger's cost on the send path, in instructions a message (callgrind counts the
# same on a busy machine as on a quiet one): N recipients, unlimited rate, 32 in flight, the nginx
# stand-in, run three ways with each binary — `account: {ledger: off}`, a fresh SQLite ledger,
# and a fresh ledger with `rate.per_day` (above N: every send counted, none refused). A second
# binary (WACAMP_REF) is measured beside, in the same run.
#   bench/ledger_cost.sh [N=20000]          (env: WACAMP, WACAMP_REF)
# Profiles go to bench/out/ledger-cost-{work,ref}-{off,on,day}.out (callgrind_annotate them).
set -euo pipefail
. "$(dirname "$0")/lib.sh"
n=${1:-20000}

bench_setup nginx=nginx-light valgrind=valgrind
bench_start_nginx
bench_unlimited_rate
bench_make_csv "$n" "$bench_work/recipients.csv"

# instructions WHICH BIN MODE: runs BIN under callgrind and prints its instruction count.
instructions() {
    local which=$1 bin=$2 mode=$3 rate="per_second: $unlimited_rate, burst: 1, concurrency: 32"
    local campaign=$bench_work/$which-$mode.yaml
    [ "$mode" = day ] && rate="$rate, per_day: $((n * 10))"
    bench_write_campaign "$campaign" "$NGINX_URL" "$bench_work/recipients.csv" \
        "$bench_work/$which-$mode.jsonl" "$rate"
    if [ "$mode" = off ]; then
        echo 'account: {ledger: off}' >>"$campaign"
    else
        echo "account: {name: bench, ledger: \"$bench_work/$which-$mode.sqlite\"}" >>"$campaign"
    fi
    valgrind --tool=callgrind --callgrind-out-file="$bench_out/ledger-cost-$which-$mode.out" \
        "$bin" run "$campaign" --yes --no-progress >/dev/null 2>"$bench_work/$which-$mode.err" ||
        { tail -5 "$bench_work/$which-$mode.err" >&2; bench_die "$which ($mode) failed"; }
    sed -n 's/.*Collected : \([0-9]*\).*/\1/p' "$bench_work/$which-$mode.err"
}

builds=(work)
declare -A bin=([work]=$WACAMP)
if [ -n "${WACAMP_REF:-}" ]; then
    builds+=(ref)
    bin[ref]=$WACAMP_REF
fi
echo "Ledger cost, $n messages (instructions a message; ledger's share = on − off):"
bench_machine
for which in "${builds[@]}"; do
    declare -A count=()
    for mode in off on day; do
        count[$mode]=$(instructions "$which" "${bin[$which]}" "$mode")
    done
    printf '  %-7s off %sk   on %sk (ledger %sk, on÷off %s)   per_day %sk (ledger %sk)\n' "$which" \
        "$(bench_calc "round(${count[off]} / $n / 1000)")" \
        "$(bench_calc "round(${count[on]} / $n / 1000)")" \
        "$(bench_calc "round((${count[on]} - ${count[off]}) / $n / 1000)")" \
        "$(bench_calc "f'{${count[on]} / ${count[off]}:.2f}'")" \
        "$(bench_calc "round(${count[day]} / $n / 1000)")" \
        "$(bench_calc "round((${count[day]} - ${count[off]}) / $n / 1000)")"
done
