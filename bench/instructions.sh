#!/usr/bin/env bash
# The send path's cost in instructions, REF's build beside the working tree's, free of the noise
# that wall-clock and CPU-time figures carry on a busy machine: each binary runs a text campaign
# of SMALL and of LARGE recipients at the nginx stand-in (unlimited rate, 32 in flight) under
# valgrind's callgrind, and the instructions a message are (Ir(LARGE) − Ir(SMALL)) ÷ (LARGE −
# SMALL): start-up, the template list and the summary cancel out. The ledger off and on (a fresh
# XDG_STATE_HOME each run). What is left of the noise is the event loop's wake-ups, which follow
# the answers' timing: repeat with PAIRS to see it (each figure's spread is printed).
#   bench/instructions.sh REF_BINARY [SMALL=2000] [LARGE=6000]
# Environment, besides lib.sh's: PAIRS=2 (runs of each binary, alternating), LEDGER="off on".
# A REF that does not know `account:` (built before the ledger) has no ledger: its runs are its
# ledger-off figures, and its ledger-on row is left out. A REF that refuses `per_second:
# unlimited` runs at 100000 a second (the loader's maximum then), as compare.sh does.
set -euo pipefail
if [ $# -lt 1 ] || [ ! -x "$1" ]; then
    echo "usage: bench/instructions.sh REF_BINARY [SMALL=2000] [LARGE=6000]   (env: WACAMP= PAIRS=2 LEDGER='off on')" >&2
    exit 2
fi
ref_bin=$(realpath "$1")
small=${2:-2000}
large=${3:-6000}
. "$(dirname "$0")/lib.sh"
pairs=${PAIRS:-2}
bench_setup nginx=nginx-light valgrind=valgrind
bench_start_nginx
# rate_of BINARY / knows_account BINARY: what a build accepts (a REF may be older).
rate_of() { if bench_accepts "$1" "per_second: unlimited"; then echo unlimited; else echo 100000; fi; }
knows_account() { bench_accepts "$1" "per_second: 100000" "account: {ledger: off}"; }

# instructions BINARY N LEDGER TAG: runs BINARY on N recipients under callgrind; prints its Ir.
instructions() {
    local bin=$1 n=$2 ledger=$3 dir=$bench_work/i-$4
    mkdir -p "$dir"
    bench_make_csv "$n" "$dir/r.csv"
    bench_write_campaign "$dir/c.yaml" "$NGINX_URL" "$dir/r.csv" "$dir/r.jsonl" \
        "per_second: $(rate_of "$bin"), burst: 1, concurrency: 32"
    [ "$ledger" = on ] || ! knows_account "$bin" || echo "account: {ledger: off}" >>"$dir/c.yaml"
    XDG_STATE_HOME=$dir/state valgrind --tool=callgrind --callgrind-out-file="$dir/callgrind.out" \
        "$bin" run "$dir/c.yaml" --yes --no-progress >"$dir/out" 2>"$dir/err" ||
        { tail -5 "$dir/err" >&2; bench_die "$bin run of $n recipients failed under callgrind"; }
    awk '/^summary:/ {print $2}' "$dir/callgrind.out"
}

printf 'instructions a message (callgrind Ir, (Ir(%s) − Ir(%s)) ÷ %s), nginx stand-in, unlimited rate\n' \
    "$large" "$small" "$((large - small))"
printf 'REF %s; working tree %s\n' "$ref_bin" "$WACAMP"
printf '| ledger | REF | working tree | ratio |\n|---|---|---|---|\n'
for ledger in ${LEDGER:-off on}; do
    if [ "$ledger" = on ] && ! knows_account "$ref_bin"; then
        printf '| on | n/a (REF has no ledger) | | |\n'
        continue
    fi
    declare -A per=([ref]="" [work]="")
    for pair in $(seq "$pairs"); do
        order=(ref work)
        [ $((pair % 2)) = 1 ] || order=(work ref)
        for which in "${order[@]}"; do
            bin=$ref_bin
            [ "$which" = ref ] || bin=$WACAMP
            lo=$(instructions "$bin" "$small" "$ledger" "$which-$ledger-$pair-s")
            hi=$(instructions "$bin" "$large" "$ledger" "$which-$ledger-$pair-l")
            per[$which]+="$(bench_calc "($hi - $lo) / ($large - $small)") "
        done
    done
    read -r ref_median ref_spread < <(python3 -c 'import statistics,sys; v=[float(x) for x in sys.argv[1:]]; print(f"{statistics.median(v):.0f} {max(v)-min(v):.0f}")' ${per[ref]})
    read -r work_median work_spread < <(python3 -c 'import statistics,sys; v=[float(x) for x in sys.argv[1:]]; print(f"{statistics.median(v):.0f} {max(v)-min(v):.0f}")' ${per[work]})
    printf '| %s | %s (spread %s) | %s (spread %s) | %s× |\n' "$ledger" "$ref_median" "$ref_spread" \
        "$work_median" "$work_spread" "$(bench_calc "f'{$work_median / $ref_median:.3f}'")"
done
