#include "util/json_string.hpp"

namespace util {

namespace {

constexpr std::string_view k_replacement = "\xEF\xBF\xBD";  // U+FFFD

bool is_continuation(unsigned char c, unsigned char low = 0x80, unsigned char high = 0xBF) {
    return c >= low && c <= high;
}

// Returns the length of the well-formed UTF-8 sequence at `p` (Unicode table 3-7: no
// overlong forms, no surrogates, nothing above U+10FFFF), or 0 when it is not one.
std::size_t utf8_length(const unsigned char* p, const unsigned char* end) {
    const unsigned char c = p[0];
    const auto left = static_cast<std::size_t>(end - p);
    if (c >= 0xC2 && c <= 0xDF) {
        return left >= 2 && is_continuation(p[1]) ? 2 : 0;
    }
    if (c >= 0xE0 && c <= 0xEF) {
        const unsigned char low = c == 0xE0 ? 0xA0 : 0x80;
        const unsigned char high = c == 0xED ? 0x9F : 0xBF;
        return left >= 3 && is_continuation(p[1], low, high) && is_continuation(p[2]) ? 3 : 0;
    }
    if (c >= 0xF0 && c <= 0xF4) {
        const unsigned char low = c == 0xF0 ? 0x90 : 0x80;
        const unsigned char high = c == 0xF4 ? 0x8F : 0xBF;
        return left >= 4 && is_continuation(p[1], low, high) && is_continuation(p[2]) && is_continuation(p[3]) ? 4 : 0;
    }
    return 0;
}

void append(fmt::memory_buffer& out, std::string_view text) {
    out.append(text.data(), text.data() + text.size());
}

}  // namespace

void append_json_string(fmt::memory_buffer& out, std::string_view text) {
    static constexpr char k_hex[] = "0123456789abcdef";
    const auto* p = reinterpret_cast<const unsigned char*>(text.data());
    const auto* end = p + text.size();
    const auto* run = p;  // start of the bytes still to copy verbatim
    const auto flush = [&](const unsigned char* upto) {
        out.append(reinterpret_cast<const char*>(run), reinterpret_cast<const char*>(upto));
    };
    out.push_back('"');
    while (p < end) {
        const unsigned char c = *p;
        if (c >= 0x20 && c < 0x80 && c != '"' && c != '\\') {
            ++p;
            continue;
        }
        if (c >= 0x80) {
            if (const std::size_t n = utf8_length(p, end); n > 0) {
                p += n;
                continue;
            }
            flush(p);
            append(out, k_replacement);
            run = ++p;
            continue;
        }
        flush(p);
        switch (c) {
        case '"': append(out, "\\\""); break;
        case '\\': append(out, "\\\\"); break;
        case '\n': append(out, "\\n"); break;
        case '\r': append(out, "\\r"); break;
        case '\t': append(out, "\\t"); break;
        case '\b': append(out, "\\b"); break;
        case '\f': append(out, "\\f"); break;
        default:
            append(out, "\\u00");
            out.push_back(k_hex[c >> 4]);
            out.push_back(k_hex[c & 0xF]);
        }
        run = ++p;
    }
    flush(p);
    out.push_back('"');
}

}  // namespace util
