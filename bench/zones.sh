#!/usr/bin/env bash
# The window in each recipient's zone (schedule.window.timezone: recipient) at scale: a list of N
# rows, every other one in a zone whose window (00:00-12:00 local) is open now and the rest in a
# zone where it is 18:00, closed for six hours. The run (nginx stand-in, unlimited rate, 32 in
# flight, ledger off) sends the open half while the other half is set aside on disk; once the
# log holds N/2 results the run is interrupted (SIGINT) and its peak RSS read. Target: peak RSS at
# the largest size within 1.1× of the smallest (memory flat in the rows waiting).
#   bench/zones.sh [SIZE…]        (default: 100000 1000000)
set -euo pipefail
. "$(dirname "$0")/lib.sh"
sizes=("$@")
[ ${#sizes[@]} -gt 0 ] || sizes=(100000 1000000)
bench_setup nginx=nginx-light
bench_start_nginx

# The Etc/GMT zone whose clock reads HOUR now (POSIX signs: Etc/GMT-5 is UTC+5).
zone_at_hour() {
    python3 - "$1" <<'PY'
import sys, time
hour = int(sys.argv[1])
offset = (hour - time.gmtime().tm_hour) % 24
if offset > 12:
    offset -= 24
print("Etc/GMT" if offset == 0 else (f"Etc/GMT-{offset}" if offset > 0 else f"Etc/GMT+{-offset}"))
PY
}
open_zone=$(zone_at_hour 6)
closed_zone=$(zone_at_hour 18)

declare -A peak seconds
for n in "${sizes[@]}"; do
    dir=$bench_work/zones-$n
    mkdir -p "$dir"
    python3 - "$n" "$open_zone" "$closed_zone" >"$dir/recipients.csv" <<'PY'
import sys
n, open_zone, closed_zone = int(sys.argv[1]), sys.argv[2], sys.argv[3]
out = sys.stdout
out.write("phone,name,tz\n")
for start in range(0, n, 100_000):
    out.write("".join(f"+91{9000000000 + i},Person {i},{open_zone if i % 2 == 0 else closed_zone}\n"
                      for i in range(start, min(n, start + 100_000))))
PY
    cat >"$dir/campaign.yaml" <<YAML
name: bench-zones
service: {base_url: "$NGINX_URL", api_key: sandbox-key, timeout: 30s}
recipients: {file: "$dir/recipients.csv", columns: {wa_id: phone, user_name: name, time_zone: tz}, default_country: IN}
message: {type: text, text: "Hi {{name}}, this is a benchmark message."}
rate: {per_second: unlimited, concurrency: 32}
account: {ledger: off}
schedule:
  window: {timezone: recipient, fallback_timezone: UTC, from: "00:00", to: "12:00"}
results: "$dir/results.jsonl"
YAML
    start=$(date +%s.%N)
    XDG_STATE_HOME=$dir/state /usr/bin/time -f '%M' -o "$dir/rss" \
        "$WACAMP" run "$dir/campaign.yaml" --yes --no-progress >"$dir/out" 2>"$dir/err" &
    pid=$!
    half=$((n / 2))
    until [ "$(grep -c '"event":"result"' "$dir/results.jsonl" 2>/dev/null || echo 0)" -ge "$half" ]; do
        kill -0 "$pid" 2>/dev/null || bench_die "the run of $n rows ended early: $(tail -3 "$dir/err")"
        sleep 0.5
    done
    seconds[$n]=$(python3 -c "import time; print(f'{time.time() - $start:.1f}')")
    # /usr/bin/time's child is wacamp: interrupt it, not time.
    pkill -INT -P "$pid" -f "$WACAMP" || true
    wait "$pid" || true
    grep -q 'were waiting for their recipients' "$dir/out" || bench_die "the summary of $n rows names no row waiting"
    peak[$n]=$(( $(tail -1 "$dir/rss") / 1024 ))
    printf '%9s rows: %s s to send the open half, peak RSS %s MiB, %s set aside when stopped\n' "$n" \
        "${seconds[$n]}" "${peak[$n]}" "$(grep -oE '[0-9]+ row\(s\) were waiting' "$dir/out" | grep -oE '^[0-9]+')"
    rm -rf "$dir"
done
first=${sizes[0]}
last=${sizes[${#sizes[@]}-1]}
ratio=$(bench_calc "f'{${peak[$last]} / ${peak[$first]}:.2f}'")
printf 'peak RSS %s → %s rows: %s×; target ≤ 1.1×: %s\n' "$first" "$last" "$ratio" "$(bench_met "$ratio <= 1.1")"
bench_record "window per recipient: half the rows set aside" "bench/zones.sh ${sizes[*]}" \
    "${peak[$first]} → ${peak[$last]} MiB" "" "${ratio}×" "≤ 1.1× peak RSS" "$(bench_met "$ratio <= 1.1")"
