#!/usr/bin/env bash
# A million sends a day, for a month: the account's ledger after DAYS days of PER_DAY sends, on
# both backends (SQLite, and PostgreSQL in a throwaway cluster of its own), and how a run behaves
# on it (docs/ledger.md, "The day's count", "Pruning", "PostgreSQL"). nginx stands in for the service.
#   bench/ledger_month.sh [DAYS=30] [PER_DAY=1000000] [PACED_N=10000]
# For each backend:
#   1. fill: a ledger created empty by wacamp (a run of one recipient), then DAYS × PER_DAY sends
#      of the account `bench` written by SQL: one campaign a day (`daily-007@<its start>`), each
#      to the same PER_DAY-number customer base (bench_make_csv's numbers: every number has DAYS
#      sends), times spread evenly over its day, the newest day ending 10 minutes before now;
#      inserted day after day in key order, as a month of runs would. Timed.
#   2. first run: a campaign of one recipient with `per_day` into the filled ledger (it prunes at
#      the default horizon, 367 days, and counts the day once). Timed; then the sends the prune
#      removed, and the ledger's size: SQLite the file (+ -wal) and each b-tree (dbstat),
#      PostgreSQL pg_total_relation_size of wacamp.sends and each index; bytes a send.
#   3. paced: PACED_N recipients (customers: each has DAYS sends) at `per_second: 1000, burst: 1`
#      with `per_day: 20000000`, into the month-full ledger and into an empty one: messages/s and
#      wacamp's CPU µs a message. Target: the full ledger's rate ≥ 0.9× the empty one's.
# The SQLite fill runs with journal and sync off (then WAL, as wacamp keeps it); the PostgreSQL
# fill with fsync and full_page_writes off and max_wal_size 4GB (reset before anything is
# measured), then VACUUM ANALYZE (so that no autovacuum of the fill runs during a measure).
# Disk: about 7 GB (SQLite) then 8 GB (PostgreSQL, plus its WAL) at 30 × 1M; the SQLite file
# (PREFILL_DIR, default bench/out/ledger-month) is deleted before the PostgreSQL part, the
# cluster with the temp dir at the end.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
days=${1:-30}
per_day=${2:-1000000}
paced_n=${3:-10000}
prefill_dir=${PREFILL_DIR:-$bench_out/ledger-month}
total=$((days * per_day))
command_line="bench/ledger_month.sh $days $per_day $paced_n"

bench_setup nginx=nginx-light sqlite3=sqlite3 pg_ctlcluster=postgresql
bench_start_nginx
mkdir -p "$prefill_dir"
bench_make_csv "$paced_n" "$bench_work/paced.csv"
# One recipient outside the customer base (+9180…), for the runs that open a ledger.
bench_make_csv 1 "$bench_work/base-one.csv"
sed 's/^+919/+918/' "$bench_work/base-one.csv" >"$bench_work/outside.csv"
# The first run's recipient is a customer.
cp "$bench_work/base-one.csv" "$bench_work/customer.csv"
rate="per_second: 1000, burst: 1, per_day: 20000000"

# The days: day d (0 = oldest) starts at start_ms + d × 24 h; the newest ends 10 minutes ago.
end_ms=$(($(date +%s) * 1000 - 600000))
start_ms=$((end_ms - days * 86400000))
campaign_key() {  # campaign_key D: the key of day D's campaign
    printf 'daily-%03d@%s' "$(($1 + 1))" "$(date -u -d "@$(((start_ms + $1 * 86400000) / 1000))" +%Y-%m-%dT%H:%M:%S.000Z)"
}

# one_run NAME CSV LEDGER [MAY_FAIL]: a campaign of CSV at $rate into LEDGER (a path or a URL),
# timed (bench_time's T_*), its log kept as $bench_work/NAME.jsonl; fails the bench unless it exits
# 0, or with MAY_FAIL set, returns 1 (its last error line in FAILED).
one_run() {
    rm -f "$bench_work/$1.jsonl"
    bench_write_campaign "$bench_work/$1.yaml" "$NGINX_URL" "$2" "$bench_work/$1.jsonl" "$rate"
    printf 'account: {name: bench, ledger: "%s"}\n' "$3" >>"$bench_work/$1.yaml"
    bench_time "$1" "$WACAMP" run "$bench_work/$1.yaml" --yes --no-progress
    [ "$T_RC" -eq 0 ] && return 0
    FAILED="exit $T_RC: $(grep 'error' "$bench_work/$1.err" | head -1)"
    [ -n "${4:-}" ] && return 1
    tail -5 "$bench_work/$1.err" >&2
    bench_die "$1 exited $T_RC"
}

