#pragma once
// Strict UTF-8 (Unicode table 3-7): the one decoder, cutting text at a character boundary, and
// the columns text takes on a terminal.

#include <cstddef>
#include <string>
#include <string_view>

namespace util {

// One character at the start of a text: its length in bytes (0 when no well-formed UTF-8
// sequence starts there) and its code point.
struct Utf8Char {
    std::size_t length = 0;
    char32_t code_point = 0;
};

// Returns the character that starts `text`: ASCII is one byte; a multi-byte sequence must be
// well formed (no overlong forms, no surrogates, nothing above U+10FFFF), else length is 0.
Utf8Char decode_utf8(std::string_view text);

// Returns the offset of the first byte of `text` that starts no well-formed UTF-8 sequence,
// or std::string_view::npos when all of `text` is UTF-8 (NUL counts as a character).
std::size_t find_invalid_utf8(std::string_view text);

// Returns `text` when it has at most `max_bytes` bytes, else its longest prefix of at most
// `max_bytes` bytes that does not end inside a UTF-8 sequence, followed by "…".
std::string clip_utf8(std::string_view text, std::size_t max_bytes);

// Returns the columns `text` takes on a terminal: each character's wcwidth in the C.UTF-8
// locale (0 for combining marks, 2 for wide East Asian characters, 1 for most others); a byte
// that starts no well-formed sequence, or a character wcwidth does not know, counts as 1.
std::size_t display_width(std::string_view text);

// Returns `text` when it takes at most `columns` columns (display_width), else its longest
// prefix of whole characters that takes at most `columns` - 1, followed by "…" (one column).
// Nothing fits in 0 columns: "".
std::string clip_to_width(std::string_view text, std::size_t columns);

}  // namespace util
