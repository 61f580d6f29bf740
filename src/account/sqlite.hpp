#pragma once
// Thin RAII over the sqlite3 C API for the SQLite ledger: a connection, prepared statements and
// a transaction guard. Failures throw sqlite::Failure, which the ledger's public calls catch
// and return as util::Error; nothing outside account/ sees either.

#include <cstdint>
#include <stdexcept>
#include <string>
#include <string_view>
#include <unordered_map>

struct sqlite3;
struct sqlite3_stmt;

namespace account::sqlite {

struct Failure : std::runtime_error {
    explicit Failure(const std::string& reason, int result_code = 0) : std::runtime_error(reason), code(result_code) {}
    // Whether another connection held a lock the call needed past the busy timeout (or where
    // SQLite does not wait for it, as when a new file is switched to WAL).
    bool busy() const;
    int code;  // SQLite's primary result code; 0 when none
};

class Database {
public:
    // Opens `path` (SQLITE_OPEN_NOFOLLOW: a symbolic link is refused) for reading and writing
    // (creating it when missing), read-only, or a fresh database in memory (`path` unused).
    // Throws Failure with SQLite's reason.
    enum class Mode { read_write, read_only, memory };
    Database(const std::string& path, Mode mode);
    ~Database();
    Database(const Database&) = delete;
    Database& operator=(const Database&) = delete;

    // Runs `sql` (one or more statements without parameters).
    void exec(const char* sql);
    // Makes a call wait up to `ms` for another connection's lock before failing as busy.
    void busy_timeout(int ms);
    // Returns the number of rows the last statement changed.
    std::int64_t changes() const;
    sqlite3* handle() const { return m_db; }

private:
    friend class Statement;
    // Statements are prepared once per connection and kept, idle, for the next Statement of the
    // same text: compiling one costs more than running it (a few thousand instructions against
    // a few hundred for a lookup), and the send path runs the same dozen a turn. Keyed by the
    // text (a view into the statement's own copy, sqlite3_sql), not by the pointer passed in.
    sqlite3_stmt* take_idle(std::string_view sql);
    void give_back(sqlite3_stmt* stmt);

    sqlite3* m_db = nullptr;
    std::unordered_map<std::string_view, sqlite3_stmt*> m_idle;
};

// A prepared statement, taken from the connection's idle ones when one of the same text is
// there; given back, reset and unbound, when it goes out of scope.
class Statement {
public:
    Statement(Database& db, const char* sql);
    ~Statement();
    Statement(const Statement&) = delete;
    Statement& operator=(const Statement&) = delete;

    // Binds the parameters in order from 1; returns *this for chaining.
    Statement& bind(int index, std::int64_t value);
    Statement& bind(int index, std::string_view value);
    // Steps once: true while a row is there to read, false when done. Throws on failure.
    bool step();
    // Steps until done (for statements that return no rows), then resets for the next use.
    void run();
    // Resets for the next use, keeping nothing bound.
    void reset();
    // Resets for the next use, keeping what is bound: a lookup repeated for many keys binds
    // the parameters that stay the same once.
    void rewind();

    std::int64_t integer(int column) const;
    std::string text(int column) const;
    bool is_null(int column) const;

private:
    Database& m_db;
    sqlite3_stmt* m_stmt = nullptr;
};

// BEGIN IMMEDIATE (the write lock at once, waiting up to the busy timeout) or a deferred BEGIN
// for reads; rolled back unless commit() was called.
class Transaction {
public:
    enum class Kind { write, read };
    Transaction(Database& db, Kind kind);
    ~Transaction();
    Transaction(const Transaction&) = delete;
    Transaction& operator=(const Transaction&) = delete;
    void commit();

private:
    Database& m_db;
    bool m_open = true;
};

}  // namespace account::sqlite
