#!/usr/bin/env bash
# The account's ledger in PostgreSQL beside SQLite and none (a throwaway cluster of its own, the
# nginx stand-in answering at once):
#   1. N recipients at the unlimited rate, 32 in flight, with `ledger: off`, a fresh SQLite ledger
#      and a fresh PostgreSQL ledger: messages/s, wacamp's CPU µs a message, and for PostgreSQL
#      the server's transactions (pg_stat_database.xact_commit) and recipients a transaction — a
#      reservation batch, an answer batch and a prune are one transaction of two round trips;
#      WACAMP_REF's binary beside, when set.
#   2. Two runners of one account at once on one PostgreSQL ledger, each its own campaign over the
#      same N numbers, `per_recipient: {max: 1, per: 7d}` and `per_day: N`: their aggregate
#      messages/s and CPU, and the checks that no number was sent twice and exactly N were sent (a
#      `per_day` below N would pause both runners until room opens, a day later).
#   3. PACED_N recipients at 1,000/s (`burst: 1`) with `per_day`, into an empty PostgreSQL ledger
#      and into one holding DAY sends in the last 24 h (written by SQL): achieved rate and CPU µs a
#      message, each build (WACAMP_REF too), the count of the full day after its sends were written
#      timed apart.
#   bench/ledger_pg.sh [N=20000] [PACED_N=10000] [DAY=10000000]     (env: WACAMP_REF)
set -euo pipefail
. "$(dirname "$0")/lib.sh"
n=${1:-20000}
paced_n=${2:-10000}
day=${3:-10000000}
cap=$n  # reached exactly: every number once between the two runners, none refused by it

bench_setup nginx=nginx-light pg_ctlcluster=postgresql
bench_start_nginx
bench_start_pg
bench_unlimited_rate
bench_make_csv "$n" "$bench_work/recipients.csv"
bench_make_csv "$paced_n" "$bench_work/paced.csv"
db_count=0

# new_db: creates a fresh database; sets url to its URL.
new_db() {
    db_count=$((db_count + 1))
    "$pg_bin/createdb" -h 127.0.0.1 -p "$pg_port" -U wacamp "bench$db_count"
    url="postgresql://wacamp@127.0.0.1:$pg_port/bench$db_count"
}

# sql URL STATEMENT: the first value of STATEMENT's answer.
sql() {
    "$pg_bin/psql" -X -q -t -A -d "$1" -c "$2"
}

# commits URL: the transactions committed in URL's database so far (a session's are counted
# when it ends: wacamp's has).
commits() {
    sleep 1
    sql "$1" "SELECT xact_commit FROM pg_stat_database WHERE datname = '${1##*/}'"
}

# campaign NAME CSV RATE ACCOUNT: writes $bench_work/NAME.yaml with `account:` mapping ACCOUNT.
campaign() {
    bench_write_campaign "$bench_work/$1.yaml" "$NGINX_URL" "$2" "$bench_work/$1.jsonl" "$3"
    echo "account: {$4}" >>"$bench_work/$1.yaml"
}

# sent NAME: the numbers NAME's log says were sent, one a line.
sent() {
    python3 - "$bench_work/$1.jsonl" <<'PY'
import json, sys
for line in open(sys.argv[1]):
    record = json.loads(line)
    if record.get("event") == "result" and record.get("status") == "sent":
        print(record["wa_id"])
PY
}

builds=(work)
declare -A bin=([work]=$WACAMP)
if [ -n "${WACAMP_REF:-}" ]; then
    builds+=(ref)
    bin[ref]=$WACAMP_REF
fi

echo "The ledger in PostgreSQL, $n recipients unlimited (32 in flight, nginx), $paced_n paced at 1,000/s:"
bench_machine
unlimited="per_second: $unlimited_rate, burst: 1, concurrency: 32"
for which in "${builds[@]}"; do
    for mode in off sqlite pg; do
        name=$which-$mode
        case $mode in
        off) account='ledger: off' ;;
        sqlite) account="name: bench, ledger: \"$bench_work/$name.sqlite\"" ;;
        pg) new_db && account="name: bench, ledger: \"$url\"" ;;
        esac
        campaign "$name" "$bench_work/recipients.csv" "$unlimited" "$account"
        before=0
        [ "$mode" = pg ] && before=$(commits "$url")
        bench_time "$name" "${bin[$which]}" run "$bench_work/$name.yaml" --yes --no-progress
        [ "$T_RC" -eq 0 ] || { tail -5 "$bench_work/$name.err" >&2; bench_die "$name exited $T_RC"; }
        extra=""
        if [ "$mode" = pg ]; then
            after=$(commits "$url")
            extra=$(bench_calc "f'   {$after - $before} transactions, {$n / max(1, $after - $before):.1f} recipients a transaction'")
        fi
        printf '  %-4s %-6s %8s msg/s   %6s µs CPU a message%s\n' "$which" "$mode" \
            "$(bench_calc "round($n / $T_WALL)")" "$(bench_calc "round(($T_USER + $T_SYS) * 1e6 / $n, 1)")" "$extra"
    done
