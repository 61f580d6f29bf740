#!/usr/bin/env bash
# Throughput over TLS: how many messages/s wacamp sends with nothing holding it back (unlimited
# per_second, 32 in flight, full result log) against nginx answering at once over TLS, with
# `service.http: "1.1"` and `"2"`, beside load generators on the same endpoint in the same run:
# wrk (HTTP/1.1, 32 connections), h2load --h1 (HTTP/1.1, 32 connections) and h2load (HTTP/2, one
# connection, 32 streams). Reported as ratios; no target.
#   bench/tls_throughput.sh [N=100000] [SECONDS=10]
set -euo pipefail
. "$(dirname "$0")/lib.sh"
n=${1:-100000}
seconds=${2:-10}
in_flight=32

bench_setup nginx=nginx-light curl=curl openssl=openssl wrk=wrk h2load=nghttp2-client
bench_start_nginx_tls standin
url=$NGINX_TLS_URL/whatsapp-automation/wa/send-message?apiKey=sandbox-key
printf '%s' "$bench_send_body" >"$bench_work/body.json"
agent="wacamp/$(bench_wacamp_version)"

# wrk: the request wacamp sends (bench_write_send_lua), over TLS, HTTP/1.1.
bench_write_send_lua "$bench_work/send.lua"
wrk -t1 -c"$in_flight" -d"${seconds}s" -s "$bench_work/send.lua" "$NGINX_TLS_URL" >"$bench_work/wrk.out"
grep -q 'Non-2xx' "$bench_work/wrk.out" && { cat "$bench_work/wrk.out" >&2; bench_die "nginx answered wrk with errors"; }
wrk_rps=$(awk '/^Requests\/sec/ {printf "%.0f", $2}' "$bench_work/wrk.out")

# h2load: N requests, one thread; HTTP/1.1 over 32 connections, then HTTP/2 over one with 32 streams.
h2load_rps() {
    local name=$1
    shift
    h2load -t1 -n"$n" -d "$bench_work/body.json" -H "content-type: application/json" -H "apikey: sandbox-key" \
        -H "user-agent: $agent" -H "accept: application/json" "$@" "$url" >"$bench_work/$name.out" 2>&1 ||
        { cat "$bench_work/$name.out" >&2; bench_die "$name failed"; }
    grep -q "succeeded, 0 failed" "$bench_work/$name.out" || grep -q "status codes: $n 2xx" "$bench_work/$name.out" ||
        { cat "$bench_work/$name.out" >&2; bench_die "$name: not every request succeeded"; }
    awk '/^finished in/ {gsub(",", "", $4); printf "%.0f", $4}' "$bench_work/$name.out"
}
h1load_rps=$(h2load_rps h2load-h1 --h1 -c"$in_flight" -m1)
h2load_rps=$(h2load_rps h2load-h2 -c1 -m"$in_flight")

bench_make_csv "$n" "$bench_work/recipients.csv"
bench_unlimited_rate
declare -A mps cpu_us conns
for http in 1.1 2; do
    dir=$bench_work/h$http
    mkdir -p "$dir"
    bench_write_tls_campaign "$dir/campaign.yaml" "$http" "$bench_work/recipients.csv" "$dir/results.jsonl" \
        "per_second: $unlimited_rate, burst: 1, concurrency: $in_flight"
    sleep 1.5
    access_from=$(($(wc -l <"$NGINX_TLS_DIR/access.log") + 1))
    bench_time "wacamp-$http" "$WACAMP" run "$dir/campaign.yaml" --yes --no-progress
    [ "$T_RC" = 0 ] || { tail -5 "$bench_work/wacamp-$http.err" >&2; bench_die "wacamp run (http $http) exited $T_RC"; }
    sent=$(python3 bench/log_stats.py counts "$dir/results.jsonl" | python3 -c 'import json,sys; print(json.load(sys.stdin)["sent"])')
    [ "$sent" = "$n" ] || bench_die "http $http: the result log records $sent sent, not $n"
    mps[$http]=$(bench_calc "f'{$n / $T_WALL:.0f}'")
    cpu_us[$http]=$(bench_calc "f'{($T_USER + $T_SYS) * 1e6 / $n:.1f}'")
    sleep 1.5
    read -r _ conns[$http] _ _ < <(bench_nginx_wire "$access_from")
    rm -f "$dir/results.jsonl"
done

printf 'throughput over TLS: nginx answering at once (one worker), %s in flight\n' "$in_flight"
printf '  wrk -t1 -c%s (HTTP/1.1), %s s          %8s requests/s\n' "$in_flight" "$seconds" "$wrk_rps"
printf '  h2load --h1 -c%s (HTTP/1.1), %s req.   %8s requests/s\n' "$in_flight" "$n" "$h1load_rps"
printf '  h2load -c1 -m%s (HTTP/2), %s req.      %8s requests/s\n' "$in_flight" "$n" "$h2load_rps"
for http in 1.1 2; do
    ref=$([ "$http" = 2 ] && echo "$h2load_rps" || echo "$h1load_rps")
    printf '  wacamp http %-4s %s recipients: %8s messages/s, %s µs CPU/message, %s connections = %s× h2load%s\n' \
        "$http" "$n" "${mps[$http]}" "${cpu_us[$http]}" "${conns[$http]}" "$(bench_calc "f'{${mps[$http]} / $ref:.2f}'")" \
        "$([ "$http" = 1.1 ] && echo ", $(bench_calc "f'{${mps[$http]} / $wrk_rps:.2f}'")× wrk" || true)"
done
command="bench/tls_throughput.sh $n $seconds"
bench_record "throughput over TLS, http 1.1: $n recipients, unlimited rate, $in_flight in flight, nginx" "$command" \
    "${mps[1.1]} messages/s, ${cpu_us[1.1]} µs CPU/message" "wrk -t1 -c$in_flight: $wrk_rps/s; h2load --h1: $h1load_rps/s" \
    "$(bench_calc "f'{${mps[1.1]} / $wrk_rps:.2f}'")× wrk, $(bench_calc "f'{${mps[1.1]} / $h1load_rps:.2f}'")× h2load" "—" "—"
bench_record "throughput over TLS, http 2: $n recipients, unlimited rate, $in_flight in flight, nginx" "$command" \
    "${mps[2]} messages/s, ${cpu_us[2]} µs CPU/message, ${conns[2]} connections" "h2load -c1 -m$in_flight: $h2load_rps/s" \
    "$(bench_calc "f'{${mps[2]} / $h2load_rps:.2f}'")× h2load" "—" "—"
