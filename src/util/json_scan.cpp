#include "util/json_scan.hpp"

#include <fmt/format.h>
#include <array>
#include <limits>

namespace util {

namespace {

void append_utf8(std::string& out, unsigned cp) {
    if (cp < 0x80) {
        out.push_back(static_cast<char>(cp));
    } else if (cp < 0x800) {
        out.push_back(static_cast<char>(0xC0 | (cp >> 6)));
        out.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
    } else if (cp < 0x10000) {
        out.push_back(static_cast<char>(0xE0 | (cp >> 12)));
        out.push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
        out.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
    } else {
        out.push_back(static_cast<char>(0xF0 | (cp >> 18)));
        out.push_back(static_cast<char>(0x80 | ((cp >> 12) & 0x3F)));
        out.push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
        out.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
    }
}

bool is_digit(char c) {
    return c >= '0' && c <= '9';
}

// Bytes that stand for themselves inside a JSON string: all but '"', '\\' and controls.
constexpr auto k_plain = [] {
    std::array<bool, 256> plain{};
    for (int c = 0x20; c < 256; ++c) {
        plain[static_cast<std::size_t>(c)] = c != '"' && c != '\\';
    }
    return plain;
}();

bool is_plain(char c) {
    return k_plain[static_cast<unsigned char>(c)];
}

}  // namespace

bool JsonScanner::fail(std::string_view what) {
    if (m_error.empty()) {
        m_error = m_pos >= m_text.size() ? fmt::format("{} (line ends early)", what)
                                         : fmt::format("{} at column {}", what, m_pos + 1);
    }
    return false;
}

void JsonScanner::skip_space() {
    while (m_pos < m_text.size() &&
           (m_text[m_pos] == ' ' || m_text[m_pos] == '\t' || m_text[m_pos] == '\n' || m_text[m_pos] == '\r')) {
        ++m_pos;
    }
}

bool JsonScanner::consume(char c) {
    skip_space();
    if (m_pos < m_text.size() && m_text[m_pos] == c) {
        ++m_pos;
        return true;
    }
    return false;
}

bool JsonScanner::expect(char c) {
    return consume(c) || fail(fmt::format("expected '{}'", c));
}

bool JsonScanner::enter() {
    return ++m_depth <= k_max_depth || fail("nested too deeply");
}

bool JsonScanner::read_hex4(unsigned& out) {
    if (m_pos + 4 > m_text.size()) {
        return fail("bad \\u escape");
    }
    out = 0;
    for (int i = 0; i < 4; ++i) {
        const char c = m_text[m_pos++];
        out <<= 4;
        if (is_digit(c)) {
            out |= static_cast<unsigned>(c - '0');
        } else if (c >= 'a' && c <= 'f') {
            out |= static_cast<unsigned>(c - 'a' + 10);
        } else if (c >= 'A' && c <= 'F') {
            out |= static_cast<unsigned>(c - 'A' + 10);
        } else {
            return fail("bad \\u escape");
        }
    }
    return true;
}

bool JsonScanner::read_string(std::string& out) {
    if (!expect('"')) {
        return false;
    }
    out.clear();
    while (true) {
        const std::size_t start = m_pos;
        while (m_pos < m_text.size() && is_plain(m_text[m_pos])) {
            ++m_pos;
        }
        out.append(m_text.data() + start, m_pos - start);
        if (m_pos >= m_text.size()) {
            return fail("unterminated string");
        }
        const char c = m_text[m_pos++];
        if (c == '"') {
            return true;
        }
        if (c != '\\') {
            --m_pos;
            return fail("control character in string");
        }
        if (m_pos >= m_text.size()) {
            return fail("unterminated string");
        }
        switch (const char e = m_text[m_pos++]; e) {
        case '"': out.push_back('"'); break;
        case '\\': out.push_back('\\'); break;
        case '/': out.push_back('/'); break;
        case 'b': out.push_back('\b'); break;
        case 'f': out.push_back('\f'); break;
        case 'n': out.push_back('\n'); break;
        case 'r': out.push_back('\r'); break;
        case 't': out.push_back('\t'); break;
        case 'u': {
            unsigned cp = 0;
            if (!read_hex4(cp)) {
                return false;
            }
            if (cp >= 0xD800 && cp <= 0xDBFF && m_text.substr(m_pos, 2) == "\\u") {
                const std::size_t mark = m_pos;
                m_pos += 2;
                unsigned low = 0;
                if (!read_hex4(low)) {
                    return false;
                }
                if (low >= 0xDC00 && low <= 0xDFFF) {
                    cp = 0x10000 + ((cp - 0xD800) << 10) + (low - 0xDC00);
                } else {
                    m_pos = mark;  // not a pair: the second escape stands alone
                }
            }
            // A lone surrogate has no UTF-8 form.
            append_utf8(out, cp >= 0xD800 && cp <= 0xDFFF ? 0xFFFD : cp);
            break;
        }
        default: return fail("bad escape in string");
        }
    }
}

bool JsonScanner::read_string(std::string_view& out, std::string& scratch) {
    if (!expect('"')) {
        return false;
    }
    const std::size_t start = m_pos;
    while (m_pos < m_text.size() && is_plain(m_text[m_pos])) {
        ++m_pos;
    }
    if (m_pos < m_text.size() && m_text[m_pos] == '"') {
        out = m_text.substr(start, m_pos - start);
        ++m_pos;
        return true;
    }
    m_pos = start - 1;  // back to the opening quote: decode the slow way
    if (!read_string(scratch)) {
        return false;
    }
    out = scratch;
    return true;
}

bool JsonScanner::read_int(std::int64_t& out) {
    skip_space();
    const bool negative = m_pos < m_text.size() && m_text[m_pos] == '-';
    if (negative) {
        ++m_pos;
    }
    if (m_pos >= m_text.size() || !is_digit(m_text[m_pos])) {
        return fail("expected an integer");
    }
    if (m_text[m_pos] == '0' && m_pos + 1 < m_text.size() && is_digit(m_text[m_pos + 1])) {
        return fail("a number may not start with 0");
    }
    std::uint64_t value = 0;
    // The most the magnitude may be: INT64_MIN's is one more than INT64_MAX's.
    const std::uint64_t limit =
        static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max()) + (negative ? 1 : 0);
    while (m_pos < m_text.size() && is_digit(m_text[m_pos])) {
        const auto digit = static_cast<std::uint64_t>(m_text[m_pos++] - '0');
        // Checked before the multiplication, which would otherwise wrap (2^64 read as 0).
        if (value > (limit - digit) / 10) {
            return fail("integer out of range");
        }
        value = value * 10 + digit;
    }
    if (m_pos < m_text.size() && (m_text[m_pos] == '.' || m_text[m_pos] == 'e' || m_text[m_pos] == 'E')) {
        return fail("expected an integer");
    }
    out = negative ? static_cast<std::int64_t>(0 - value) : static_cast<std::int64_t>(value);
    return true;
}

