#!/usr/bin/env bash
# Runs one campaign of N generated recipients against the sandbox and prints its figures:
# duration, achieved rate, wacamp's CPU time and peak memory, and the journal's check that every
# number was delivered exactly once.
#   bench/campaign.sh [N] [PER_SECOND] [CONCURRENCY] [-- SANDBOX OPTIONS…]
# Example (issue figures): bench/campaign.sh 10000 200 8
set -euo pipefail
cd "$(dirname "$0")/.."
n=${1:-10000}; rate=${2:-200}; concurrency=${3:-8}
shift $(( $# < 3 ? $# : 3 )); [ "${1:-}" = "--" ] && shift
sandbox_args=("$@")

bash scripts/setup.sh time
bash scripts/build.sh >/dev/null
wacamp=$PWD/build/src/wacamp
work=$(mktemp -d)
trap 'kill "$sandbox_pid" 2>/dev/null || true; wait "$sandbox_pid" 2>/dev/null || true; rm -rf "$work"' EXIT

"$wacamp" sandbox --port 0 --journal "$work/journal.jsonl" "${sandbox_args[@]}" >"$work/sandbox.out" 2>"$work/sandbox.err" &
sandbox_pid=$!
for _ in $(seq 100); do grep -q '^listening on ' "$work/sandbox.out" 2>/dev/null && break; sleep 0.1; done
url=$(sed -n 's/^listening on //p' "$work/sandbox.out" | head -1)

python3 - "$n" > "$work/recipients.csv" <<'PY'
import sys
n = int(sys.argv[1])
print("phone,name,user_id")
for i in range(n):
    print(f"+91{9000000000 + i},Person {i},u-{i}")
PY
cat > "$work/campaign.yaml" <<YAML
name: bench
service: {base_url: "$url", api_key: sandbox-key, timeout: 30s}
recipients: {file: recipients.csv, columns: {wa_id: phone, user_name: name}, default_country: IN}
message: {type: text, text: "Hi {{name}}, this is a benchmark message."}
rate: {per_second: $rate, burst: 1, concurrency: $concurrency}
results: results.jsonl
YAML

start=$(date +%s.%N)
/usr/bin/time -f '%U %S %M' -o "$work/time.txt" "$wacamp" run "$work/campaign.yaml" --yes --no-progress >"$work/run.out" 2>&1 || true
end=$(date +%s.%N)
read -r user sys maxrss < "$work/time.txt"

python3 - "$work" "$n" "$rate" "$concurrency" "$start" "$end" "$user" "$sys" "$maxrss" <<'PY'
import json, sys, collections
work, n, rate, conc, start, end, user, sys_t, rss = sys.argv[1:]
n = int(n); wall = float(end) - float(start)
ok = collections.Counter()
times = []
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
tail -3 "$work/run.out"
