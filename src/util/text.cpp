#include "util/text.hpp"

#include <fmt/format.h>
#include <algorithm>
#include <charconv>

#include "util/utf8.hpp"

namespace util {

bool hidden_on_terminal(char32_t cp) {
    // C1 controls (U+0080–U+009F: U+009B is a CSI), bidirectional embeddings and overrides
    // (U+202A–U+202E) and isolates (U+2066–U+2069), which reorder what follows them.
    return cp < 0xA0 || (cp >= 0x202A && cp <= 0x202E) || (cp >= 0x2066 && cp <= 0x2069);
}

std::string json_safe(std::string json) {
    const auto is_plain = [](unsigned char c) { return c < 0x7F; };
    if (std::all_of(json.begin(), json.end(), is_plain)) {
        return json;  // ASCII without DEL: nothing to do
    }
    return rewrite_utf8(
        json,
        [](const Utf8Piece& piece) {
            // DEL (0x7F) counts as hidden; a stray byte is kept: the input is the caller's.
            return !piece.valid || piece.code_point < 0x7F || !hidden_on_terminal(piece.code_point);
        },
        [](std::string& out, const Utf8Piece& piece) {
            out += fmt::format("\\u{:04x}", static_cast<unsigned>(piece.code_point));
        });
}

std::string group_digits(std::int64_t n) {
    // -(n + 1) + 1 as unsigned: the most negative n has no positive counterpart.
    const std::string digits =
        fmt::format("{}", n < 0 ? static_cast<std::uint64_t>(-(n + 1)) + 1 : static_cast<std::uint64_t>(n));
    std::string out;
    for (std::size_t i = 0; i < digits.size(); ++i) {
        if (i > 0 && (digits.size() - i) % 3 == 0) {
            out += ',';
        }
        out += digits[i];
    }
    return n < 0 ? "-" + out : out;
}

std::string counted(long long n, std::string_view noun, std::string_view plural) {
    if (n == 1) {
        return "1 " + std::string(noun);
    }
    return std::to_string(n) + " " + (plural.empty() ? std::string(noun) + "s" : std::string(plural));
}

std::string_view trim(std::string_view text) {
    constexpr std::string_view k_space = " \t\r\n";
    const std::size_t first = text.find_first_not_of(k_space);
    if (first == std::string_view::npos) {
        return {};
    }
    return text.substr(first, text.find_last_not_of(k_space) - first + 1);
}

namespace {

// `text` with the ASCII letters of the case that starts at `from` ('A' or 'a') moved to the
// case that starts at `to`; other bytes unchanged.
std::string ascii_recased(std::string_view text, char from, char to) {
    std::string out(text);
    for (char& c : out) {
        if (c >= from && c <= from + ('z' - 'a')) {
            c = static_cast<char>(c - from + to);
        }
    }
    return out;
}

}  // namespace

std::string ascii_lower(std::string_view text) {
    return ascii_recased(text, 'A', 'a');
}

std::string ascii_upper(std::string_view text) {
    return ascii_recased(text, 'a', 'A');
}

bool starts_with_nocase(std::string_view text, std::string_view prefix) {
    const auto lower = [](char c) { return c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c; };
    return text.size() >= prefix.size() &&
           std::equal(prefix.begin(), prefix.end(), text.begin(), [&](char a, char b) { return lower(a) == lower(b); });
}

int hex_value(char c) {
    if (c >= '0' && c <= '9') {
        return c - '0';
    }
    if (c >= 'a' && c <= 'f') {
        return c - 'a' + 10;
    }
    if (c >= 'A' && c <= 'F') {
        return c - 'A' + 10;
    }
    return -1;
}

std::optional<std::string> percent_decoded(std::string_view text) {
    std::string out;
    for (std::size_t i = 0; i < text.size(); ++i) {
        if (text[i] != '%') {
            out += text[i];
            continue;
        }
        if (i + 2 >= text.size() || hex_value(text[i + 1]) < 0 || hex_value(text[i + 2]) < 0) {
            return std::nullopt;
        }
        out += static_cast<char>(hex_value(text[i + 1]) * 16 + hex_value(text[i + 2]));
        i += 2;
    }
    return out;
}

std::array<char, 2> hex_digits(unsigned char byte, HexCase letters) {
    static constexpr char k_lower[] = "0123456789abcdef";
    static constexpr char k_upper[] = "0123456789ABCDEF";
    const char* digits = letters == HexCase::upper ? k_upper : k_lower;
    return {digits[byte >> 4], digits[byte & 0xF]};
}

std::string printable(std::string_view text, LineBreaks breaks) {
    const auto keep = [breaks](const Utf8Piece& piece) {
        const char32_t cp = piece.code_point;
        return (cp >= 0x20 && cp < 0x7F) || (cp == '\n' && breaks == LineBreaks::keep) ||
               (piece.valid && cp >= 0x80 && !hidden_on_terminal(cp));
    };
    const auto write = [breaks](std::string& out, const Utf8Piece& piece) {
        const char32_t cp = piece.code_point;
        if (breaks == LineBreaks::space && (cp == '\n' || cp == '\r' || cp == '\t')) {
            out += ' ';
        } else if (cp < 0x80) {
            out += cp == '\n'   ? "\\n"
                   : cp == '\r' ? "\\r"
                   : cp == '\t' ? "\\t"
                                : fmt::format("\\x{:02x}", static_cast<unsigned>(cp));
        } else if (!piece.valid) {
            out += "\xEF\xBF\xBD";  // U+FFFD
        } else {
            out += fmt::format("\\u{:04x}", static_cast<unsigned>(cp));
        }
    };
    return rewrite_utf8(text, keep, write);
}

namespace {

// Whether `port` is a number from 1 to 65535.
bool valid_port(std::string_view port) {
    int value = 0;
    const auto [end, error] = std::from_chars(port.data(), port.data() + port.size(), value);
    return !port.empty() && error == std::errc() && end == port.data() + port.size() && value >= 1 && value <= 65535;
}

}  // namespace

bool valid_host_port(std::string_view host_port) {
    std::string_view port;
    if (host_port.starts_with('[')) {
        const std::size_t close = host_port.find(']');
        if (close == std::string_view::npos || close == 1) {
            return false;
        }
        const std::string_view rest = host_port.substr(close + 1);
        if (!rest.empty() && !rest.starts_with(':')) {
            return false;
        }
        port = rest.empty() ? std::string_view() : rest.substr(1);
        return rest.empty() || valid_port(port);
    }
    const std::size_t colon = host_port.find(':');
    if (colon == 0 || host_port.empty()) {
        return false;
    }
    return colon == std::string_view::npos || valid_port(host_port.substr(colon + 1));
}

}  // namespace util