char JsonScanner::peek() {
    skip_space();
    return m_pos < m_text.size() ? m_text[m_pos] : '\0';
}

bool JsonScanner::read_null() {
    skip_space();
    if (m_text.substr(m_pos, 4) == "null") {
        m_pos += 4;
        return true;
    }
    return false;
}

bool JsonScanner::read_bool(bool& out) {
    skip_space();
    out = peek() == 't';
    return skip_literal(out ? "true" : "false");
}

bool JsonScanner::skip_literal(std::string_view word) {
    if (m_text.substr(m_pos, word.size()) != word) {
        return fail("expected a value");
    }
    m_pos += word.size();
    return true;
}

bool JsonScanner::skip_number() {
    const auto digits = [this] {
        const std::size_t start = m_pos;
        while (m_pos < m_text.size() && is_digit(m_text[m_pos])) {
            ++m_pos;
        }
        return m_pos > start;
    };
    if (m_text[m_pos] == '-') {
        ++m_pos;
    }
    const std::size_t integer_start = m_pos;
    if (!digits()) {
        return fail("bad number");
    }
    if (m_text[integer_start] == '0' && m_pos - integer_start > 1) {
        return fail("a number may not start with 0");
    }
    if (m_pos < m_text.size() && m_text[m_pos] == '.') {
        ++m_pos;
        if (!digits()) {
            return fail("bad number");
        }
    }
    if (m_pos < m_text.size() && (m_text[m_pos] == 'e' || m_text[m_pos] == 'E')) {
        ++m_pos;
        if (m_pos < m_text.size() && (m_text[m_pos] == '+' || m_text[m_pos] == '-')) {
            ++m_pos;
        }
        if (!digits()) {
            return fail("bad number");
        }
    }
    return true;
}

bool JsonScanner::skip_value() {
    skip_space();
    if (m_pos >= m_text.size()) {
        return fail("expected a value");
    }
    switch (m_text[m_pos]) {
    case '"': {
        std::string scratch;
        std::string_view ignored;
        return read_string(ignored, scratch);
    }
    case '{': return read_object([this](std::string_view) { return skip_value(); });
    case '[': return read_array([this] { return skip_value(); });
    case 't': return skip_literal("true");
    case 'f': return skip_literal("false");
    case 'n': return skip_literal("null");
    default: return skip_number();
    }
}

bool JsonScanner::read_raw(std::string_view& out) {
    skip_space();
    const std::size_t start = m_pos;
    if (!skip_value()) {
        return false;
    }
    out = m_text.substr(start, m_pos - start);
    return true;
}

bool JsonScanner::finish() {
    skip_space();
    return m_pos == m_text.size() || fail("unexpected text after the object");
}

}  // namespace util
