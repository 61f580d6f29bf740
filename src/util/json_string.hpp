#pragma once
// JSON strings written by hand: the result log's lines and the send-message bodies are built
// without a DOM, on the send path.

#include <fmt/format.h>
#include <string_view>

namespace util {

// Appends `text` to `out` as a JSON string (quotes included). Bytes that are not valid UTF-8
// become U+FFFD, so the output always parses, whatever a CSV cell held.
void append_json_string(fmt::memory_buffer& out, std::string_view text);

}  // namespace util
