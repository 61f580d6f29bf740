#!/usr/bin/env bash
# Memory with the shared backends: one `wacamp run` with the ledger in PostgreSQL (a throwaway
# cluster of its own) and the pace in Redis (a redis-server of its own), rate.per_recipient and
# rate.per_day on, against the sandbox; its peak RSS at SMALL and at LARGE recipients, and the
# ratio (memory must not grow with recipients). Then the SMALL campaign once more with the local
# backends (a SQLite ledger, the runner's own pace) for the wall time the shared ones cost.
#   bench/shared_memory.sh [SMALL=10000] [LARGE=100000] [RATE=5000]
set -euo pipefail
. "$(dirname "$0")/lib.sh"
small=${1:-10000}
large=${2:-100000}
rate=${3:-5000}
limits=${LIMITS-"per_day: 100000000, per_recipient: {max: 1, per: 7d}"}  # the account limits the ledger checks

bench_setup redis-server=redis-server redis-cli=redis-tools pg_ctlcluster=postgresql
redis_port=$(bench_free_port)
mkdir -p "$bench_work/redis"
redis-server --port "$redis_port" --bind 127.0.0.1 --save "" --appendonly no --dir "$bench_work/redis" \
    >"$bench_work/redis.out" 2>&1 &
bench_track $!

bench_start_pg
for _ in $(seq 100); do
    [ "$(redis-cli -p "$redis_port" ping 2>/dev/null)" = PONG ] && break
    sleep 0.1
done

bench_start_sandbox sandbox --threads 512 --latency 100  # a keep-alive connection holds a thread
declare -A rss wall
# one_run NAME N ACCOUNT: runs N recipients with the campaign's `account:` mapping ACCOUNT.
one_run() {
    local name=$1 n=$2 account=$3
    [ -f "$bench_work/r$n.csv" ] || bench_make_csv "$n" "$bench_work/r$n.csv"
    bench_write_campaign "$bench_work/$name.yaml" "$SANDBOX_URL" "$bench_work/r$n.csv" "$bench_work/$name.jsonl" \
        "per_second: $rate, burst: 50${limits:+, $limits}"
    echo "account: {$account}" >>"$bench_work/$name.yaml"
    bench_time "$name" "$WACAMP" run "$bench_work/$name.yaml" --yes --no-progress
    [ "$T_RC" -eq 0 ] || { cat "$bench_work/$name.err" >&2; bench_die "$name exited $T_RC"; }
    rss[$name]=$T_RSS
    wall[$name]=$T_WALL
    printf '%s, %s recipients: peak RSS %s KiB, %s s wall, %s s CPU\n' "$name" "$n" "$T_RSS" "$T_WALL" \
        "$(bench_calc "round($T_USER + $T_SYS, 2)")"
}
for n in "$small" "$large"; do
    "$pg_bin/createdb" -h 127.0.0.1 -p "$pg_port" -U wacamp "bench$n"
    one_run "shared$n" "$n" \
        "name: bench-shared, ledger: \"postgresql://wacamp@127.0.0.1:$pg_port/bench$n\", rate_store: \"redis://127.0.0.1:$redis_port/0\""
done
one_run "local$small" "$small" "name: bench-local, ledger: \"$bench_work/local.db\""
ratio=$(bench_calc "f'{${rss[shared$large]} / ${rss[shared$small]}:.3f}'")
printf 'peak RSS %s → %s recipients: %s× (flat: ≤ 1.10×: %s)\n' "$small" "$large" "$ratio" \
    "$(bench_met "${rss[shared$large]} / ${rss[shared$small]} <= 1.10")"
printf 'wall time, %s recipients, shared / local backends: %s×\n' "$small" \
    "$(bench_calc "f'{${wall[shared$small]} / ${wall[local$small]}:.2f}'")"
