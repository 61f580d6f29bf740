#!/usr/bin/env bash
# Pacing under latency: a campaign at per_second RATE, burst 1, against the sandbox answering each
# request LATENCY late. Targets: achieved rate ≥ 0.99 × RATE, and no one-second window with more
# than RATE + burst requests started. Without CONCURRENCY the campaign has no concurrency key
# (wacamp's default decides); with it, `concurrency: CONCURRENCY`.
#   bench/pacing.sh [N=30000] [RATE=1000] [LATENCY=100ms] [CONCURRENCY]
set -euo pipefail
. "$(dirname "$0")/lib.sh"
n=${1:-30000}
rate=${2:-1000}
latency=${3:-100ms}
concurrency=${4:-}
burst=1
latency_ms=${latency%ms}
[[ $latency_ms =~ ^[0-9]+$ ]] || bench_die "LATENCY is milliseconds, e.g. 100ms (got $latency)"

bench_setup
# One sandbox thread per open connection: leave room for whatever concurrency the run picks.
threads=$(( ${concurrency:-0} + 64 > 256 ? ${concurrency:-0} + 64 : 256 ))
bench_start_sandbox sandbox --latency "$latency_ms" --threads "$threads" --journal "$bench_work/journal.jsonl"

bench_make_csv "$n" "$bench_work/recipients.csv"
rate_map="per_second: $rate, burst: $burst${concurrency:+, concurrency: $concurrency}"
bench_write_campaign "$bench_work/campaign.yaml" "$SANDBOX_URL" "$bench_work/recipients.csv" "$bench_work/results.jsonl" "$rate_map"
bench_time wacamp "$WACAMP" run "$bench_work/campaign.yaml" --yes --no-progress
[ "$T_RC" = 0 ] || { cat "$bench_work/wacamp.out" "$bench_work/wacamp.err" >&2; bench_die "wacamp run exited $T_RC"; }

python3 bench/log_stats.py pacing "$bench_work/results.jsonl" "$bench_work/journal.jsonl" >"$bench_work/pacing.json"
read -r sent attempts achieved max_log journal_rate max_journal < <(python3 - "$bench_work/pacing.json" <<'PY'
import json, sys
s = json.load(open(sys.argv[1]))
print(s["sent"], s["attempts"], f'{s["attempt_rate"]:.1f}', s["max_in_1s_log"], f'{s["journal_rate"]:.1f}', s["max_in_1s_journal"])
PY
)
[ "$sent" = "$n" ] || bench_die "the result log records $sent sent, not $n"
wall_rate=$(bench_calc "f'{$sent / $T_WALL:.1f}'")
rate_ratio=$(bench_calc "f'{$achieved / $rate:.3f}'")
limit=$(bench_calc "int($rate + $burst) if float($rate).is_integer() else __import__('math').ceil($rate) + $burst")
rate_met=$(bench_met "$achieved >= 0.99 * $rate")
window_met=$(bench_met "$max_log <= $limit and $max_journal <= $limit")

printf 'pacing: %s recipients, %s, sandbox latency %s ms\n' "$n" "$rate_map" "$latency_ms"
printf '  sent %s (%s requests), wall %s s (%s messages/s over the whole run)\n' "$sent" "$attempts" "$T_WALL" "$wall_rate"
printf '  achieved rate, first to last request    %s/s = %s× per_second (target ≥ 0.99: %s)\n' "$achieved" "$rate_ratio" "$rate_met"
printf '  same, from the sandbox journal          %s/s\n' "$journal_rate"
printf '  most started in one second: log %s, journal %s (target ≤ %s: %s)\n' "$max_log" "$max_journal" "$limit" "$window_met"
printf '  wacamp CPU %s s user+sys, peak RSS %.1f MiB\n' "$(bench_calc "f'{$T_USER + $T_SYS:.2f}'")" "$(bench_calc "$T_RSS / 1024")"
command="bench/pacing.sh $n $rate ${latency_ms}ms${concurrency:+ $concurrency}"
what="pacing: $n recipients at per_second $rate, burst $burst, ${concurrency:-default} in flight, ${latency_ms} ms latency"
bench_record "$what: achieved rate" "$command" "$achieved/s" \
    "per_second $rate" "${rate_ratio}×" "≥ 0.99×" "$rate_met"
bench_record "$what: most requests started in any 1 s" "$command" \
    "$max_log (log), $max_journal (journal)" "per_second + burst = $limit" \
    "$(bench_calc "f'{max($max_log, $max_journal) / $limit:.3f}'")×" "≤ $limit" "$window_met"
