#!/usr/bin/env bash
# rate.per_day against a day of a million and of ten million sends (docs/ledger.md "The day's
# count"): runs into a SQLite ledger pre-filled with SIZE sends of the account in the last 24 h,
# with `per_day` set (above what the day holds, so every send is counted and none refused).
#   bench/ledger_day.sh [PACED_N=20000] [FREE_N=100000] [SIZES="1000000 10000000"]
# - paced: PACED_N recipients at `per_second: 1000` into an empty ledger and into each SIZE:
#   achieved messages/s and CPU µs per message. Target: 1,000/s held at every SIZE. Each
#   pre-filled copy is first opened by a run of one recipient (timed: the migration and the
#   day's first count), so that the runs measured meet the ledger as its wacamp keeps it.
# - unlimited: FREE_N recipients, unlimited rate, 32 in flight, into an empty ledger and into
#   the largest SIZE. Target: ≥ 0.9× the empty ledger's messages/s.
# - size: the ledger's bytes per send, of each pre-filled file and of the empty ledger's after
#   its unlimited run.
# Environment: WACAMP_REF=BINARY measures an older wacamp beside, on copies of the same ledgers
# (its runs stop after REF_TIMEOUT=180 s: the achieved rate is what its log holds by then);
# PREFILL_DIR (default bench/out/ledger-day) keeps the pre-filled ledgers between runs (10M
# sends: about 2.3 GB, a few minutes to write). nginx stands in for the service.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
paced_n=${1:-20000}
free_n=${2:-100000}
sizes=${3:-"1000000 10000000"}
ref_timeout=${REF_TIMEOUT:-180}
prefill_dir=${PREFILL_DIR:-$bench_out/ledger-day}

bench_setup nginx=nginx-light sqlite3=sqlite3
bench_start_nginx
bench_unlimited_rate
mkdir -p "$prefill_dir"

# prefill N FILE: a ledger at schema version 2 (as wacamp wrote it before the running count; a
# newer one migrates it when it opens it) holding N sends of the account `bench`, one number
# each, their times spread evenly over the 24 h before now less 10 minutes (so that the oldest
# age out during the runs, as in a steady day). Inserted in key order: appends, no sort.
prefill() {
    local n=$1 file=$2 end_ms
    end_ms=$(($(date +%s) * 1000))
    rm -f "$file" "$file-wal" "$file-shm"
    sqlite3 "$file" <<SQL
PRAGMA journal_mode = OFF;
PRAGMA synchronous = OFF;
PRAGMA cache_size = -262144;
CREATE TABLE suppressions (account TEXT NOT NULL, wa_id TEXT NOT NULL, reason TEXT NOT NULL,
    since INTEGER NOT NULL, source TEXT NOT NULL, PRIMARY KEY (account, wa_id)) WITHOUT ROWID;
CREATE TABLE sends (account TEXT NOT NULL, campaign TEXT NOT NULL, csv_row INTEGER NOT NULL,
    wa_id TEXT NOT NULL, at INTEGER NOT NULL, state TEXT NOT NULL CHECK (state IN ('reserved', 'sent')),
    PRIMARY KEY (account, campaign, csv_row, wa_id)) WITHOUT ROWID;
CREATE INDEX sends_by_number ON sends (account, wa_id, at);
CREATE INDEX sends_by_time ON sends (account, at, wa_id);
CREATE TABLE undeliverable (account TEXT NOT NULL, wa_id TEXT NOT NULL, answers INTEGER NOT NULL,
    last_at INTEGER NOT NULL, PRIMARY KEY (account, wa_id)) WITHOUT ROWID;
CREATE TABLE marketing_holds (account TEXT NOT NULL, wa_id TEXT NOT NULL, until INTEGER NOT NULL,
    PRIMARY KEY (account, wa_id)) WITHOUT ROWID;
CREATE TABLE folds (account TEXT NOT NULL, campaign TEXT NOT NULL, covered INTEGER NOT NULL,
    PRIMARY KEY (account, campaign)) WITHOUT ROWID;
WITH RECURSIVE i(k) AS (SELECT 0 UNION ALL SELECT k + 1 FROM i WHERE k < $n - 1)
INSERT INTO sends (account, campaign, csv_row, wa_id, at, state)
    SELECT 'bench', printf('prefill-%03d@2026-11-27T00:00:00.000Z', k / 100000), k % 100000 + 1,
           CAST(918000000000 + k AS TEXT), $end_ms - 86400000 + 600000 + k * (86400000 - 600000) / $n, 'sent'
    FROM i;
PRAGMA user_version = 2;
SQL
    sqlite3 "$file" "PRAGMA journal_mode = WAL" >/dev/null
}

