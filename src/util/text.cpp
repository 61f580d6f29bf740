#include "util/text.hpp"

#include <fmt/format.h>

namespace util {

namespace {

// Returns the length of the well-formed UTF-8 sequence at `p` (no overlong forms, no
// surrogates, nothing above U+10FFFF) and sets `cp` to its code point; 0 when there is none.
std::size_t utf8_sequence(const unsigned char* p, const unsigned char* end, unsigned& cp) {
    const unsigned char c = *p;
    const std::size_t n = c >= 0xC2 && c <= 0xDF ? 2 : (c >= 0xE0 && c <= 0xEF ? 3 : (c >= 0xF0 && c <= 0xF4 ? 4 : 0));
    if (n == 0 || static_cast<std::size_t>(end - p) < n) {
        return 0;
    }
    cp = c & (n == 2 ? 0x1Fu : (n == 3 ? 0x0Fu : 0x07u));
    for (std::size_t i = 1; i < n; ++i) {
        if ((p[i] & 0xC0) != 0x80) {
            return 0;
        }
        cp = (cp << 6) | (p[i] & 0x3Fu);
    }
    const unsigned min = n == 2 ? 0x80 : (n == 3 ? 0x800 : 0x10000);
    return cp >= min && cp <= 0x10FFFF && !(cp >= 0xD800 && cp <= 0xDFFF) ? n : 0;
}

bool hidden_on_terminal(unsigned cp) {
    // C1 controls (U+0080–U+009F: U+009B is a CSI), bidirectional embeddings and overrides
    // (U+202A–U+202E) and isolates (U+2066–U+2069), which reorder what follows them.
    return cp < 0xA0 || (cp >= 0x202A && cp <= 0x202E) || (cp >= 0x2066 && cp <= 0x2069);
}

}  // namespace

std::string printable(std::string_view text, LineBreaks breaks) {
    std::string out;
    out.reserve(text.size());
    const auto* p = reinterpret_cast<const unsigned char*>(text.data());
    const auto* end = p + text.size();
    while (p < end) {
        const unsigned char c = *p;
        if ((c >= 0x20 && c < 0x7F) || (c == '\n' && breaks == LineBreaks::keep)) {
            out.push_back(static_cast<char>(c));
            ++p;
            continue;
        }
        if (breaks == LineBreaks::space && (c == '\n' || c == '\r' || c == '\t')) {
            out.push_back(' ');
            ++p;
            continue;
        }
        if (c < 0x80) {
            out += c == '\n' ? "\\n" : c == '\r' ? "\\r" : c == '\t' ? "\\t" : fmt::format("\\x{:02x}", c);
            ++p;
            continue;
        }
        unsigned cp = 0;
        const std::size_t n = utf8_sequence(p, end, cp);
        if (n == 0) {
            out += "\xEF\xBF\xBD";  // U+FFFD
            ++p;
            continue;
        }
        if (hidden_on_terminal(cp)) {
            out += fmt::format("\\u{:04x}", cp);
        } else {
            out.append(reinterpret_cast<const char*>(p), n);
        }
        p += n;
    }
    return out;
}

}  // namespace util
