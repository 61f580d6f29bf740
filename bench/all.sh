#!/usr/bin/env bash
# Runs every benchmark in sequence (one setup, one build) and writes bench/results.md: one table
# row per figure (what, command, result, reference, ratio, target, met?) and the machine. Each
# benchmark's own output goes to bench/out/NAME.txt. Takes about 7 minutes at the full sizes
# (the pacing run alone takes N / the rate it reaches: 30 s at 1,000/s).
#   bench/all.sh            the issue's sizes
#   bench/all.sh --quick    small sizes that check the scripts work (writes bench/out/results-quick.md)
set -euo pipefail
. "$(dirname "$0")/lib.sh"
quick=0
[ "${1:-}" = "--quick" ] && quick=1

bench_setup wrk=wrk nginx=nginx-light hyperfine=hyperfine mlr=miller valgrind=valgrind curl=curl openssl=openssl \
    h2load=nghttp2-client
if [ "$quick" = 1 ]; then
    results_md=${BENCH_RESULTS_MD:-$bench_out/results-quick.md}
    runs=("throughput 20000 5" "pacing 1000" "memory 10000 50000" "ledger 20000 1000 20000" "dry_run 50000" "cost 200 5 2000" "sandbox 32 3" "plan_memory 50000 1000000000 5000" "tls_pacing 2000" "tls_throughput 20000 5")
    durability_n=2000
else
    results_md=${BENCH_RESULTS_MD:-$bench_root/bench/results.md}
    runs=("throughput" "pacing" "memory" "ledger" "dry_run" "cost" "sandbox" "plan_memory" "tls_pacing" "tls_throughput")
    durability_n=20000
fi
export BENCH_RECORD=$bench_work/rows.tsv
: >"$BENCH_RECORD"

failed=()
for run in "${runs[@]}"; do
    read -r -a words <<<"$run"
    name=${words[0]}
    echo "== bench/$name.sh ${words[*]:1}"
    if bash "bench/$name.sh" "${words[@]:1}" 2>&1 | tee "$bench_out/$name.txt"; then :; else
        failed+=("$name")
    fi
done

# The log durability program, when it can be built (one target in the build dir).
durability=$(bench_program bench_log_durability)
if [ -n "$durability" ]; then
    echo "== bench_log_durability $durability_n"
    mkdir -p "$bench_work/durability"
    if "$durability" "$durability_n" "$bench_work/durability" | tee "$bench_out/log_durability.txt"; then
        :
    else
        failed+=(log_durability)
    fi
    read -r none interval every < <(awk '$1 == "none" {n = $2} $1 == "interval" {i = $4}
        $1 == "every_record" {e = $2} END {print n, i, e}' "$bench_out/log_durability.txt")
    bench_record "result-log durability, µs of log writing per message" \
        "bench_log_durability $durability_n" "none $none, interval $interval, every $every" "--sync none" \
        "interval $(bench_calc "f'{$interval / $none:.2f}'")×, every $(bench_calc "f'{$every / $none:.0f}'")×" "—" "—"
else
    echo "== bench_log_durability: not built (configure with -DWACAMP_BENCH=ON); skipped"
fi

{
    echo "# Benchmark figures"
    echo
    [ "$quick" = 1 ] && echo "**Quick sizes (\`bench/all.sh --quick\`): a check that the scripts work, not the figures.**" && echo
    echo "Produced by \`bench/all.sh${1:+ $1}\` on $(date -u '+%Y-%m-%d %H:%M UTC'), wacamp $(bench_wacamp_version)."
    bench_machine
    echo "Load average at the end: $(cut -d' ' -f1-3 /proc/loadavg)."
    echo
    echo "| what | command | result | reference | ratio | target | met? |"
    echo "|---|---|---|---|---|---|---|"
    python3 - "$BENCH_RECORD" <<'PY'
import sys
for line in open(sys.argv[1], encoding="utf-8"):
    cells = [c.replace("|", "\\|") for c in line.rstrip("\n").split("\t")]
    cells[1] = f"`{cells[1]}`"  # the command
    print("| " + " | ".join(cells) + " |")
PY
    [ ${#failed[@]} -eq 0 ] || { echo; echo "Failed: ${failed[*]} (see bench/out/NAME.txt)."; }
} >"$results_md"
echo "== wrote $results_md"
[ ${#failed[@]} -eq 0 ] || bench_die "failed: ${failed[*]}"
