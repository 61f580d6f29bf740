#include "account/sqlite.hpp"

#include <sqlite3.h>

namespace account::sqlite {

namespace {

[[noreturn]] void fail(sqlite3* db, int code) {
    throw Failure(db != nullptr ? sqlite3_errmsg(db) : sqlite3_errstr(code),
                  (db != nullptr ? sqlite3_errcode(db) : code) & 0xff);
}

}  // namespace

bool Failure::busy() const {
    return code == SQLITE_BUSY || code == SQLITE_LOCKED;
}

Database::Database(const std::string& path, Mode mode) {
    int flags = SQLITE_OPEN_NOFOLLOW | SQLITE_OPEN_NOMUTEX;
    if (mode == Mode::read_only) {
        flags |= SQLITE_OPEN_READONLY;
    } else {
        flags |= SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE;
    }
    if (mode == Mode::memory) {
        flags |= SQLITE_OPEN_MEMORY;
    }
    const int code = sqlite3_open_v2(mode == Mode::memory ? ":memory:" : path.c_str(), &m_db, flags, nullptr);
    if (code != SQLITE_OK) {
        const std::string reason = m_db != nullptr ? sqlite3_errmsg(m_db) : sqlite3_errstr(code);
        sqlite3_close(m_db);
        m_db = nullptr;
        throw Failure(reason);
    }
    sqlite3_extended_result_codes(m_db, 1);
}

Database::~Database() {
    // Statements in use live in narrower scopes and are given back first.
    for (const auto& [sql, stmt] : m_idle) {
        sqlite3_finalize(stmt);
    }
    sqlite3_close(m_db);
}

sqlite3_stmt* Database::take_idle(std::string_view sql) {
    const auto it = m_idle.find(sql);
    if (it == m_idle.end()) {
        return nullptr;
    }
    sqlite3_stmt* stmt = it->second;
    m_idle.erase(it);
    return stmt;
}

void Database::give_back(sqlite3_stmt* stmt) {
    sqlite3_reset(stmt);
    sqlite3_clear_bindings(stmt);
    // Two in use at once with one text: the second given back is finalised.
    if (!m_idle.try_emplace(std::string_view(sqlite3_sql(stmt)), stmt).second) {
        sqlite3_finalize(stmt);
    }
}

void Database::exec(const char* sql) {
    if (sqlite3_exec(m_db, sql, nullptr, nullptr, nullptr) != SQLITE_OK) {
        fail(m_db, SQLITE_ERROR);
    }
}

void Database::busy_timeout(int ms) {
    sqlite3_busy_timeout(m_db, ms);
}

std::int64_t Database::changes() const {
    return sqlite3_changes64(m_db);
}

Statement::Statement(Database& db, const char* sql) : m_db(db), m_stmt(db.take_idle(sql)) {
    if (m_stmt != nullptr) {
        return;
    }
    const int code = sqlite3_prepare_v3(db.handle(), sql, -1, SQLITE_PREPARE_PERSISTENT, &m_stmt, nullptr);
    if (code != SQLITE_OK) {
        fail(db.handle(), code);
    }
}

Statement::~Statement() {
    if (m_stmt != nullptr) {
        m_db.give_back(m_stmt);
    }
}

Statement& Statement::bind(int index, std::int64_t value) {
    if (sqlite3_bind_int64(m_stmt, index, value) != SQLITE_OK) {
        fail(m_db.handle(), SQLITE_ERROR);
    }
    return *this;
}

Statement& Statement::bind(int index, std::string_view value) {
    const int code = sqlite3_bind_text64(m_stmt, index, value.data(), value.size(), SQLITE_TRANSIENT, SQLITE_UTF8);
    if (code != SQLITE_OK) {
        fail(m_db.handle(), code);
    }
    return *this;
}

bool Statement::step() {
    const int code = sqlite3_step(m_stmt);
    if (code == SQLITE_ROW) {
        return true;
    }
    if (code == SQLITE_DONE) {
        return false;
    }
    const std::string reason = sqlite3_errmsg(m_db.handle());
    sqlite3_reset(m_stmt);
    throw Failure(reason, code & 0xff);
}

void Statement::run() {
    while (step()) {
    }
    reset();
}

void Statement::reset() {
    sqlite3_reset(m_stmt);
    sqlite3_clear_bindings(m_stmt);
}

void Statement::rewind() {
    sqlite3_reset(m_stmt);
}

std::int64_t Statement::integer(int column) const {
    return sqlite3_column_int64(m_stmt, column);
}

std::string Statement::text(int column) const {
    const auto* p = reinterpret_cast<const char*>(sqlite3_column_text(m_stmt, column));
    return p != nullptr ? std::string(p, static_cast<std::size_t>(sqlite3_column_bytes(m_stmt, column))) : "";
}

bool Statement::is_null(int column) const {
    return sqlite3_column_type(m_stmt, column) == SQLITE_NULL;
}

Transaction::Transaction(Database& db, Kind kind) : m_db(db) {
    Statement(db, kind == Kind::write ? "BEGIN IMMEDIATE" : "BEGIN").run();
}

Transaction::~Transaction() {
    if (m_open) {
        sqlite3_exec(m_db.handle(), "ROLLBACK", nullptr, nullptr, nullptr);
    }
}

void Transaction::commit() {
    Statement(m_db, "COMMIT").run();
    m_open = false;
}

}  // namespace account::sqlite
