#!/usr/bin/env bash
# Runs one campaign of N generated recipients against the sandbox and prints its figures:
# duration, achieved rate, wacamp's CPU time and peak memory, and the journal's check that every
# number was delivered exactly once.
#   bench/campaign.sh [N] [PER_SECOND] [CONCURRENCY] [-- SANDBOX OPTIONS…]
# Example (issue figures): bench/campaign.sh 10000 200 8
set -euo pipefail
. "$(dirname "$0")/lib.sh"
n=${1:-10000}
rate=${2:-200}
concurrency=${3:-8}
shift $(($# < 3 ? $# : 3))
[ "${1:-}" = "--" ] && shift
sandbox_args=("$@")

bench_setup
bench_start_sandbox sandbox --journal "$bench_work/journal.jsonl" "${sandbox_args[@]}"
bench_make_csv "$n" "$bench_work/recipients.csv"
bench_write_campaign "$bench_work/campaign.yaml" "$SANDBOX_URL" "$bench_work/recipients.csv" "$bench_work/results.jsonl" \
    "per_second: $rate, burst: 1, concurrency: $concurrency"
bench_time run "$WACAMP" run "$bench_work/campaign.yaml" --yes --no-progress

python3 - "$bench_work" "$n" "$rate" "$concurrency" "$T_WALL" "$T_USER" "$T_SYS" "$T_RSS" <<'PY'
import json, sys, collections
work, n, rate, conc, wall, user, sys_t, rss = sys.argv[1:]
n = int(n); wall = float(wall)
ok = collections.Counter()
for line in open(f"{work}/journal.jsonl"):
    j = json.loads(line)
    if j.get("path") == "/whatsapp-automation/wa/send-message" and j.get("outcome") == "ok":
        ok[j["wa_id"]] += 1
sent = 0
for line in open(f"{work}/results.jsonl"):
    j = json.loads(line)
    if j.get("event") == "result" and j.get("status") == "sent":
        sent += 1
dups = sum(1 for c in ok.values() if c > 1)
cpu = float(user) + float(sys_t)
print(f"recipients           {n}")
print(f"per_second, in flight {rate}, {conc}")
print(f"sent (result log)    {sent}")
print(f"delivered (journal)  {len(ok)} distinct numbers, {dups} delivered twice")
print(f"duration             {wall:.2f} s")
print(f"achieved rate        {sent / wall:.1f} messages/s ({sent / wall / float(rate):.3f} of per_second)")
print(f"wacamp CPU           {cpu:.2f} s user+sys = {100 * cpu / wall:.1f}% of one core, {1e6 * cpu / max(sent,1):.0f} µs per message")
print(f"wacamp peak RSS      {int(rss) / 1024:.1f} MiB")
PY
tail -3 "$bench_work/run.out"