# ledger_for BINARY SIZE: prints the path of a fresh copy of the ledger pre-filled with SIZE sends
# (0: none), as BINARY keeps it: a run of one recipient with `per_day` first (a wacamp with the
# running count migrates the file and counts its day once, timed on stderr; an older one only
# reads it), so that the runs measured meet a ledger in its steady state.
ledger_for() {
    local binary=$1 size=$2 copy=$bench_work/ledger-$2.sqlite
    rm -f "$copy" "$copy-wal" "$copy-shm"
    if [ "$size" != 0 ]; then
        if [ ! -f "$prefill_dir/prefill-$size.sqlite" ]; then
            echo "pre-filling a ledger with $size sends …" >&2
            prefill "$size" "$prefill_dir/prefill-$size.sqlite.part"
            mv "$prefill_dir/prefill-$size.sqlite.part" "$prefill_dir/prefill-$size.sqlite"
        fi
        cp "$prefill_dir/prefill-$size.sqlite" "$copy"
        bench_make_csv 1 "$bench_work/one.csv"
        bench_write_campaign "$bench_work/warm.yaml" "$NGINX_URL" "$bench_work/one.csv" "$bench_work/warm.jsonl" \
            "per_second: 1000, per_day: 20000000"
        printf 'account: {name: bench, ledger: "%s"}\n' "$copy" >>"$bench_work/warm.yaml"
        bench_time warm "$binary" run "$bench_work/warm.yaml" --yes --no-progress
        [ "$T_RC" = 0 ] || { cat "$bench_work/warm.err" >&2; bench_die "the warm-up run exited $T_RC"; }
        printf '        (first run into the copy of %s sends, one recipient: %s s)\n' "$size" "$T_WALL" >&2
        rm -f "$bench_work/warm.jsonl"
    fi
    echo "$copy"
}

# run_into BINARY NAME N RATE LEDGER: a campaign of N recipients at RATE (the inside of the rate
# mapping) into LEDGER; sets SENT (the log's sent rows), MPS and CPU_US (per sent message).
run_into() {
    local binary=$1 name=$2 n=$3 rate=$4 ledger=$5 limit=100000
    [ "$binary" = "$WACAMP" ] || limit=$ref_timeout
    [ -f "$bench_work/r$n.csv" ] || bench_make_csv "$n" "$bench_work/r$n.csv"
    bench_write_campaign "$bench_work/$name.yaml" "$NGINX_URL" "$bench_work/r$n.csv" "$bench_work/$name.jsonl" \
        "$rate, per_day: 20000000"
    printf 'account: {name: bench, ledger: "%s"}\n' "$ledger" >>"$bench_work/$name.yaml"
    bench_time "$name" timeout -s INT "$limit" "$binary" run "$bench_work/$name.yaml" --yes --no-progress
    SENT=$(grep -c '"status":"sent"' "$bench_work/$name.jsonl" || true)
    [ "$SENT" -gt 0 ] || { cat "$bench_work/$name.err" >&2; bench_die "$name sent nothing (exit $T_RC)"; }
    MPS=$(bench_calc "round($SENT / $T_WALL)")
    CPU_US=$(bench_calc "round(($T_USER + $T_SYS) * 1e6 / $SENT, 1)")
    rm -f "$bench_work/$name.jsonl"
}

binaries=("$WACAMP")
[ -z "${WACAMP_REF:-}" ] || binaries+=("$WACAMP_REF")
largest=${sizes##* }
for binary in "${binaries[@]}"; do
    who=working
    [ "$binary" = "$WACAMP" ] || who=REF
    for size in 0 $sizes; do
        ledger=$(ledger_for "$binary" "$size")
        run_into "$binary" "paced-$who-$size" "$paced_n" "per_second: 1000, burst: 1" "$ledger"
        printf '%-7s paced 1000/s, %8s sends in the day: %5s messages/s, %6s µs CPU a message (%s of %s sent in %s s)\n' \
            "$who" "$size" "$MPS" "$CPU_US" "$SENT" "$paced_n" "$T_WALL"
        bench_record "$who: paced run at 1000/s, $paced_n recipients, ledger holding $size sends in the day" \
            "bench/ledger_day.sh $paced_n $free_n \"$sizes\"" "$MPS messages/s, $CPU_US µs CPU a message" \
            "—" "—" "1000/s" "$(bench_met "$MPS >= 950")"
        if [ "$size" = 0 ] || [ "$size" = "$largest" ]; then
            ledger=$(ledger_for "$binary" "$size")
            run_into "$binary" "free-$who-$size" "$free_n" "per_second: $unlimited_rate, burst: 1, concurrency: 32" "$ledger"
            printf '%-7s unlimited,  %8s sends in the day: %5s messages/s, %6s µs CPU a message (%s of %s sent in %s s)\n' \
                "$who" "$size" "$MPS" "$CPU_US" "$SENT" "$free_n" "$T_WALL"
            [ "$size" = 0 ] && empty_mps=$MPS
            if [ "$size" = 0 ]; then
                bytes=$(($(stat -c %s "$ledger") + $(stat -c %s "$ledger-wal" 2>/dev/null || echo 0)))
                printf '%-7s ledger after %s sends into an empty one: %s bytes a send\n' "$who" "$SENT" \
                    "$(bench_calc "round($bytes / $SENT)")"
            else
                ratio=$(bench_calc "f'{$MPS / $empty_mps:.2f}'")
                printf '%-7s unlimited into %s sends ÷ into none: %s× (target ≥ 0.9×: %s)\n' "$who" "$size" "$ratio" \
                    "$(bench_met "$MPS >= 0.9 * $empty_mps")"
            fi
        fi
        rm -f "$ledger" "$ledger-wal" "$ledger-shm"
    done
done
for size in $sizes; do
    printf 'pre-filled ledger of %s sends (schema 2): %s bytes a send\n' "$size" \
        "$(bench_calc "round($(stat -c %s "$prefill_dir/prefill-$size.sqlite") / $size)")"
done
