#include "ledger_probe.hpp"

#include <stdexcept>

#include "harness.hpp"

namespace e2e {

namespace {

sqlite3* open_db(const std::filesystem::path& path, int flags) {
    sqlite3* db = nullptr;
    if (sqlite3_open_v2(path.c_str(), &db, flags, nullptr) != SQLITE_OK) {
        std::string why = db != nullptr ? sqlite3_errmsg(db) : "out of memory";
        sqlite3_close(db);
        throw std::runtime_error("cannot open ledger " + path.string() + ": " + why);
    }
    sqlite3_busy_timeout(db, 10'000);
    return db;
}

// Runs `sql` with the account bound to ?1, calling `row` for each result row.
template <typename F>
void query(sqlite3* db, const char* sql, const std::string& account, F&& row) {
    sqlite3_stmt* stmt = nullptr;
    if (sqlite3_prepare_v2(db, sql, -1, &stmt, nullptr) != SQLITE_OK) {
        throw std::runtime_error(std::string("ledger query: ") + sqlite3_errmsg(db));
    }
    sqlite3_bind_text(stmt, 1, account.c_str(), -1, SQLITE_TRANSIENT);
    int rc = SQLITE_ROW;
    while ((rc = sqlite3_step(stmt)) == SQLITE_ROW) {
        row(stmt);
    }
    sqlite3_finalize(stmt);
    if (rc != SQLITE_DONE) {
        throw std::runtime_error(std::string("ledger query: ") + sqlite3_errmsg(db));
    }
}

std::string text(sqlite3_stmt* stmt, int column) {
    const auto* p = sqlite3_column_text(stmt, column);
    return p != nullptr ? reinterpret_cast<const char*>(p) : "";
}

}  // namespace

LedgerProbe::LedgerProbe(const std::filesystem::path& path, std::string account)
    : m_path(path), m_account(std::move(account)), m_db(open_db(path, SQLITE_OPEN_READONLY)) {}

LedgerProbe::~LedgerProbe() {
    sqlite3_close(m_db);
}

std::map<std::string, ProbedSuppression> LedgerProbe::suppressions() const {
    std::map<std::string, ProbedSuppression> out;
    query(m_db, "SELECT wa_id, reason, source FROM suppressions WHERE account = ?1", m_account, [&](sqlite3_stmt* s) {
        out[text(s, 0)] = {text(s, 1), text(s, 2)};
    });
    return out;
}

std::vector<ProbedSend> LedgerProbe::sends() const {
    std::vector<ProbedSend> out;
    query(m_db,
          // Sent: written so, or reserved by a run whose mark (runs.answered_before) passed it.
          "SELECT c.name, s.csv_row, s.wa_id, CASE WHEN s.state = 'sent' OR s.at < coalesce(r.answered_before, 0) "
          "THEN 'sent' ELSE 'reserved' END FROM sends s JOIN campaigns c ON c.id = s.campaign_id "
          "LEFT JOIN runs r ON r.id = s.run WHERE s.account = ?1 ORDER BY c.name, s.csv_row",
          m_account, [&](sqlite3_stmt* s) {
              out.push_back({text(s, 0), sqlite3_column_int64(s, 1), text(s, 2), text(s, 3)});
          });
    return out;
}

std::string LedgerProbe::bytes() const {
    return read_file(m_path) + "\n--wal--\n" + read_file(m_path.string() + "-wal");
}

LedgerLock::LedgerLock(const std::filesystem::path& path) : m_db(open_db(path, SQLITE_OPEN_READWRITE)) {
    char* error = nullptr;
    if (sqlite3_exec(m_db, "BEGIN EXCLUSIVE", nullptr, nullptr, &error) != SQLITE_OK) {
        std::string why = error != nullptr ? error : "?";
        sqlite3_free(error);
        sqlite3_close(m_db);
        throw std::runtime_error("cannot lock ledger " + path.string() + ": " + why);
    }
}

LedgerLock::~LedgerLock() {
    sqlite3_exec(m_db, "ROLLBACK", nullptr, nullptr, nullptr);
    sqlite3_close(m_db);
}

}  // namespace e2e
