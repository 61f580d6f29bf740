#pragma once
// A small pull parser for one JSON line, without a DOM: replaying a log of millions of lines
// is bound by parsing, and the records are flat. It validates what it reads and skips what
// it is not asked for; the first problem stops it and is kept as error().

#include <cstdint>
#include <string>
#include <string_view>

namespace util {

class JsonScanner {
public:
    explicit JsonScanner(std::string_view text) : m_text(text) {}

    // Reads an object, calling `on_member(key)` for each member with the scanner at the
    // member's value, which `on_member` must consume; it returns false to stop (after fail()).
    template <typename F>
    bool read_object(F&& on_member);
    // Reads an array, calling `on_element()` for each element, which it must consume.
    template <typename F>
    bool read_array(F&& on_element);

    // Reads a string value into `out` (escapes decoded); fails on anything else.
    bool read_string(std::string& out);
    // Reads a string value: `out` views the text itself when the string has no escapes
    // (the usual case, and no copy), else `scratch`, where it was decoded.
    bool read_string(std::string_view& out, std::string& scratch);
    // Reads an integer value into `out`; fails on fractions, exponents and overflow.
    bool read_int(std::int64_t& out);
    // Returns the first character of the next value ('"', '{', '[', '-', a digit, …), or
    // '\0' at the end of the text; consumes only whitespace.
    char peek();
    // Reads `true` or `false` into `out`; fails on anything else.
    bool read_bool(bool& out);
    // Returns true (and consumes it) when the next value is `null`.
    bool read_null();
    // Reads and discards any value.
    bool skip_value();
    // Reads any value and sets `out` to its text as written (it views the line).
    bool read_raw(std::string_view& out);
    // Returns true when nothing but whitespace is left; fails otherwise.
    bool finish();

    // Records `what` (with the column) as the error; returns false.
    bool fail(std::string_view what);
    const std::string& error() const { return m_error; }

private:
    static constexpr int k_max_depth = 32;

    void skip_space();
    bool consume(char c);
    bool expect(char c);
    bool enter();
    bool read_hex4(unsigned& out);
    bool skip_number();
    bool skip_literal(std::string_view word);

    std::string_view m_text;
    std::size_t m_pos = 0;
    int m_depth = 0;
    std::string m_error;
};

template <typename F>
bool JsonScanner::read_object(F&& on_member) {
    if (!expect('{') || !enter()) {
        return false;
    }
    if (!consume('}')) {
        std::string scratch;
        std::string_view key;
        do {
            if (!read_string(key, scratch) || !expect(':') || !on_member(key)) {
                return false;
            }
        } while (consume(','));
        if (!expect('}')) {
            return false;
        }
    }
    --m_depth;
    return true;
}

template <typename F>
bool JsonScanner::read_array(F&& on_element) {
    if (!expect('[') || !enter()) {
        return false;
    }
    if (!consume(']')) {
        do {
            if (!on_element()) {
                return false;
            }
        } while (consume(','));
        if (!expect(']')) {
            return false;
        }
    }
    --m_depth;
    return true;
}

}  // namespace util
