#!/usr/bin/env bash
# Throughput ceiling: how many messages/s wacamp sends when nothing holds it back (unlimited
# per_second, 32 in flight, full result log) against nginx answering at once, beside wrk sending
# the same request over 32 keep-alive connections in the same run. Target: wacamp ≥ 0.5× wrk.
#   bench/throughput.sh [N=200000] [SECONDS=10]
set -euo pipefail
. "$(dirname "$0")/lib.sh"
n=${1:-200000}
seconds=${2:-10}
connections=32

bench_setup wrk=wrk nginx=nginx-light cc=gcc
[ -f /usr/include/x86_64-linux-gnu/curl/curl.h ] || [ -f /usr/include/curl/curl.h ] || bash scripts/setup.sh libcurl4-openssl-dev
cc -O2 -o "$bench_work/curl_client" bench/curl_client.c -lcurl
bench_start_nginx

# wrk sends exactly what wacamp sends (bench_write_send_lua).
bench_write_send_lua "$bench_work/send.lua"
# One wrk thread: one event loop, like wacamp's single libcurl multi loop, on the core that the
# one nginx worker leaves free; a second thread would only contend with nginx for its core.
wrk -t1 -c"$connections" -d"${seconds}s" -s "$bench_work/send.lua" "$NGINX_URL" >"$bench_work/wrk.out"
wrk_rps=$(awk '/^Requests\/sec/ {print $2}' "$bench_work/wrk.out")
if grep -q 'Non-2xx' "$bench_work/wrk.out"; then
    cat "$bench_work/wrk.out" >&2
    bench_die "nginx answered wrk with errors"
fi

# libcurl alone (bench/curl_client.c): the same requests, 32 reused handles, nothing else.
read -r _ curl_ok curl_wall curl_rps < <("$bench_work/curl_client" "$NGINX_URL" "$n" "$connections") ||
    bench_die "the libcurl client failed"
[ "$curl_ok" = "$n" ] || bench_die "the libcurl client had $curl_ok answers of 200, not $n"
# wacamp's transport alone (bench/transport_ceiling.cpp): service::CurlTransport, nothing else.
transport_rps=
if transport=$(bench_program bench_transport_ceiling) && [ -n "$transport" ]; then
    read -r _ transport_ok _ transport_rps < <("$transport" "$NGINX_URL" "$n" "$connections") ||
        bench_die "bench_transport_ceiling failed"
    [ "$transport_ok" = "$n" ] || bench_die "bench_transport_ceiling had $transport_ok answers of 200, not $n"
fi

bench_make_csv "$n" "$bench_work/recipients.csv"
bench_unlimited_rate
rate="per_second: $unlimited_rate, burst: 1, concurrency: $connections"
bench_write_campaign "$bench_work/campaign.yaml" "$NGINX_URL" "$bench_work/recipients.csv" "$bench_work/results.jsonl" "$rate"
bench_time wacamp "$WACAMP" run "$bench_work/campaign.yaml" --yes --no-progress
[ "$T_RC" = 0 ] || { cat "$bench_work/wacamp.out" "$bench_work/wacamp.err" >&2; bench_die "wacamp run exited $T_RC"; }
sent=$(python3 bench/log_stats.py counts "$bench_work/results.jsonl" | python3 -c 'import json,sys; print(json.load(sys.stdin)["sent"])')
[ "$sent" = "$n" ] || bench_die "the result log records $sent sent, not $n"

mps=$(bench_calc "f'{$n / $T_WALL:.0f}'")
ratio=$(bench_calc "f'{$mps / $wrk_rps:.2f}'")
cpu=$(bench_calc "f'{$T_USER + $T_SYS:.2f}'")
met=$(bench_met "$ratio >= 0.5")
printf 'wrk -t1 -c%s, %s s, nginx stand-in     %s requests/s\n' "$connections" "$seconds" "$wrk_rps"
printf 'libcurl alone (bench/curl_client.c), %s requests, %s in flight: %s requests/s (%s s) = %s× wrk\n' \
    "$n" "$connections" "$curl_rps" "$curl_wall" "$(bench_calc "f'{$curl_rps / $wrk_rps:.2f}'")"
if [ -n "$transport_rps" ]; then
    printf "wacamp's transport alone (bench_transport_ceiling), same: %s requests/s = %s× wrk\n" \
        "$transport_rps" "$(bench_calc "f'{$transport_rps / $wrk_rps:.2f}'")"
fi
printf 'wacamp, %s recipients (%s)\n' "$n" "$rate"
printf '  wall %s s, CPU %s s user+sys, peak RSS %.1f MiB, %s sent in the log\n' "$T_WALL" "$cpu" "$(bench_calc "$T_RSS / 1024")" "$sent"
printf '  %s messages/s = %s× wrk (target ≥ 0.5×: %s), %s× libcurl alone\n' "$mps" "$ratio" "$met" \
    "$(bench_calc "f'{$mps / $curl_rps:.2f}'")"
bench_record "throughput ceiling: $n recipients, unlimited rate, 32 in flight, nginx stand-in" \
    "bench/throughput.sh $n $seconds" "$mps messages/s" "wrk -t1 -c32: $wrk_rps requests/s" \
    "${ratio}×" "≥ 0.5× wrk" "$met"
bench_record "throughput of libcurl alone (bench/curl_client.c): $n requests, 32 reused handles, nginx" \
    "bench/throughput.sh $n $seconds" "$curl_rps requests/s" "wrk -t1 -c32: $wrk_rps requests/s" \
    "$(bench_calc "f'{$curl_rps / $wrk_rps:.2f}'")× wrk; wacamp $(bench_calc "f'{$mps / $curl_rps:.2f}'")× it" "—" "—"
if [ -n "$transport_rps" ]; then
    bench_record "throughput of wacamp's transport alone (bench_transport_ceiling: CurlTransport, no CSV, no log): $n requests, 32 in flight, nginx" \
        "bench/throughput.sh $n $seconds" "$transport_rps requests/s" "wrk -t1 -c32: $wrk_rps requests/s" \
        "$(bench_calc "f'{$transport_rps / $wrk_rps:.2f}'")× wrk; wacamp $(bench_calc "f'{$mps / $transport_rps:.2f}'")× it" "—" "—"
fi
