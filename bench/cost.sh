#!/usr/bin/env bash
# Cost at rate: wacamp's own CPU (user+sys, /usr/bin/time) while it sends RATE messages/s for
# SECONDS seconds to the sandbox, as % of one core and µs per message. Target: ≤ 5% of a core.
# Then where the instructions go: `perf stat -e instructions` when this machine supports it, and
# callgrind (always) on two unlimited-rate runs against nginx with CG_N and 2×CG_N recipients:
# (instructions(2N) − instructions(N)) / N is the cost of one message, start-up cancelled out.
# The bigger run's profile is kept in bench/out/: cost-callgrind.out, its top functions by
# inclusive cost in cost-callgrind-top.txt, by own cost in cost-callgrind-self.txt.
#   bench/cost.sh [RATE=1000] [SECONDS=30] [CG_N=5000] [BURST=1]
set -euo pipefail
. "$(dirname "$0")/lib.sh"
rate=${1:-1000}
seconds=${2:-30}
cg_n=${3:-5000}
burst=${4:-1}
n=$((rate * seconds))

bench_setup nginx=nginx-light valgrind=valgrind callgrind_annotate=valgrind cc=gcc
[ -f /usr/include/x86_64-linux-gnu/curl/curl.h ] || [ -f /usr/include/curl/curl.h ] || bash scripts/setup.sh libcurl4-openssl-dev
cc -O2 -o "$bench_work/paced_client" bench/paced_client.c
cc -O2 -o "$bench_work/curl_client" bench/curl_client.c -lcurl
bench_start_sandbox sandbox
bench_make_csv "$n" "$bench_work/recipients.csv"
bench_write_campaign "$bench_work/campaign.yaml" "$SANDBOX_URL" "$bench_work/recipients.csv" \
    "$bench_work/results.jsonl" "per_second: $rate, burst: $burst"
bench_time at-rate "$WACAMP" run "$bench_work/campaign.yaml" --yes --no-progress
[ "$T_RC" = 0 ] || { cat "$bench_work/at-rate.err" >&2; bench_die "wacamp run exited $T_RC"; }
# The floor: a minimal C client, one prebuilt request per interval, against the same sandbox.
interval_ns=$(bench_calc "round(1e9 / $rate)")
read -r _ floor_ok floor_user floor_sys < <("$bench_work/paced_client" "${SANDBOX_URL##*:}" "$n" "$interval_ns" 2>/dev/null) ||
    bench_die "the paced client failed"
[ "$floor_ok" = "$n" ] || bench_die "the paced client had $floor_ok answers of 200, not $n"
# libcurl alone at the same pace: one reused handle, curl_easy_perform, the same sleep.
read -r _ curl_ok curl_user curl_sys < <("$bench_work/curl_client" "$SANDBOX_URL" "$n" 1 "$interval_ns" 2>/dev/null) ||
    bench_die "the libcurl client failed"
[ "$curl_ok" = "$n" ] || bench_die "the libcurl client had $curl_ok answers of 200, not $n"
bench_stop "$SANDBOX_PID"
floor_us=$(bench_calc "f'{1e6 * ($floor_user + $floor_sys) / $n:.1f}'")
floor_pct=$(bench_calc "f'{100 * ($floor_user + $floor_sys) / $seconds:.2f}'")
curl_us=$(bench_calc "f'{1e6 * ($curl_user + $curl_sys) / $n:.1f}'")
curl_pct=$(bench_calc "f'{100 * ($curl_user + $curl_sys) / $seconds:.2f}'")
cpu=$(bench_calc "$T_USER + $T_SYS")
core_pct=$(bench_calc "f'{100 * $cpu / $T_WALL:.2f}'")
us_per_msg=$(bench_calc "f'{1e6 * $cpu / $n:.1f}'")
achieved=$(bench_calc "f'{$n / $T_WALL:.1f}'")
met=$(bench_met "$core_pct <= 5")
printf 'cost at rate: %s recipients at per_second %s, burst %s, against the sandbox\n' "$n" "$rate" "$burst"
printf '  wall %s s (%s messages/s), CPU %s s user + %s s sys\n' "$T_WALL" "$achieved" "$T_USER" "$T_SYS"
printf '  %s%% of one core (target ≤ 5%%: %s), %s µs of CPU per message\n' "$core_pct" "$met" "$us_per_msg"
printf '  floor (bench/paced_client.c, same sandbox, same rate): %s µs per request, %s%% of one core; wacamp %s× that\n' \
    "$floor_us" "$floor_pct" "$(bench_calc "f'{$us_per_msg / $floor_us:.2f}'")"
printf '  libcurl alone (bench/curl_client.c, paced, same sandbox): %s µs per request, %s%% of one core; wacamp %s× that\n' \
    "$curl_us" "$curl_pct" "$(bench_calc "f'{$us_per_msg / $curl_us:.2f}'")"
