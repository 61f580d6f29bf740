#pragma once
// Text from outside (the service, a CSV, a result log) made safe to show on a terminal.

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace util {

enum class LineBreaks {
    escape,  // "\n", like every other control character
    keep,    // '\n' stays a line break (text of several lines)
    space,   // line breaks and tabs become spaces (a cell of a table)
};

// Returns `text` safe to print: control characters escaped ("\n", "\t", "\x1b"), C1 controls
// and bidirectional overrides and isolates as "\u009b", "\u202e", invalid UTF-8 as U+FFFD.
// `breaks` says what becomes of line breaks. An echoed escape sequence could otherwise retitle
// the window, clear the screen or forge lines.
std::string printable(std::string_view text, LineBreaks breaks = LineBreaks::escape);

// Whether code point `cp` is one a terminal or a page would act on or reorder rather than show:
// C0 and C1 controls, DEL, bidirectional embeddings, overrides and isolates.
bool hidden_on_terminal(char32_t cp);

// Returns `json` (a serialised JSON document, valid UTF-8) with what a terminal would act on
// or reorder written as escapes: DEL, C1 controls and bidirectional overrides and isolates as
// "\u007f", "\u009b", "\u202e". They can only be inside strings, so the document means the
// same. (JSON serialisers escape C0 controls themselves.)
std::string json_safe(std::string json);

// Returns `n` with thousands separators: 1234567 → "1,234,567", -18200 → "-18,200".
std::string group_digits(std::int64_t n);

// Returns `n` and `noun`, in the plural unless `n` is 1: "1 duplicate", "3 duplicates". The
// plural is the noun with an "s" unless `plural` gives it.
std::string counted(long long n, std::string_view noun, std::string_view plural = {});

// Returns `text` without the spaces, tabs and line breaks around it.
std::string_view trim(std::string_view text);

// Returns `text` with ASCII letters in lower case; other bytes, UTF-8 included, unchanged.
std::string ascii_lower(std::string_view text);

// Returns `text` with ASCII letters in upper case; other bytes, UTF-8 included, unchanged (no
// locale: "i" is always "I").
std::string ascii_upper(std::string_view text);

// Returns whether `text` begins with `prefix`, ASCII letters compared without regard to case
// (other bytes, UTF-8 included, must be equal).
bool starts_with_nocase(std::string_view text, std::string_view prefix);

enum class HexCase { lower, upper };

// Returns the two hexadecimal digits of `byte`, high first, with letters in `letters` case.
std::array<char, 2> hex_digits(unsigned char byte, HexCase letters = HexCase::lower);

// Returns the value of the hexadecimal digit `c` (either case), or -1 when it is not one.
int hex_value(char c);

// Whether `host_port` ("host", "host:port", "[::1]:port": a URL's authority without its
// credentials) names a host, with a port from 1 to 65535 if any.
bool valid_host_port(std::string_view host_port);

// `text` with its %XX escapes decoded (URL userinfo); nullopt when one is malformed.
std::optional<std::string> percent_decoded(std::string_view text);

}  // namespace util