done

echo "Two runners of one account at once (PostgreSQL, per_recipient 1 a week, per_day $cap):"
new_db
limits="$unlimited, per_recipient: {max: 1, per: 7d}, per_day: $cap"
for runner in a b; do
    campaign "two-$runner" "$bench_work/recipients.csv" "$limits" "name: bench, ledger: \"$url\""
    sed -i "s/^name: bench$/name: bench-$runner/" "$bench_work/two-$runner.yaml"
done
# The schema first, so that both runners time their sends, not its creation.
sql "$url" "SELECT 1" >/dev/null
start=$(date +%s.%N)
/usr/bin/time -f '%U %S' -o "$bench_work/two-a.time" "$WACAMP" run "$bench_work/two-a.yaml" --yes --no-progress \
    >"$bench_work/two-a.out" 2>"$bench_work/two-a.err" &
first=$!
/usr/bin/time -f '%U %S' -o "$bench_work/two-b.time" "$WACAMP" run "$bench_work/two-b.yaml" --yes --no-progress \
    >"$bench_work/two-b.out" 2>"$bench_work/two-b.err" || true
wait "$first" || true
end=$(date +%s.%N)
total=$( (sent two-a; sent two-b) | wc -l)
distinct=$( (sent two-a; sent two-b) | sort -u | wc -l)
cpu=$(cat "$bench_work/two-a.time" "$bench_work/two-b.time" | awk '{s += $1 + $2} END {print s}')
printf '  %s sent (%s distinct numbers; per_day %s: %s), %s msg/s together, %s µs CPU a message (both runners, 2 cores)\n' \
    "$total" "$distinct" "$cap" "$(bench_met "$total == $distinct == $cap")" \
    "$(bench_calc "round($total / ($end - $start))")" "$(bench_calc "round($cpu * 1e6 / max(1, $total), 1)")"

echo "Paced at 1,000/s with per_day, into an empty ledger and one holding $day sends of the last 24 h:"
for which in "${builds[@]}"; do
    for size in 0 "$day"; do
        new_db
        name=paced-$which-$size
        # The schema (a one-recipient run of its own), then the day's sends by SQL, then a second
        # one-recipient run that counts the day once (timed apart).
        one_run() {
            sed "s/^+919/+91$2/" <(head -2 "$bench_work/paced.csv") >"$bench_work/$1.csv"
            campaign "$1" "$bench_work/$1.csv" "per_second: 1000, burst: 1, per_day: $((day * 2 + paced_n))" \
                "name: bench, ledger: \"$url\""
            bench_time "$1" "${bin[$which]}" run "$bench_work/$1.yaml" --yes --no-progress
            [ "$T_RC" -eq 0 ] || { tail -5 "$bench_work/$1.err" >&2; bench_die "$1 exited $T_RC"; }
        }
        one_run "$name-open" 8
        if [ "$size" -gt 0 ]; then
            sql "$url" "INSERT INTO wacamp.sends (account, campaign, csv_row, wa_id, at, state)
                        SELECT 'bench', 'filler', i, (800000000000 + i)::text,
                               (extract(epoch FROM now()) * 1000)::bigint - 86000000 + (i % 85000000), 'sent'
                          FROM generate_series(1, $size) i; ANALYZE wacamp.sends;" >/dev/null
            sql "$url" "DELETE FROM wacamp.day_counts" >/dev/null  # counted afresh by the next call, as after an upgrade
            one_run "$name-count" 7
            printf '  %-4s the first call after %s sends were written: %s s (the day counted once)\n' "$which" "$size" \
                "$T_WALL"
        fi
        campaign "$name" "$bench_work/paced.csv" "per_second: 1000, burst: 1, per_day: $((day * 2 + paced_n))" \
            "name: bench, ledger: \"$url\""
        bench_time "$name" "${bin[$which]}" run "$bench_work/$name.yaml" --yes --no-progress
        [ "$T_RC" -eq 0 ] || { tail -5 "$bench_work/$name.err" >&2; bench_die "$name exited $T_RC"; }
        printf '  %-4s %9s sends in the day: %s msg/s, %s µs CPU a message\n' "$which" "$size" \
            "$(bench_calc "round($paced_n / $T_WALL)")" "$(bench_calc "round(($T_USER + $T_SYS) * 1e6 / $paced_n, 1)")"
        "$pg_bin/dropdb" -h 127.0.0.1 -p "$pg_port" -U wacamp "${url##*/}"
    done
done
