#!/usr/bin/env bash
# How many send-message requests per second `wacamp sandbox` answers on this machine: wrk, keep-alive,
# CONNECTIONS connections for SECONDS seconds, with and without the journal.
#   bench/sandbox.sh [CONNECTIONS] [SECONDS]
set -euo pipefail
cd "$(dirname "$0")/.."
connections=${1:-32}; seconds=${2:-10}
bash scripts/setup.sh wrk
bash scripts/build.sh >/dev/null
wacamp=$PWD/build/src/wacamp
work=$(mktemp -d)
pids=()
trap 'for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; wait "$p" 2>/dev/null || true; done; rm -rf "$work"' EXIT

cat > "$work/send.lua" <<'LUA'
wrk.method = "POST"
wrk.path = "/whatsapp-automation/wa/send-message?apiKey=sandbox-key"
wrk.headers["Content-Type"] = "application/json"
wrk.headers["apiKey"] = "sandbox-key"
wrk.body = '{"userName":"Asha","wa_id":"919812345678","type":"text","message":{"text":"Hi Asha, this is a benchmark message."}}'
LUA

start_sandbox() {  # $1: name; rest: options
  local name=$1; shift
  "$wacamp" sandbox --port 0 "$@" >"$work/$name.out" 2>"$work/$name.err" &
  pids+=($!)
  for _ in $(seq 100); do grep -q '^listening on ' "$work/$name.out" 2>/dev/null && break; sleep 0.1; done
  sed -n 's/^listening on //p' "$work/$name.out" | head -1
}

for mode in "no journal" "journal"; do
  if [ "$mode" = journal ]; then url=$(start_sandbox j --journal "$work/journal.jsonl"); else url=$(start_sandbox n); fi
  rps=$(wrk -t2 -c"$connections" -d"${seconds}s" -s "$work/send.lua" "$url" | awk '/Requests\/sec/ {print $2}')
  printf 'sandbox, %-10s %s connections: %s requests/s\n' "$mode," "$connections" "$rps"
done
