#pragma once
// Strict UTF-8 (Unicode table 3-7): the one decoder, the one walk over a text's characters,
// cutting text at a character boundary, and the columns text takes on a terminal.

#include <cstddef>
#include <string>
#include <string_view>
#include <type_traits>

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

// One step of a walk over a text: a well-formed character, or a single byte that starts none.
struct Utf8Piece {
    std::string_view bytes;   // the character's bytes, or the one stray byte; empty only past the end
    char32_t code_point = 0;  // the character's code point; U+FFFD for a stray byte
    bool valid = false;       // whether `bytes` is a well-formed character
};

// Returns the piece that starts `text`: its first character, or its first byte alone when no
// well-formed sequence starts there (a cut sequence is then one piece per byte); an empty piece
// for an empty `text`.
inline Utf8Piece first_utf8_piece(std::string_view text) {
    if (text.empty()) {
        return {};
    }
    const auto lead = static_cast<unsigned char>(text.front());
    if (lead < 0x80) {
        return {std::string_view(text.data(), 1), lead, true};  // ASCII, the common case, without a call
    }
    const Utf8Char c = decode_utf8(text);
    return c.length == 0 ? Utf8Piece{std::string_view(text.data(), 1), U'\uFFFD', false}
                         : Utf8Piece{std::string_view(text.data(), c.length), c.code_point, true};
}

// Calls `each(piece)` with each Utf8Piece of `text` in order (first_utf8_piece, then the rest):
// their bytes, joined, are `text`. When `each` returns a bool, false stops the walk.
template <typename Each>
void for_each_utf8_piece(std::string_view text, Each&& each) {
    // Whether to go on after `piece`.
    const auto visit = [&each](const Utf8Piece& piece) {
        if constexpr (std::is_same_v<std::invoke_result_t<Each&, const Utf8Piece&>, bool>) {
            return each(piece);
        } else {
            each(piece);
            return true;
        }
    };
    while (!text.empty()) {
        const Utf8Piece piece = first_utf8_piece(text);
        // Read before `each` runs: the next step then waits on no store `each` might make.
        const std::size_t length = piece.bytes.size();
        if (!visit(piece)) {
            return;
        }
        text.remove_prefix(length);
    }
}

// Returns `text` with each piece that `keep(piece)` refuses written by `write(out, piece)`
// instead; the bytes of the pieces kept are copied as they are, a run at a time.
template <typename Keep, typename Write>
std::string rewrite_utf8(std::string_view text, Keep&& keep, Write&& write) {
    std::string out;
    out.reserve(text.size());
    const char* copied_to = text.data();  // the bytes before it are in `out`
    for_each_utf8_piece(text, [&](const Utf8Piece& piece) {
        if (keep(piece)) {
            return;
        }
        out.append(copied_to, static_cast<std::size_t>(piece.bytes.data() - copied_to));
        write(out, piece);
        copied_to = piece.bytes.data() + piece.bytes.size();
    });
    out.append(copied_to, static_cast<std::size_t>(text.data() + text.size() - copied_to));
    return out;
}

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
