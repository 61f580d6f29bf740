#include "util/json_string.hpp"

#include "util/text.hpp"
#include "util/utf8.hpp"

namespace util {

namespace {

constexpr std::string_view k_replacement = "\xEF\xBF\xBD";  // U+FFFD

void append(fmt::memory_buffer& out, std::string_view text) {
    out.append(text.data(), text.data() + text.size());
}

}  // namespace

void append_json_string(fmt::memory_buffer& out, std::string_view text) {
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
            if (const std::size_t n = decode_utf8(std::string_view(reinterpret_cast<const char*>(p), end - p)).length;
                n > 0) {
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
            const auto hex = hex_digits(c);
            out.append(hex.data(), hex.data() + hex.size());
        }
        run = ++p;
    }
    flush(p);
    out.push_back('"');
}

}  // namespace util
