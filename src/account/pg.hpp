#pragma once
// Thin RAII over libpq for the PostgreSQL ledger: a connection, a statement's result, and the
// text form of array parameters. Failures throw pg::Failure, which the ledger's public calls
// catch and return as util::Error; nothing outside account/ sees either.

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

struct pg_conn;
struct pg_result;

namespace account::pg {

struct Failure : std::runtime_error {
    using std::runtime_error::runtime_error;
};

// One statement's rows (text format).
class Rows {
public:
    explicit Rows(pg_result* result);
    int size() const;
    bool null(int row, int column) const;
    std::string text(int row, int column) const;
    // The text, as a view into the rows (valid while they are).
    std::string_view view(int row, int column) const;
    std::int64_t integer(int row, int column) const;
    // The result itself, for libpq's status and error calls.
    pg_result* get() const { return m_result.get(); }

private:
    std::unique_ptr<pg_result, void (*)(pg_result*)> m_result;
};

// A parameter: its text, or SQL NULL.
using Param = std::optional<std::string>;

// One statement of a pipeline, with its parameters ($1, $2, …).
struct Statement {
    std::string sql;
    std::vector<Param> params;
};

class Connection {
public:
    // Connects with `keywords`/`values` (libpq's PQconnectdbParams, expand_dbname on). Throws
    // Failure with libpq's reason.
    // A server that sends nothing for `silence` while a statement runs (a stopped or stuck
    // server, a lock held elsewhere) fails that statement, and the connection counts as lost.
    Connection(const std::vector<std::string>& keywords, const std::vector<std::string>& values,
               std::chrono::milliseconds silence);
    ~Connection();
    Connection(const Connection&) = delete;
    Connection& operator=(const Connection&) = delete;

    // Runs `sql` (one or more statements without parameters); returns the last one's rows.
    Rows exec(const std::string& sql);
    // Runs one statement with `params` ($1, $2, …) in one round trip; returns its rows.
    Rows query(const std::string& sql, const std::vector<Param>& params);
    // Sends `statements` at once and reads their answers (libpq's pipeline mode): one round trip
    // for all. Returns each one's rows, in order. The server skips those after one that failed:
    // Failure with the first failure's reason. An explicit transaction (BEGIN) stays open after
    // the call, for the next pipeline.
    std::vector<Rows> pipeline(const std::vector<Statement>& statements);
    // Runs one statement and calls `each` for every row as it arrives (libpq's single-row mode),
    // so that a long answer is never held whole.
    void stream(const std::string& sql, const std::vector<Param>& params, const std::function<void(const Rows&)>& each);
    // How many times a call has sent statements and waited for their answers.
    std::uint64_t round_trips() const { return m_round_trips; }
    // Whether the connection was lost (the server went away); reset() connects again.
    bool lost() const;
    void reset();

private:
    // Waits until an answer can be read without blocking; throws Failure after m_silence of
    // nothing, leaving the connection lost (the statement's outcome is unknown: never re-run).
    void await_answer();
    // The results of the statement(s) just sent: the last one's, or Failure with the first error.
    pg_result* last_result();
    // Waits for the next result of what was sent: none once the current statement's are all read.
    std::optional<Rows> next_result();

    pg_conn* m_conn;
    std::chrono::milliseconds m_silence;
    bool m_abandoned = false;
    std::uint64_t m_round_trips = 0;  // a statement got no answer in time: the connection is unusable
};

// The text form of an array parameter: {"a","b"} (each element quoted and escaped), {1,2}.
std::string text_array(const std::vector<std::string>& items);
std::string integer_array(const std::vector<std::int64_t>& items);

}  // namespace account::pg
