#include "util/utf8.hpp"

#include <locale.h>
#include <wchar.h>

namespace util {

namespace {

// The C.UTF-8 locale made current on this thread for as long as it lives, so that wcwidth
// knows every character whatever the process's locale (wacamp never calls setlocale).
class Utf8Locale {
public:
    Utf8Locale() : m_utf8(newlocale(LC_CTYPE_MASK, "C.UTF-8", locale_t{})) {
        if (m_utf8 != locale_t{}) {
            m_before = uselocale(m_utf8);
        }
    }
    ~Utf8Locale() {
        if (m_utf8 != locale_t{}) {
            uselocale(m_before);
            freelocale(m_utf8);
        }
    }
    Utf8Locale(const Utf8Locale&) = delete;
    Utf8Locale& operator=(const Utf8Locale&) = delete;

    // The columns `c` takes: wcwidth's answer, 1 when it has none.
    std::size_t columns(char32_t c) const {
        if (c < 0x80) {
            return 1;
        }
        const int width = m_utf8 != locale_t{} ? wcwidth(static_cast<wchar_t>(c)) : -1;
        return width < 0 ? 1 : static_cast<std::size_t>(width);
    }

private:
    locale_t m_utf8;
    locale_t m_before{};
};

// Calls `each(bytes, columns)` for each character of `text` in turn (an invalid byte is one
// character of one column); stops when it returns false.
template <typename Each>
void for_each_column(std::string_view text, Each each) {
    const Utf8Locale locale;
    for_each_utf8_piece(text, [&](const Utf8Piece& piece) {
        return each(piece.bytes.size(), piece.valid ? locale.columns(piece.code_point) : 1);
    });
}

bool in_range(unsigned char c, unsigned char low, unsigned char high) {
    return c >= low && c <= high;
}

}  // namespace

Utf8Char decode_utf8(std::string_view text) {
    if (text.empty()) {
        return {};
    }
    const auto* p = reinterpret_cast<const unsigned char*>(text.data());
    const unsigned char c = p[0];
    if (c < 0x80) {
        return {1, c};
    }
    // The second byte's range excludes overlong forms (E0, F0), surrogates (ED) and code
    // points above U+10FFFF (F4).
    std::size_t n = 0;
    unsigned char low = 0x80;
    unsigned char high = 0xBF;
    if (in_range(c, 0xC2, 0xDF)) {
        n = 2;
    } else if (in_range(c, 0xE0, 0xEF)) {
        n = 3;
        low = c == 0xE0 ? 0xA0 : 0x80;
        high = c == 0xED ? 0x9F : 0xBF;
    } else if (in_range(c, 0xF0, 0xF4)) {
        n = 4;
        low = c == 0xF0 ? 0x90 : 0x80;
        high = c == 0xF4 ? 0x8F : 0xBF;
    } else {
        return {};
    }
    if (text.size() < n || !in_range(p[1], low, high)) {
        return {};
    }
    char32_t cp = c & (n == 2 ? 0x1Fu : (n == 3 ? 0x0Fu : 0x07u));
    for (std::size_t i = 1; i < n; ++i) {
        if (!in_range(p[i], 0x80, 0xBF)) {
            return {};
        }
        cp = (cp << 6) | (p[i] & 0x3Fu);
    }
    return {n, cp};
}

std::size_t find_invalid_utf8(std::string_view text) {
    std::size_t invalid = std::string_view::npos;
    for_each_utf8_piece(text, [&](const Utf8Piece& piece) {
        if (!piece.valid) {
            invalid = static_cast<std::size_t>(piece.bytes.data() - text.data());
        }
        return piece.valid;
    });
    return invalid;
}

std::string clip_utf8(std::string_view text, std::size_t max_bytes) {
    if (text.size() <= max_bytes) {
        return std::string(text);
    }
    std::size_t cut = max_bytes;
    while (cut > 0 && (static_cast<unsigned char>(text[cut]) & 0xC0) == 0x80) {
        --cut;  // `cut` is inside a sequence: step back to its lead byte
    }
    return std::string(text.substr(0, cut)) + "…";
}

std::size_t display_width(std::string_view text) {
    std::size_t width = 0;
    for_each_column(text, [&](std::size_t, std::size_t columns) {
        width += columns;
        return true;
    });
    return width;
}

std::string clip_to_width(std::string_view text, std::size_t columns) {
    if (display_width(text) <= columns) {
        return std::string(text);
    }
    if (columns == 0) {
        return {};
    }
    std::size_t width = 0;
    std::size_t cut = 0;
    for_each_column(text, [&](std::size_t bytes, std::size_t c) {
        if (width + c > columns - 1) {
            return false;
        }
        width += c;
        cut += bytes;
        return true;
    });
    return std::string(text.substr(0, cut)) + "…";
}

}  // namespace util