# steady NAME: messages/s of NAME's log from its first send's answer to its last (the run's
# start-up — opening, pruning, counting the day — left out).
steady() {
    python3 - "$bench_work/$1.jsonl" <<'PY2'
import datetime, json, sys
times = [json.loads(line)["at"] for line in open(sys.argv[1]) if '"status":"sent"' in line]
t = [datetime.datetime.fromisoformat(x.replace("Z", "+00:00")).timestamp() for x in times]
print(round((len(t) - 1) / (t[-1] - t[0])) if len(t) > 1 and t[-1] > t[0] else 0)
PY2
}

# paced BACKEND KIND LEDGER [LABEL]: the paced run of PACED_N recipients into LEDGER; prints and
# records its rate (over the whole run, and steady: from the log's first send to its last) and
# CPU (KIND: empty, or full: compared with the last empty one); sets MPS, STEADY; returns 1 when
# the run failed (recorded as such).
paced() {
    local ratio=— met=— label="an empty ledger" name="paced-$1-$2" ref=— shown=SQLite
    [ "$1" = sqlite ] || shown=PostgreSQL
    [ "$2" = empty ] || ref=$empty_ref
    [ "$2" = empty ] || label=${4:-"the ledger of $days days × $per_day sends"}
    name=${name// /-}
    if ! one_run "$name" "$bench_work/paced.csv" "$3" may_fail; then
        printf '  %-10s paced 1000/s into %s: FAILED after %s s (%s)\n' "$1" "$label" "$T_WALL" "$FAILED"
        bench_record "$shown ledger: paced run at 1000/s, $paced_n recipients, into $label" "$command_line" \
            "failed after $T_WALL s ($FAILED)" "$ref" "—" "≥ 0.9× the empty ledger" no
        MPS=0 STEADY=0
        return 1
    fi
    MPS=$(bench_calc "round($paced_n / $T_WALL)")
    STEADY=$(steady "$name")
    CPU_US=$(bench_calc "round(($T_USER + $T_SYS) * 1e6 / $paced_n, 1)")
    if [ "$2" != empty ]; then
        ratio=$(bench_calc "f'{$MPS / $empty_mps:.2f}'")
        met=$(bench_met "$MPS >= 0.9 * $empty_mps")
    fi
    printf '  %-10s paced 1000/s into %s: %s messages/s (steady %s/s), %s µs CPU a message (%s s)%s\n' "$1" "$label" \
        "$MPS" "$STEADY" "$CPU_US" "$T_WALL" \
        "$([ "$2" != empty ] && echo ", ${ratio}× the empty ledger's, steady $(bench_calc "f'{$STEADY / $empty_steady:.2f}'")× (target ≥ 0.9×: $met)")"
    bench_record "$shown ledger: paced run at 1000/s, $paced_n recipients, into $label" "$command_line" \
        "$MPS messages/s (steady $STEADY/s), $CPU_US µs CPU a message" "$ref" "$ratio" \
        "$([ "$2" != empty ] && echo "≥ 0.9× the empty ledger" || echo "1000/s")" \
        "$([ "$2" != empty ] && echo "$met" || bench_met "$MPS >= 950")"
    if [ "$2" = empty ]; then
        empty_mps=$MPS empty_steady=$STEADY
        empty_ref="$MPS messages/s (empty ledger)"
    fi
    rm -f "$bench_work/$name.jsonl"
}

# record_figure WHAT RESULT: a figure with no target.
record_figure() {
    bench_record "$1" "$command_line" "$2" "—" "—" "—" "—"
}

echo "A month of sends: $days days × $per_day sends of one account ($total), then runs into it; paced: $paced_n at 1,000/s"
bench_machine
echo "load: $(uptime | sed 's/.*load average: //')"

# ---- SQLite ----
echo "SQLite:"
db=$prefill_dir/month-$days-$per_day.sqlite
rm -f "$db" "$db-wal" "$db-shm"
one_run sqlite-open "$bench_work/outside.csv" "$db"
campaigns=""
for d in $(seq 0 $((days - 1))); do
    campaigns+="${campaigns:+, }($((d + 1)), 'bench', '$(campaign_key "$d")')"
done
start=$(date +%s.%N)
sqlite3 "$db" >/dev/null <<SQL
PRAGMA journal_mode = OFF;
PRAGMA synchronous = OFF;
PRAGMA cache_size = -262144;
BEGIN;
DELETE FROM sends;
DELETE FROM campaigns;
DELETE FROM day_counts;
DELETE FROM folds;
INSERT INTO campaigns (id, account, name) VALUES $campaigns;
WITH RECURSIVE i(k) AS (SELECT 0 UNION ALL SELECT k + 1 FROM i WHERE k < $total - 1)
INSERT INTO sends (account, campaign_id, csv_row, wa_id, at, state, attempt)
    SELECT 'bench', k / $per_day + 1, k % $per_day + 1, CAST(919000000000 + k % $per_day AS TEXT),
           $start_ms + (k / $per_day) * 86400000 + (k % $per_day) * 86400000 / $per_day, 'sent', 1
    FROM i;
COMMIT;
SQL
sqlite3 "$db" "PRAGMA journal_mode = WAL" >/dev/null
fill=$(bench_calc "round($(date +%s.%N) - $start, 1)")
printf '  %-10s fill of %s sends: %s s (%s sends/s)\n' sqlite "$total" "$fill" "$(bench_calc "round($total / $fill)")"
record_figure "SQLite ledger: fill of $days × $per_day sends by SQL (journal and sync off)" "$fill s"

one_run sqlite-first "$bench_work/customer.csv" "$db"
first=$T_WALL
left=$(sqlite3 "$db" "SELECT count(*) FROM sends")
removed=$((total + 1 - left))
bytes=$(($(stat -c %s "$db") + $(stat -c %s "$db-wal" 2>/dev/null || echo 0)))
printf '  %-10s first run (one recipient: prune at 367 days, the day counted once): %s s; the prune removed %s sends\n' \
    sqlite "$first" "$removed"
printf '  %-10s size: %s bytes (%.2f GB), %s bytes a send\n' sqlite "$bytes" "$(bench_calc "$bytes / 1e9")" \
    "$(bench_calc "round($bytes / $left)")"
record_figure "SQLite ledger: first run into $days × $per_day sends (one recipient; prune at the default 367 days, day counted)" \
    "$first s, $removed sends pruned"
record_figure "SQLite ledger: size after $days × $per_day sends" \
    "$bytes bytes, $(bench_calc "round($bytes / $left)") bytes a send"
while IFS='|' read -r name size; do
    printf '  %-10s   %-16s %12s bytes, %4s bytes a send\n' sqlite "$name" "$size" "$(bench_calc "round($size / $left)")"
    record_figure "SQLite ledger: $name b-tree after $days × $per_day sends" \
        "$size bytes, $(bench_calc "round($size / $left)") bytes a send"
done < <(sqlite3 "$db" "SELECT name, sum(pgsize) FROM dbstat WHERE name IN ('sends', 'sends_by_number', 'sends_by_time') GROUP BY name")

empty=$bench_work/empty.sqlite
one_run sqlite-empty-open "$bench_work/outside.csv" "$empty"
paced sqlite empty "$empty"
paced sqlite full "$db" || true
sqlite_summary="$fill|$first|$bytes|$left|$empty_mps|$MPS|$(bench_calc "f'{$MPS / $empty_mps:.2f}'")"
rm -f "$db" "$db-wal" "$db-shm" "$empty" "$empty-wal" "$empty-shm"

# ---- PostgreSQL ----
echo "PostgreSQL:"
bench_start_pg
echo "  $("$pg_bin/postgres" --version)"
sql() {  # sql URL STATEMENT…: the answer, unaligned
    "$pg_bin/psql" -X -q -t -A -v ON_ERROR_STOP=1 -d "$1" -c "$2"
}
admin=postgresql://wacamp@127.0.0.1:$pg_port/postgres
"$pg_bin/createdb" -h 127.0.0.1 -p "$pg_port" -U wacamp month
"$pg_bin/createdb" -h 127.0.0.1 -p "$pg_port" -U wacamp empty
url=postgresql://wacamp@127.0.0.1:$pg_port/month
one_run pg-open "$bench_work/outside.csv" "$url"
for setting in "fsync = off" "full_page_writes = off" "max_wal_size = '4GB'"; do
    sql "$admin" "ALTER SYSTEM SET $setting" >/dev/null
done
sql "$admin" "SELECT pg_reload_conf()" >/dev/null
sql "$url" "DELETE FROM wacamp.sends; DELETE FROM wacamp.day_counts; DELETE FROM wacamp.folds" >/dev/null
start=$(date +%s.%N)
for d in $(seq 0 $((days - 1))); do
    sql "$url" "INSERT INTO wacamp.sends (account, campaign, csv_row, wa_id, at, state, attempt)
                SELECT 'bench', '$(campaign_key "$d")', i, (919000000000 + i - 1)::text,
                       $start_ms + $d::bigint * 86400000 + (i - 1) * 86400000 / $per_day, 'sent', 1
                  FROM generate_series(1, $per_day::bigint) i" >/dev/null
done
insert=$(bench_calc "round($(date +%s.%N) - $start, 1)")
start=$(date +%s.%N)
sql "$url" "VACUUM ANALYZE wacamp.sends" >/dev/null
vacuum=$(bench_calc "round($(date +%s.%N) - $start, 1)")
for setting in fsync full_page_writes max_wal_size; do
    sql "$admin" "ALTER SYSTEM RESET $setting" >/dev/null
done
sql "$admin" "SELECT pg_reload_conf()" >/dev/null
sql "$admin" "CHECKPOINT" >/dev/null
printf '  %-10s fill of %s sends: %s s INSERT (%s sends/s) + %s s VACUUM ANALYZE\n' postgresql "$total" "$insert" \
    "$(bench_calc "round($total / $insert)")" "$vacuum"
record_figure "PostgreSQL ledger: fill of $days × $per_day sends by SQL (fsync off), then VACUUM ANALYZE" \
    "$insert s + $vacuum s"

one_run pg-first "$bench_work/customer.csv" "$url"
pg_first=$T_WALL
pg_left=$(sql "$url" "SELECT count(*) FROM wacamp.sends")
pg_removed=$((total + 1 - pg_left))
printf '  %-10s first run (one recipient: prune at 367 days, the day counted once): %s s; the prune removed %s sends\n' \
    postgresql "$pg_first" "$pg_removed"
record_figure "PostgreSQL ledger: first run into $days × $per_day sends (one recipient; prune at the default 367 days, day counted)" \
    "$pg_first s, $pg_removed sends pruned"
pg_bytes=0
while IFS='|' read -r name size; do
    [ "$name" = total ] && pg_bytes=$size
    printf '  %-10s   %-16s %12s bytes, %4s bytes a send\n' postgresql "$name" "$size" \
        "$(bench_calc "round($size / $pg_left)")"
    record_figure "PostgreSQL ledger: $name after $days × $per_day sends" \
        "$size bytes, $(bench_calc "round($size / $pg_left)") bytes a send"
done < <(sql "$url" "SELECT 'total', pg_total_relation_size('wacamp.sends')
                     UNION ALL SELECT 'heap', pg_relation_size('wacamp.sends')
                     UNION ALL SELECT c.relname, pg_relation_size(c.oid) FROM pg_index i
                          JOIN pg_class c ON c.oid = i.indexrelid WHERE i.indrelid = 'wacamp.sends'::regclass
                     UNION ALL SELECT 'database', pg_database_size('month')")
printf '  %-10s size: %s bytes (%.2f GB), %s bytes a send (wacamp.sends with its indexes and TOAST)\n' postgresql \
    "$pg_bytes" "$(bench_calc "$pg_bytes / 1e9")" "$(bench_calc "round($pg_bytes / $pg_left)")"

empty_url=postgresql://wacamp@127.0.0.1:$pg_port/empty
one_run pg-empty-open "$bench_work/outside.csv" "$empty_url"
paced postgresql empty "$empty_url"
# wait_idle URL: waits until no other session of URL's database runs a statement (a statement
# whose client gave up and dropped its connection runs on until its end, holding its locks).
wait_idle() {
    local _
    for _ in $(seq 600); do
        [ "$(sql "$1" "SELECT count(*) FROM pg_stat_activity WHERE datname = current_database()
                        AND pid <> pg_backend_pid() AND state <> 'idle'")" = 0 ] && return 0
        sleep 1
    done
    bench_die "the server is still busy with a statement of an earlier run"
}
pg_empty=$empty_mps cleared_note=""
if paced postgresql full "$url"; then
    pg_full="$pg_empty|$MPS|$(bench_calc "f'{$MPS / $empty_mps:.2f}'")"
else
    pg_full="$pg_empty|failed|—"
    wait_idle "$url"
    # The prune's first statement (PgLedger::prune: ask_day with the horizon 367 days back, its
    # `crossed` of every number whose latest send lies between that and the stored horizon) timed
    # alone, without wacamp's 30 s limit.
    horizon=$(($(date +%s) * 1000 - 367 * 86400000 - 1))
    start=$(date +%s.%N)
    sql "$url" "SELECT d.horizon, d.numbers, CASE WHEN d.horizon IS NULL THEN
        (SELECT count(DISTINCT s.wa_id) FROM wacamp.sends s WHERE s.account = 'bench' AND s.at > $horizon) ELSE
        (SELECT count(DISTINCT s.wa_id) FROM wacamp.sends s WHERE s.account = 'bench'
         AND s.at > least($horizon, d.horizon) AND s.at <= greatest($horizon, d.horizon) AND
         (SELECT max(t.at) FROM wacamp.sends t WHERE t.account = 'bench' AND t.wa_id = s.wa_id)
         <= greatest($horizon, d.horizon)) END
        FROM (SELECT 1) AS one LEFT JOIN wacamp.day_counts d ON d.account = 'bench'" >/dev/null
    prune_read=$(bench_calc "round($(date +%s.%N) - $start, 1)")
    printf '  %-10s the prune'"'"'s first statement alone (day count stored, horizon 367 days back): %s s\n' postgresql \
        "$prune_read"
    record_figure "PostgreSQL ledger: the prune's day-count read over $days × $per_day sends, alone (psql)" "$prune_read s"
    # The same run once the stored day count is gone (as after an upgrade): the prune's read then
    # counts the distinct numbers of every send instead (the first run's case).
    sql "$url" "DELETE FROM wacamp.day_counts" >/dev/null
    if paced postgresql cleared "$url" "the ledger of $days days × $per_day sends, its day count cleared first"; then
        cleared_note="  postgresql, its day count cleared before the paced run: $MPS messages/s ($(bench_calc "f'{$MPS / $empty_mps:.2f}'")×), steady $STEADY/s"
    fi
fi
pg_summary="$insert+$vacuum|$pg_first|$pg_bytes|$pg_left|$pg_full"

echo
echo "Summary ($days days × $per_day sends; paced $paced_n at 1,000/s, messages/s over the whole run;"
echo "no retention setting: every run prunes at the default 367 days):"
printf '  %-10s %12s %8s %12s %6s %8s %8s %6s\n' backend "fill s" "first s" bytes "B/send" "empty" full ratio
for row in "sqlite|$sqlite_summary" "postgresql|$pg_summary"; do
    IFS='|' read -r backend f r b l e m ratio <<<"$row"
    printf '  %-10s %12s %8s %12s %6s %8s %8s %6s\n' "$backend" "$f" "$r" "$b" "$(bench_calc "round($b / $l)")" "$e" "$m" \
        "$ratio"
done
[ -z "$cleared_note" ] || echo "$cleared_note"
