#!/usr/bin/env bash
# How many send-message requests per second `wacamp sandbox` answers on this machine: wrk, keep-alive,
# CONNECTIONS connections for SECONDS seconds, with and without the journal.
#   bench/sandbox.sh [CONNECTIONS=32] [SECONDS=10]
set -euo pipefail
. "$(dirname "$0")/lib.sh"
connections=${1:-32}
seconds=${2:-10}

bench_setup wrk=wrk
cat >"$bench_work/send.lua" <<'LUA'
wrk.method = "POST"
wrk.path = "/whatsapp-automation/wa/send-message?apiKey=sandbox-key"
wrk.headers["Content-Type"] = "application/json"
wrk.headers["apiKey"] = "sandbox-key"
wrk.body = '{"userName":"Asha","wa_id":"919812345678","type":"text","message":{"text":"Hi Asha, this is a benchmark message."}}'
LUA

declare -A rps
for mode in "no journal" "journal"; do
    if [ "$mode" = journal ]; then
        bench_start_sandbox journal --journal "$bench_work/journal.jsonl"
    else
        bench_start_sandbox plain
    fi
    rps[$mode]=$(wrk -t2 -c"$connections" -d"${seconds}s" -s "$bench_work/send.lua" "$SANDBOX_URL" |
        awk '/Requests\/sec/ {print $2}')
    bench_stop "$SANDBOX_PID"
    printf 'sandbox, %-11s %s connections: %s requests/s\n' "$mode," "$connections" "${rps[$mode]}"
done
bench_record "sandbox throughput, $connections connections (wrk -t2)" "bench/sandbox.sh $connections $seconds" \
    "${rps[no journal]} requests/s without journal, ${rps[journal]} with" "—" \
    "$(bench_calc "f'{${rps[journal]} / ${rps[no journal]}:.2f}'")× (journal/none)" "—" "—"
