#pragma once
// Result<T>: a value or an Error, for failures that are expected (bad input, a refused
// request). Exceptions are kept for the truly fatal.
//
// Streams (CSV records, recipients, sorted pairs, log records, jobs) read with one contract:
// `Result<bool> next(T& out)` is true when `out` holds the next item, false at the end, and an
// Error when the stream cannot go on (an I/O error, a broken structure). A problem of one item
// that reading goes on after (a bad CSV row) is part of the item, not an Error. Once next()
// returned false or an Error, the stream is done: it is not called again.

#include <string>
#include <utility>
#include <variant>

namespace util {

// What failed, where a caller must tell failures apart (most need not).
enum class ErrorKind {
    general,
    write,      // something could not be written (a log), as against input that could not be read
    ledger,     // the account's ledger could not be read or written
    temp_file,  // a temporary file (a replay's, a sort's) could not be made, written or read back
};

struct Error {
    std::string message;
    ErrorKind kind = ErrorKind::general;
};

template <typename T>
class [[nodiscard]] Result {
public:
    Result(T value) : m_v(std::in_place_index<0>, std::move(value)) {}
    Result(Error error) : m_v(std::in_place_index<1>, std::move(error)) {}

    bool ok() const { return m_v.index() == 0; }
    explicit operator bool() const { return ok(); }

    T& value() & { return std::get<0>(m_v); }
    const T& value() const& { return std::get<0>(m_v); }
    T&& value() && { return std::get<0>(std::move(m_v)); }
    T& operator*() & { return value(); }
    const T& operator*() const& { return value(); }
    T* operator->() { return &value(); }
    const T* operator->() const { return &value(); }

    const Error& error() const { return std::get<1>(m_v); }

private:
    std::variant<T, Error> m_v;
};

// Result<void>: success or an Error.
template <>
class [[nodiscard]] Result<void> {
public:
    Result() = default;
    Result(Error error) : m_error(std::move(error)), m_ok(false) {}

    bool ok() const { return m_ok; }
    explicit operator bool() const { return m_ok; }
    const Error& error() const { return m_error; }

private:
    Error m_error;
    bool m_ok = true;
};

// Shorthand for returning a failure: `return util::fail("…")`.
inline Error fail(std::string message) {
    return Error{std::move(message), ErrorKind::general};
}

}  // namespace util

// TRY(`expr`): returns the Error of the Result `expr` from the enclosing function, if it holds one.
#define TRY(expr_)                           \
    do {                                     \
        auto&& util_try_result_ = (expr_);   \
        if (!util_try_result_) {             \
            return util_try_result_.error(); \
        }                                    \
    } while (false)

// TRY_ASSIGN(`var`, `expr`): as TRY, then moves the value into `var` (`auto x` declares it).
#define TRY_ASSIGN(var_, expr_) UTIL_TRY_ASSIGN_(var_, expr_, UTIL_TRY_CONCAT_(util_try_result_, __LINE__))
#define UTIL_TRY_CONCAT_(a_, b_) UTIL_TRY_CONCAT2_(a_, b_)
#define UTIL_TRY_CONCAT2_(a_, b_) a_##b_
#define UTIL_TRY_ASSIGN_(var_, expr_, tmp_) \
    auto tmp_ = (expr_);                    \
    if (!tmp_) {                            \
        return tmp_.error();                \
    }                                       \
    var_ = std::move(*tmp_)
