// The floor of the SQLite ledger's send path: a bare loop of SQLite's C API doing only the writes
// and reads the ledger's rule needs for a send, with the ledger's own table, indexes, pragmas and
// statements (schema 5), and nothing else — no rule, no batching of wacamp's, no log, no HTTP:
//   reserve   per send: the facts read by number (INDEXED BY sends_by_number) and the reservation's
//             insert, in transactions of BATCH (32: a turn of the send loop at 32 in flight; 1: at
//             `burst: 1`, paced, each send a transaction of its own);
//   confirm   per send: the delivery's update by key, in transactions of 1,024 (a record batch).
// Prints CPU µs a send for the reservation alone (a send written once) and for both (as the
// ledger writes it), over N sends into a fresh file in DIR, ROUNDS times, with the numbers in
// order (as bench/lib.sh's lists, and compare.sh's runs, have them) and scattered (every number
// once, in an order unrelated to the row: each index insert lands at a random place).
//   build/bench/bench_ledger_floor [N=200000] [ROUNDS=3] [DIR=/tmp] [BATCH=32]
#include <sqlite3.h>
#include <sys/resource.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <stdexcept>
#include <string>

namespace {

double cpu_seconds() {
    rusage usage{};
    getrusage(RUSAGE_SELF, &usage);
    return static_cast<double>(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) +
           static_cast<double>(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1e6;
}

void check(int rc, sqlite3* db, const char* what) {
    if (rc != SQLITE_OK && rc != SQLITE_DONE && rc != SQLITE_ROW) {
        throw std::runtime_error(std::string(what) + ": " + sqlite3_errmsg(db));
    }
}

void exec(sqlite3* db, const char* sql) {
    check(sqlite3_exec(db, sql, nullptr, nullptr, nullptr), db, sql);
}

sqlite3_stmt* prepare(sqlite3* db, const char* sql) {
    sqlite3_stmt* statement = nullptr;
    check(sqlite3_prepare_v3(db, sql, -1, SQLITE_PREPARE_PERSISTENT, &statement, nullptr), db, sql);
    return statement;
}

void run_once(sqlite3_stmt* statement) {
    while (sqlite3_step(statement) == SQLITE_ROW) {
    }
    sqlite3_reset(statement);
}

enum class Order { in_order, scattered };

std::string number_of(long long i, long long n, Order order) {
    return std::to_string(919800000000LL + (order == Order::in_order ? i : (i * 7919) % n));
}

constexpr const char* k_schema = R"(
PRAGMA journal_mode = WAL;
PRAGMA synchronous = NORMAL;
CREATE TABLE sends (account TEXT NOT NULL, campaign_id INTEGER NOT NULL, csv_row INTEGER NOT NULL,
    wa_id TEXT NOT NULL, at INTEGER NOT NULL, state TEXT NOT NULL CHECK (state IN ('reserved', 'sent')),
    attempt INTEGER NOT NULL DEFAULT 0, PRIMARY KEY (account, campaign_id, csv_row, wa_id)) WITHOUT ROWID;
CREATE INDEX sends_by_number ON sends (account, wa_id, at);
CREATE INDEX sends_by_time ON sends (account, at, wa_id);
)";

// CPU seconds for `n` sends into a fresh ledger at `path`: reserved (and confirmed, `confirm`).
double sends(const std::string& path, long long n, bool confirm, Order order, long long batch) {
    for (const char* suffix : {"", "-wal", "-shm"}) {
        std::remove((path + suffix).c_str());
    }
    sqlite3* db = nullptr;
    check(sqlite3_open(path.c_str(), &db), db, "open");
    exec(db, k_schema);
    sqlite3_stmt* begin = prepare(db, "BEGIN IMMEDIATE");
    sqlite3_stmt* commit = prepare(db, "COMMIT");
    sqlite3_stmt* facts = prepare(db,
                                  "SELECT campaign_id, csv_row, at, state, attempt FROM sends INDEXED BY "
                                  "sends_by_number WHERE account = 'bench' AND wa_id = ?1");
    sqlite3_stmt* insert = prepare(db,
                                   "INSERT INTO sends (account, campaign_id, csv_row, wa_id, at, state, attempt) "
                                   "VALUES ('bench', 1, ?1, ?2, ?3, 'reserved', 1) ON CONFLICT (account, "
                                   "campaign_id, csv_row, wa_id) DO UPDATE SET at = excluded.at, attempt = "
                                   "excluded.attempt WHERE state = 'reserved'");
    sqlite3_stmt* update = prepare(db,
                                   "UPDATE sends SET state = 'sent' WHERE account = 'bench' AND campaign_id = 1 "
                                   "AND csv_row = ?1 AND wa_id = ?2");
    const long long at = 1765000000000LL;
    const double start = cpu_seconds();
    long long confirmed = 0;
    for (long long i = 0; i < n; i += batch) {
        run_once(begin);
        for (long long j = i; j < i + batch && j < n; ++j) {
            const std::string wa_id = number_of(j, n, order);
            sqlite3_bind_text(facts, 1, wa_id.c_str(), -1, SQLITE_TRANSIENT);
            run_once(facts);
            sqlite3_bind_int64(insert, 1, j + 1);
            sqlite3_bind_text(insert, 2, wa_id.c_str(), -1, SQLITE_TRANSIENT);
            sqlite3_bind_int64(insert, 3, at + j);
            run_once(insert);
        }
        run_once(commit);
        if (confirm && (i + batch - confirmed >= 1024 || i + batch >= n)) {
            run_once(begin);
            for (; confirmed < i + batch && confirmed < n; ++confirmed) {
                const std::string wa_id = number_of(confirmed, n, order);
                sqlite3_bind_int64(update, 1, confirmed + 1);
                sqlite3_bind_text(update, 2, wa_id.c_str(), -1, SQLITE_TRANSIENT);
                run_once(update);
            }
            run_once(commit);
        }
    }
    const double spent = cpu_seconds() - start;
    for (sqlite3_stmt* statement : {begin, commit, facts, insert, update}) {
        sqlite3_finalize(statement);
    }
    sqlite3_close(db);
    return spent;
}

}  // namespace

int main(int argc, char** argv) {
    const long long n = argc > 1 ? std::atoll(argv[1]) : 200000;
    const int rounds = argc > 2 ? std::atoi(argv[2]) : 3;
    const std::string dir = argc > 3 ? argv[3] : "/tmp";
    const long long batch = argc > 4 ? std::max(1LL, std::atoll(argv[4])) : 32;
    const std::string path = dir + "/bench-ledger-floor.sqlite";
    try {
        for (int round = 1; round <= rounds; ++round) {
            for (const Order order : {Order::in_order, Order::scattered}) {
                const double reserve = sends(path, n, false, order, batch);
                const double both = sends(path, n, true, order, batch);
                std::printf(
                    "round %d, %lld sends, %lld a transaction, numbers %s: reserve only %.1f µs CPU a send, "
                    "reserve + confirm %.1f µs\n",
                    round, n, batch, order == Order::in_order ? "in order" : "scattered",
                    reserve * 1e6 / static_cast<double>(n), both * 1e6 / static_cast<double>(n));
            }
        }
    } catch (const std::exception& e) {
        std::fprintf(stderr, "bench_ledger_floor: %s\n", e.what());
        return 1;
    }
    for (const char* suffix : {"", "-wal", "-shm"}) {
        std::remove((path + suffix).c_str());
    }
    return 0;
}