bench_record "cost at rate: $n messages at per_second $rate, burst $burst, sandbox" "bench/cost.sh $rate $seconds $cg_n $burst" \
    "$core_pct% of one core, $us_per_msg µs CPU/message" "one core for the run's $T_WALL s" \
    "$(bench_calc "f'{$core_pct / 100:.4f}'")×" "≤ 5% of one core" "$met"
bench_record "cost floor: a 40-line C client at per_second $rate, same sandbox" "bench/cost.sh $rate $seconds $cg_n" \
    "$floor_pct% of one core, $floor_us µs CPU/request" "wacamp: $us_per_msg µs/message" \
    "wacamp $(bench_calc "f'{$us_per_msg / $floor_us:.2f}'")× the floor" "—" "—"
bench_record "cost of libcurl alone (bench/curl_client.c, paced, one reused handle) at per_second $rate, same sandbox" \
    "bench/cost.sh $rate $seconds $cg_n" "$curl_pct% of one core, $curl_us µs CPU/request" "wacamp: $us_per_msg µs/message" \
    "wacamp $(bench_calc "f'{$us_per_msg / $curl_us:.2f}'")× libcurl alone" "—" "—"

# Instructions per message: two runs against the stand-in, N and 2N recipients.
bench_start_nginx
bench_unlimited_rate
for size in "$cg_n" $((2 * cg_n)); do
    bench_make_csv "$size" "$bench_work/cg$size.csv"
    bench_write_campaign "$bench_work/cg$size.yaml" "$NGINX_URL" "$bench_work/cg$size.csv" \
        "$bench_work/cg$size.jsonl" "per_second: $unlimited_rate, burst: 1, concurrency: 32"
done
run_args() { echo run "$bench_work/cg$1.yaml" --yes --no-progress; }

perf_note="not supported here"
if perf_probe=$(perf stat -x, -e instructions -- true 2>&1) && [[ $perf_probe =~ ^[0-9]+,[^,]*,instructions ]]; then
    declare -A perf_instr
    for size in "$cg_n" $((2 * cg_n)); do
        rm -f "$bench_work/cg$size.jsonl"
        # shellcheck disable=SC2046
        perf stat -x, -e instructions -o "$bench_work/perf$size.csv" -- "$WACAMP" $(run_args "$size") >/dev/null
        perf_instr[$size]=$(awk -F, '$3 ~ /^instructions/ {print $1}' "$bench_work/perf$size.csv")
    done
    perf_note="$(bench_calc "f'{(${perf_instr[$((2 * cg_n))]} - ${perf_instr[$cg_n]}) / $cg_n:,.0f}'") instructions/message"
else
    perf_note="not supported here ($(echo "$perf_probe" | grep -m1 instructions | cut -d, -f1))"
fi
printf '  perf stat -e instructions: %s\n' "$perf_note"

declare -A cg_instr
for size in "$cg_n" $((2 * cg_n)); do
    rm -f "$bench_work/cg$size.jsonl"
    # shellcheck disable=SC2046
    valgrind --tool=callgrind --callgrind-out-file="$bench_work/callgrind.$size" \
        "$WACAMP" $(run_args "$size") >/dev/null 2>"$bench_work/callgrind.$size.err" ||
        { cat "$bench_work/callgrind.$size.err" >&2; bench_die "wacamp under callgrind failed"; }
    cg_instr[$size]=$(awk '/^(summary|totals):/ {print $2; exit}' "$bench_work/callgrind.$size")
done
big=$((2 * cg_n))
cp "$bench_work/callgrind.$big" "$bench_out/cost-callgrind.out"
callgrind_annotate --inclusive=yes "$bench_out/cost-callgrind.out" >"$bench_work/annotate.txt"
head -40 "$bench_work/annotate.txt" >"$bench_out/cost-callgrind-top.txt"
callgrind_annotate "$bench_out/cost-callgrind.out" >"$bench_work/annotate-self.txt"
head -40 "$bench_work/annotate-self.txt" >"$bench_out/cost-callgrind-self.txt"
per_msg=$(bench_calc "f'{(${cg_instr[$big]} - ${cg_instr[$cg_n]}) / $cg_n:,.0f}'")
startup=$(bench_calc "f'{(2 * ${cg_instr[$cg_n]} - ${cg_instr[$big]}):,.0f}'")
printf '  callgrind: %s instructions for %s messages, %s for %s\n' "${cg_instr[$cg_n]}" "$cg_n" "${cg_instr[$big]}" "$big"
printf '  → %s instructions per message (unlimited rate, 32 in flight, nginx), %s for start-up\n' "$per_msg" "$startup"
printf '  top functions: %s (inclusive), %s (self)\n' "$bench_out/cost-callgrind-top.txt" "$bench_out/cost-callgrind-self.txt"
bench_record "instructions per message (callgrind, difference of $cg_n and $big messages)" \
    "bench/cost.sh $rate $seconds $cg_n" "$per_msg instructions/message" \
    "start-up: $startup instructions; perf stat: $perf_note" "—" "—" "—"
