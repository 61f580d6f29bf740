#include "account/pg.hpp"

#include <libpq-fe.h>

#include <poll.h>

#include <cerrno>
#include <exception>
#include <string_view>

namespace account::pg {

namespace {

// libpq's messages end with a line break and may span lines ("…failed\n\tIs the server running…"):
// one line, for a one-line error.
std::string one_line(std::string_view message) {
    std::string out;
    for (char c : message) {
        if (c == '\n' || c == '\r' || c == '\t') {
            if (!out.empty() && out.back() != ' ') {
                out += ' ';
            }
        } else {
            out += c;
        }
    }
    while (!out.empty() && out.back() == ' ') {
        out.pop_back();
    }
    return out;
}

std::string error_of(pg_conn* conn) {
    const std::string message = one_line(PQerrorMessage(conn));
    return message.empty() ? "the server did not answer" : message;
}

// The failure `result` reports, in one line (the connection's when it says nothing).
std::string failure_of(pg_conn* conn, pg_result* result) {
    const std::string message = one_line(PQresultErrorMessage(result));
    return message.empty() ? error_of(conn) : message;
}

std::vector<const char*> pointers(const std::vector<Param>& params) {
    std::vector<const char*> out;
    out.reserve(params.size());
    for (const auto& param : params) {
        out.push_back(param ? param->c_str() : nullptr);
    }
    return out;
}

}  // namespace

Rows::Rows(pg_result* result) : m_result(result, PQclear) {}

int Rows::size() const {
    return PQntuples(m_result.get());
}

bool Rows::null(int row, int column) const {
    return PQgetisnull(m_result.get(), row, column) != 0;
}

std::string Rows::text(int row, int column) const {
    return std::string(PQgetvalue(m_result.get(), row, column),
                       static_cast<std::size_t>(PQgetlength(m_result.get(), row, column)));
}

std::string_view Rows::view(int row, int column) const {
    return std::string_view(PQgetvalue(m_result.get(), row, column),
                            static_cast<std::size_t>(PQgetlength(m_result.get(), row, column)));
}

std::int64_t Rows::integer(int row, int column) const {
    return std::stoll(PQgetvalue(m_result.get(), row, column));
}

Connection::Connection(const std::vector<std::string>& keywords, const std::vector<std::string>& values,
                       std::chrono::milliseconds silence)
    : m_silence(silence) {
    std::vector<const char*> k;
    std::vector<const char*> v;
    for (std::size_t i = 0; i < keywords.size(); ++i) {
        k.push_back(keywords[i].c_str());
        v.push_back(values[i].c_str());
    }
    k.push_back(nullptr);
    v.push_back(nullptr);
    m_conn = PQconnectdbParams(k.data(), v.data(), 1);
    if (m_conn == nullptr) {
        throw Failure("out of memory");
    }
    if (PQstatus(m_conn) != CONNECTION_OK) {
        const std::string message = error_of(m_conn);
        PQfinish(m_conn);
        throw Failure(message);
    }
    // A notice (CREATE … IF NOT EXISTS saying it exists) is no one's business: not on stderr.
    PQsetNoticeProcessor(
        m_conn, [](void*, const char*) {}, nullptr);
}

Connection::~Connection() {
    PQfinish(m_conn);
}

void Connection::await_answer() {
    // libpq keeps a short statement in its buffer until asked to send it (pqPipelineFlush): PQexec
    // flushes inside PQgetResult; here it must be done before waiting, or the statement sits in
    // the buffer until something else flushes it.
    if (PQflush(m_conn) != 0) {
        throw Failure(error_of(m_conn));
    }
    while (PQisBusy(m_conn) != 0) {
        if (PQsocket(m_conn) < 0) {
            throw Failure(error_of(m_conn));
        }
        pollfd socket{PQsocket(m_conn), POLLIN, 0};
        const int ready = ::poll(&socket, 1, static_cast<int>(m_silence.count()));
        if (ready < 0 && errno == EINTR) {
            continue;  // a signal: the runner's handler only sets a flag
        }
        if (ready == 0) {
            m_abandoned = true;
            throw Failure("no answer from the server for " + std::to_string(m_silence.count() / 1000) +
                          " s (stopped, stuck, or waiting for a lock); the connection is dropped");
        }
        if (ready < 0 || PQconsumeInput(m_conn) == 0) {
            throw Failure(error_of(m_conn));
        }
    }
}

pg_result* Connection::last_result() {
    pg_result* last = nullptr;
    std::string failure;
    for (;;) {
        try {
            await_answer();
        } catch (...) {
            PQclear(last);
            throw;
        }
        pg_result* result = PQgetResult(m_conn);
        if (result == nullptr) {
            break;
        }
        const ExecStatusType status = PQresultStatus(result);
        if (status != PGRES_TUPLES_OK && status != PGRES_COMMAND_OK && failure.empty()) {
            failure = failure_of(m_conn, result);
        }
        PQclear(last);
        last = result;
    }
    if (!failure.empty() || last == nullptr) {
        PQclear(last);
        throw Failure(failure.empty() ? error_of(m_conn) : failure);
    }
    return last;
}

std::optional<Rows> Connection::next_result() {
    await_answer();
    pg_result* result = PQgetResult(m_conn);
    if (result == nullptr) {
        return std::nullopt;
    }
    return Rows(result);
}

Rows Connection::exec(const std::string& sql) {
    // A string of statements runs as one; the server skips those after a failure.
    ++m_round_trips;
    if (PQsendQuery(m_conn, sql.c_str()) == 0) {
        throw Failure(error_of(m_conn));
    }
    return Rows(last_result());
}

Rows Connection::query(const std::string& sql, const std::vector<Param>& params) {
    const auto values = pointers(params);
    ++m_round_trips;
    if (PQsendQueryParams(m_conn, sql.c_str(), static_cast<int>(values.size()), nullptr, values.data(), nullptr,
                          nullptr, 0) == 0) {
        throw Failure(error_of(m_conn));
    }
    return Rows(last_result());
}

std::vector<Rows> Connection::pipeline(const std::vector<Statement>& statements) {
    if (PQenterPipelineMode(m_conn) == 0) {
        throw Failure(error_of(m_conn));
    }
    for (const auto& statement : statements) {
        const auto values = pointers(statement.params);
        if (PQsendQueryParams(m_conn, statement.sql.c_str(), static_cast<int>(values.size()), nullptr, values.data(),
                              nullptr, nullptr, 0) == 0) {
            m_abandoned = true;  // part of a pipeline went: the connection starts afresh
            throw Failure(error_of(m_conn));
        }
    }
    ++m_round_trips;
    if (PQpipelineSync(m_conn) == 0) {
        m_abandoned = true;
        throw Failure(error_of(m_conn));
    }
    // Every answer is read, up to the sync, even after a failure, so that the connection is ready
    // for the next call.
    std::vector<Rows> out;
    out.reserve(statements.size());
    std::string failure;
    for (std::size_t i = 0; i < statements.size(); ++i) {
        while (auto rows = next_result()) {
            const ExecStatusType status = PQresultStatus(rows->get());
            if (status == PGRES_TUPLES_OK || status == PGRES_COMMAND_OK) {
                out.push_back(std::move(*rows));
            } else if (status != PGRES_PIPELINE_ABORTED && failure.empty()) {
                failure = failure_of(m_conn, rows->get());  // those after it are only skipped
            }
        }
    }
    await_answer();
    Rows sync(PQgetResult(m_conn));
    if (PQexitPipelineMode(m_conn) == 0) {
        m_abandoned = true;
        throw Failure(failure.empty() ? error_of(m_conn) : failure);
    }
    if (!failure.empty() || out.size() != statements.size()) {
        throw Failure(failure.empty() ? "a statement of the batch was not run" : failure);
    }
    return out;
}

void Connection::stream(const std::string& sql, const std::vector<Param>& params,
                        const std::function<void(const Rows&)>& each) {
    const auto values = pointers(params);
    ++m_round_trips;
    if (PQsendQueryParams(m_conn, sql.c_str(), static_cast<int>(values.size()), nullptr, values.data(), nullptr,
                          nullptr, 0) == 0 ||
        PQsetSingleRowMode(m_conn) == 0) {
        throw Failure(error_of(m_conn));
    }
    // Every result is read, even after a failure, so that the connection is ready for the next.
    std::optional<std::string> failure;
    std::exception_ptr thrown;
    while (auto rows = next_result()) {
        const ExecStatusType status = PQresultStatus(rows->get());
        if (status == PGRES_SINGLE_TUPLE) {
            if (!failure && !thrown) {
                try {
                    each(*rows);
                } catch (...) {
                    thrown = std::current_exception();
                }
            }
        } else if (status != PGRES_TUPLES_OK && !failure) {
            failure = one_line(PQresultErrorMessage(rows->get()));
        }
    }
    if (thrown) {
        std::rethrow_exception(thrown);
    }
    if (failure) {
        throw Failure(failure->empty() ? error_of(m_conn) : *failure);
    }
}

bool Connection::lost() const {
    return m_abandoned || PQstatus(m_conn) == CONNECTION_BAD;
}

void Connection::reset() {
    m_abandoned = false;
    PQreset(m_conn);
    if (PQstatus(m_conn) != CONNECTION_OK) {
        throw Failure(error_of(m_conn));
    }
}

std::string text_array(const std::vector<std::string>& items) {
    std::string out = "{";
    for (const auto& item : items) {
        if (out.size() > 1) {
            out += ',';
        }
        out += '"';
        for (char c : item) {
            if (c == '"' || c == '\\') {
                out += '\\';
            }
            out += c;
        }
        out += '"';
    }
    out += '}';
    return out;
}

std::string integer_array(const std::vector<std::int64_t>& items) {
    std::string out = "{";
    for (const auto item : items) {
        if (out.size() > 1) {
            out += ',';
        }
        out += std::to_string(item);
    }
    out += '}';
    return out;
}

}  // namespace account::pg
