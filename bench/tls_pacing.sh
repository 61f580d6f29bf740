#!/usr/bin/env bash
# Pacing over the real wire's shape: TLS with LATENCY of service time, HTTP/1.1 beside HTTP/2.
# nginx terminates TLS (HTTP/2 by ALPN) and proxies to `wacamp sandbox --latency`, which answers
# each request LATENCY late and journals it. The same campaign (per_second RATE, burst 1,
# concurrency auto, verification on against the benchmark's own CA) runs twice, `service.http:
# "1.1"` then `"2"`. For each: the achieved rate (target ≥ 0.99 × RATE), the most requests started
# in one second, wacamp's CPU per message, and the client connections nginx saw (target for HTTP/2:
# ≤ 8; CPU per message no worse than HTTP/1.1).
#   bench/tls_pacing.sh [N=30000] [RATE=1000] [LATENCY=150ms]
set -euo pipefail
. "$(dirname "$0")/lib.sh"
n=${1:-30000}
rate=${2:-1000}
latency=${3:-150ms}
latency_ms=${latency%ms}
[[ $latency_ms =~ ^[0-9]+$ ]] || bench_die "LATENCY is milliseconds, e.g. 150ms (got $latency)"

bench_setup nginx=nginx-light curl=curl openssl=openssl
bench_start_sandbox sandbox --latency "$latency_ms" --threads 600 --journal "$bench_work/journal.jsonl"
bench_start_nginx_tls proxy "${SANDBOX_URL##*:}"
bench_make_csv "$n" "$bench_work/recipients.csv"

declare -A achieved window cpu_us conns protocols
for http in 1.1 2; do
    dir=$bench_work/h$http
    mkdir -p "$dir"
    bench_write_tls_campaign "$dir/campaign.yaml" "$http" "$bench_work/recipients.csv" "$dir/results.jsonl" \
        "per_second: $rate, burst: 1"
    journal_from=$(($(wc -l <"$bench_work/journal.jsonl") + 1))
    access_from=$(($(wc -l <"$NGINX_TLS_DIR/access.log") + 1))
    bench_time "wacamp-$http" "$WACAMP" run "$dir/campaign.yaml" --yes --no-progress
    [ "$T_RC" = 0 ] || { tail -5 "$bench_work/wacamp-$http.err" >&2; bench_die "wacamp run (http $http) exited $T_RC"; }
    tail -n +"$journal_from" "$bench_work/journal.jsonl" >"$dir/journal.jsonl"
    python3 bench/log_stats.py pacing "$dir/results.jsonl" "$dir/journal.jsonl" >"$dir/pacing.json"
    read -r sent achieved[$http] max_log max_journal < <(python3 - "$dir/pacing.json" <<'PY'
import json, sys
s = json.load(open(sys.argv[1]))
print(s["sent"], f'{s["attempt_rate"]:.1f}', s["max_in_1s_log"], s["max_in_1s_journal"])
PY
)
    [ "$sent" = "$n" ] || bench_die "http $http: the result log records $sent sent, not $n"
    window[$http]="$max_log/$max_journal"
    cpu_us[$http]=$(bench_calc "f'{($T_USER + $T_SYS) * 1e6 / $n:.1f}'")
    sleep 1.5  # nginx flushes its access log every second
    read -r requests connections h1 h2 < <(bench_nginx_wire "$access_from")
    [ "$requests" -ge "$n" ] || bench_die "http $http: nginx logged $requests requests, fewer than $n"
    conns[$http]=$connections
    protocols[$http]="HTTP/1.1 $h1, HTTP/2 $h2"
done

limit=$((rate + 1))
printf 'pacing over TLS: %s recipients, per_second %s, burst 1, sandbox latency %s ms behind nginx (TLS)\n' \
    "$n" "$rate" "$latency_ms"
printf '%-8s %12s %8s %18s %14s %12s  %s\n' "http" "achieved/s" "ratio" "most in 1 s (log/journal)" "CPU µs/msg" "connections" "requests by protocol"
for http in 1.1 2; do
    printf '%-8s %12s %8s %18s %14s %12s  %s\n' "$http" "${achieved[$http]}" \
        "$(bench_calc "f'{${achieved[$http]} / $rate:.3f}'")" "${window[$http]}" "${cpu_us[$http]}" "${conns[$http]}" \
        "${protocols[$http]}"
done
cpu_ratio=$(bench_calc "f'{${cpu_us[2]} / ${cpu_us[1.1]}:.2f}'")
printf 'HTTP/2 CPU per message = %s× HTTP/1.1; connections %s vs %s (target HTTP/2 ≤ 8: %s)\n' "$cpu_ratio" \
    "${conns[2]}" "${conns[1.1]}" "$(bench_met "${conns[2]} <= 8")"
command="bench/tls_pacing.sh $n $rate ${latency_ms}ms"
for http in 1.1 2; do
    bench_record "pacing over TLS (nginx), http $http: $n recipients at per_second $rate, ${latency_ms} ms latency: achieved rate" \
        "$command" "${achieved[$http]}/s" "per_second $rate" "$(bench_calc "f'{${achieved[$http]} / $rate:.3f}'")×" "≥ 0.99×" \
        "$(bench_met "${achieved[$http]} >= 0.99 * $rate")"
    bench_record "pacing over TLS, http $http: most started in 1 s (log/journal); connections; CPU per message" \
        "$command" "${window[$http]}; ${conns[$http]} connections; ${cpu_us[$http]} µs" "≤ $limit" "—" \
        "$([ "$http" = 2 ] && echo "≤ 8 connections" || echo "—")" \
        "$([ "$http" = 2 ] && bench_met "${conns[2]} <= 8" || echo "—")"
done
bench_record "pacing over TLS: HTTP/2 CPU per message over HTTP/1.1's" "$command" "${cpu_us[2]} µs" "${cpu_us[1.1]} µs" \
    "${cpu_ratio}×" "≤ 1.0×" "$(bench_met "$cpu_ratio <= 1.0")"
