#pragma once
// Strict UTF-8 (Unicode table 3-7): the one decoder, and cutting text at a character boundary.

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

}  // namespace util
