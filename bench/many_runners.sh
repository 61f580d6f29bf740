#!/usr/bin/env bash
# Many runners, one account: RUNNERS `wacamp run` processes share the account's pace in Redis
# (account.rate_store) at a combined per_second RATE, burst BURST, against the sandbox answering
# each request LATENCY late. Reports the Redis calls per message (INFO commandstats: EVALSHA calls
# / messages), the pacing error (combined achieved rate / RATE; the most requests arriving at the
# sandbox in any one second against RATE + BURST) and wacamp's CPU per message.
#   bench/many_runners.sh [N=40000] [RATE=1000] [BURST=20] [LATENCY=100ms] [RUNNERS=4]
set -euo pipefail
. "$(dirname "$0")/lib.sh"
n=${1:-40000}
rate=${2:-1000}
burst=${3:-20}
latency=${4:-100ms}
runners=${5:-4}
latency_ms=${latency%ms}
[[ $latency_ms =~ ^[0-9]+$ ]] || bench_die "LATENCY is milliseconds, e.g. 100ms (got $latency)"

bench_setup redis-server=redis-server redis-cli=redis-tools
redis_port=$(bench_free_port)
mkdir -p "$bench_work/redis"
redis-server --port "$redis_port" --bind 127.0.0.1 --save "" --appendonly no --dir "$bench_work/redis" \
    >"$bench_work/redis.out" 2>&1 &
bench_track $!
for _ in $(seq 100); do
    [ "$(redis-cli -p "$redis_port" ping 2>/dev/null)" = PONG ] && break
    sleep 0.1
done
[ "$(redis-cli -p "$redis_port" ping 2>/dev/null)" = PONG ] || bench_die "redis-server did not start"

bench_start_sandbox sandbox --latency "$latency_ms" --threads 512 --journal "$bench_work/journal.jsonl"

per_runner=$(( n / runners ))
pids=()
for r in $(seq 0 $(( runners - 1 ))); do
    dir=$bench_work/runner$r
    mkdir -p "$dir"
    python3 - "$per_runner" "$r" >"$dir/r.csv" <<'PY'
import sys
n, r = int(sys.argv[1]), int(sys.argv[2])
print("phone,name,user_id")
for i in range(r * n, (r + 1) * n):
    print(f"+91{9000000000 + i},Person {i},u-{i}")
PY
    cat >"$dir/c.yaml" <<YAML
name: bench-runner-$r
service: {base_url: "$SANDBOX_URL", api_key: sandbox-key, timeout: 30s}
recipients: {file: "$dir/r.csv", columns: {wa_id: phone, user_name: name}, default_country: IN}
message: {type: text, text: "Hi {{name}}, this is a benchmark message."}
rate: {per_second: $rate, burst: $burst}
account: {name: bench-many, ledger: off, rate_store: "redis://127.0.0.1:$redis_port/0"}
results: "$dir/results.jsonl"
YAML
    /usr/bin/time -f '%U %S %M' -o "$dir/time" "$WACAMP" run "$dir/c.yaml" --yes --no-progress \
        >"$dir/out" 2>"$dir/err" &
    pids+=($!)
done
for r in "${!pids[@]}"; do
    wait "${pids[$r]}" || { cat "$bench_work/runner$r/err" >&2; bench_die "runner $r exited non-zero"; }
done

calls=$(redis-cli -p "$redis_port" info commandstats | sed -n 's/^cmdstat_evalsha:calls=\([0-9]*\),.*/\1/p')
cpu=$(cat "$bench_work"/runner*/time | awk '{ s += $1 + $2 } END { printf "%.2f", s }')
read -r arrived ok achieved most < <(python3 - "$bench_work/journal.jsonl" <<'PY'
import json, sys
from datetime import datetime
at, ok = [], 0
for line in open(sys.argv[1]):
    j = json.loads(line)
    if j.get("path") != "/whatsapp-automation/wa/send-message":
        continue
    at.append(datetime.strptime(j["at"], "%Y-%m-%dT%H:%M:%S.%fZ").timestamp())
    ok += j.get("outcome") == "ok"
at.sort()
most, j = 0, 0
for i in range(len(at)):
    while j < len(at) and at[j] - at[i] < 1.0 - 1e-9:
        j += 1
    most = max(most, j - i)
span = at[-1] - at[0]
print(len(at), ok, f"{(len(at) - 1) / span:.1f}", most)
PY
)
[ "$ok" = "$(( per_runner * runners ))" ] || bench_die "the sandbox delivered $ok, not $(( per_runner * runners ))"
limit=$(( rate + burst ))
printf 'many runners: %s runners, %s messages in all, per_second %s, burst %s, sandbox latency %s ms\n' \
    "$runners" "$ok" "$rate" "$burst" "$latency_ms"
printf '  Redis calls (EVALSHA) %s = %s per message\n' "$calls" "$(bench_calc "f'{$calls / $ok:.3f}'")"
printf '  combined achieved rate (sandbox, first to last arrival) %s/s = %s× per_second\n' "$achieved" \
    "$(bench_calc "f'{$achieved / $rate:.3f}'")"
printf '  most arrivals in any one second %s (per_second + burst = %s: %s)\n' "$most" "$limit" \
    "$(bench_met "$most <= $limit")"
printf '  wacamp CPU %s s user+sys over the %s runners = %s µs per message\n' "$cpu" "$runners" \
    "$(bench_calc "f'{$cpu / $ok * 1e6:.0f}'")"
