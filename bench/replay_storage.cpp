// The replay's storage measured: today's (results::replay: per-row records in a util::DiskArray,
// the numbers sent and the list joined by external sorts) against a scratch SQLite database doing
// the same work (each record upserted by row, the numbers sent and the list's numbers in tables,
// joined through an index), over the same log and the same list, then every row read back in
// order as a run does.
//   bench_replay_storage today|sqlite|parse LOG ROWS   (parse: the log read, nothing kept)
// LOG from bench/synth_log.py ROWS (row i's number is 9198 and i in 8 digits); the list is
// generated here with the same numbers. Prints the mode, the seconds, and the counts (which must
// agree between the modes); peak RSS is measured outside (/usr/bin/time -f %M).
#include <sqlite3.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <string>

#include <fmt/format.h>

#include "results/log_reader.hpp"
#include "results/replay.hpp"
#include "results/wa_id_set.hpp"

namespace {

struct Counts {
    std::int64_t rows = 0;
    std::int64_t sent = 0;
    std::int64_t failed = 0;
    std::int64_t unknown = 0;
    std::int64_t number_sent = 0;  // rows whose number a `sent` result names
};

std::string number_of(std::int64_t row) {
    return fmt::format("9198{:08d}", row);
}

[[noreturn]] void die(const std::string& why) {
    std::fprintf(stderr, "bench_replay_storage: %s\n", why.c_str());
    std::exit(1);
}

Counts today(const std::string& log, std::int64_t n) {
    std::int64_t next = 1;
    results::ReplayOptions options;
    options.rows = [&](results::ListedRow& out) -> util::Result<bool> {
        if (next > n) {
            return false;
        }
        out.row = next;
        out.wa_id = number_of(next);
        out.user_id.clear();
        ++next;
        return true;
    };
    auto state = results::replay(log, options);
    if (!state) {
        die(state.error().message);
    }
    Counts c;
    for (std::int64_t row = 1; row <= n; ++row) {
        auto rec = state->record(row);
        if (!rec) {
            die(rec.error().message);
        }
        ++c.rows;
        if (rec->state.in_flight() || rec->state.status == results::Status::unknown) {
            ++c.unknown;
        } else if (rec->state.status == results::Status::sent) {
            ++c.sent;
        } else if (rec->state.status == results::Status::failed) {
            ++c.failed;
        }
        if (rec->marked(results::RowRecord::k_number_sent)) {
            ++c.number_sent;
        }
    }
    return c;
}

// Reads every record of `log` into `each`, in order; dies when the log cannot be read.
template <typename Each>
void for_each_record(const std::string& log, Each each) {
    auto reader = results::LogReader::open(log);
    if (!reader) {
        die(reader.error().message);
    }
    results::Record record;
    for (;;) {
        auto more = reader->next(record);
        if (!more) {
            die(more.error().message);
        }
        if (!*more) {
            return;
        }
        each(record);
    }
}

// The log read and parsed, nothing kept: what both storages share.
Counts parse_only(const std::string& log) {
    Counts c;
    for_each_record(log, [&](const results::Record& record) {
        c.rows += std::holds_alternative<results::ResultRecord>(record) ? 1 : 0;
    });
    return c;
}

class Db {
public:
    explicit Db(const std::string& path) {
        if (sqlite3_open(path.c_str(), &m_db) != SQLITE_OK) {
            die("sqlite3_open");
        }
    }
    ~Db() { sqlite3_close(m_db); }
    void exec(const char* sql) {
        char* error = nullptr;
        if (sqlite3_exec(m_db, sql, nullptr, nullptr, &error) != SQLITE_OK) {
            die(fmt::format("{}: {}", sql, error ? error : "?"));
        }
    }
    sqlite3_stmt* prepare(const char* sql) {
        sqlite3_stmt* s = nullptr;
        if (sqlite3_prepare_v2(m_db, sql, -1, &s, nullptr) != SQLITE_OK) {
            die(fmt::format("{}: {}", sql, sqlite3_errmsg(m_db)));
        }
        return s;
    }
    static void step(sqlite3_stmt* s) {
        if (sqlite3_step(s) != SQLITE_DONE) {
            die("sqlite3_step");
        }
        sqlite3_reset(s);
    }

private:
    sqlite3* m_db = nullptr;
};

Counts sqlite(const std::string& log, std::int64_t n) {
    const auto path = std::filesystem::temp_directory_path() / fmt::format("replay-{}.sqlite", ::getpid());
    std::filesystem::remove(path);
    Counts c;
    {
        Db db(path.string());
        // A scratch database: no journal, no sync, a bounded page cache (memory stays flat).
        db.exec(
            "PRAGMA journal_mode=OFF; PRAGMA synchronous=OFF; PRAGMA locking_mode=EXCLUSIVE; "
            "PRAGMA cache_size=-8192; PRAGMA temp_store=FILE;");
        db.exec(
            "CREATE TABLE rows(row INTEGER PRIMARY KEY, status INT, cause INT, attempts INT, flags INT, "
            "number INT, marks INT NOT NULL DEFAULT 0);"
            "CREATE TABLE sent(number INT);"
            "CREATE TABLE list(row INTEGER PRIMARY KEY, number INT);");
        db.exec("BEGIN");
        sqlite3_stmt* attempt = db.prepare(
            "INSERT INTO rows(row, status, flags, attempts, number) VALUES(?1, 5, 2, ?2, ?3) "
            "ON CONFLICT(row) DO UPDATE SET status = 5, flags = flags | 2, "
            "attempts = max(attempts, excluded.attempts), number = excluded.number");
        sqlite3_stmt* result = db.prepare(
            "INSERT INTO rows(row, status, cause, flags, attempts, number) VALUES(?1, ?2, ?3, ?4, ?5, ?6) "
            "ON CONFLICT(row) DO UPDATE SET status = excluded.status, cause = excluded.cause, "
            "flags = (flags & ~2) | excluded.flags, attempts = excluded.attempts, number = excluded.number");
        sqlite3_stmt* sent = db.prepare("INSERT INTO sent(number) VALUES(?1)");
        for_each_record(log, [&](const results::Record& record) {
            if (const auto* a = std::get_if<results::AttemptRecord>(&record)) {
                sqlite3_bind_int64(attempt, 1, a->row);
                sqlite3_bind_int(attempt, 2, a->attempt);
                sqlite3_bind_int64(attempt, 3, static_cast<std::int64_t>(results::wa_id_code(a->wa_id).value_or(0)));
                Db::step(attempt);
            } else if (const auto* r = std::get_if<results::ResultRecord>(&record)) {
                const auto code = static_cast<std::int64_t>(results::wa_id_code(r->wa_id).value_or(0));
                const bool is_sent = r->status == results::Status::sent;
                sqlite3_bind_int64(result, 1, r->row);
                sqlite3_bind_int(result, 2, static_cast<int>(r->status));
                sqlite3_bind_int(result, 3, static_cast<int>(r->cause));
                sqlite3_bind_int(result, 4, is_sent ? 1 | 4 : 1);
                sqlite3_bind_int(result, 5, r->attempts);
                sqlite3_bind_int64(result, 6, code);
                Db::step(result);
                if (is_sent) {
                    sqlite3_bind_int64(sent, 1, code);
                    Db::step(sent);
                }
            }
        });
        sqlite3_finalize(attempt);
        sqlite3_finalize(result);
        sqlite3_finalize(sent);
        sqlite3_stmt* listed = db.prepare("INSERT INTO list(row, number) VALUES(?1, ?2)");
        for (std::int64_t row = 1; row <= n; ++row) {
            sqlite3_bind_int64(listed, 1, row);
            sqlite3_bind_int64(listed, 2, static_cast<std::int64_t>(*results::wa_id_code(number_of(row))));
            Db::step(listed);
        }
        sqlite3_finalize(listed);
        // The join: every listed row whose number some `sent` result names.
        db.exec(
            "CREATE INDEX sent_number ON sent(number);"
            "INSERT INTO rows(row, marks) SELECT list.row, 1 FROM list "
            "WHERE EXISTS (SELECT 1 FROM sent WHERE sent.number = list.number) "
            "ON CONFLICT(row) DO UPDATE SET marks = marks | 1;");
        db.exec("COMMIT");
        // Read back in row order, as the sending pass does.
        sqlite3_stmt* all = db.prepare("SELECT status, flags, marks FROM rows ORDER BY row");
        int rc = 0;
        while ((rc = sqlite3_step(all)) == SQLITE_ROW) {
            ++c.rows;
            const auto status = static_cast<results::Status>(sqlite3_column_int(all, 0));
            const int flags = sqlite3_column_int(all, 1);
            if ((flags & 2) != 0 || status == results::Status::unknown) {
                ++c.unknown;
            } else if (status == results::Status::sent) {
                ++c.sent;
            } else if (status == results::Status::failed) {
                ++c.failed;
            }
            if ((sqlite3_column_int(all, 2) & 1) != 0) {
                ++c.number_sent;
            }
        }
        if (rc != SQLITE_DONE) {
            die("reading back");
        }
        sqlite3_finalize(all);
    }
    std::filesystem::remove(path);
    return c;
}

}  // namespace

int main(int argc, char** argv) {
    if (argc != 4) {
        std::fprintf(stderr, "usage: bench_replay_storage today|sqlite|parse LOG ROWS\n");
        return 2;
    }
    const std::string mode = argv[1];
    const std::string log = argv[2];
    const std::int64_t n = std::stoll(argv[3]);
    const auto start = std::chrono::steady_clock::now();
    const Counts c = mode == "today"    ? today(log, n)
                     : mode == "sqlite" ? sqlite(log, n)
                     : mode == "parse"  ? parse_only(log)
                                        : (die("no such mode"), Counts{});
    const std::chrono::duration<double> took = std::chrono::steady_clock::now() - start;
    std::printf("%s %.3f s rows=%lld sent=%lld failed=%lld unknown=%lld number_sent=%lld\n", mode.c_str(), took.count(),
                static_cast<long long>(c.rows), static_cast<long long>(c.sent), static_cast<long long>(c.failed),
                static_cast<long long>(c.unknown), static_cast<long long>(c.number_sent));
    return 0;
}
