#pragma once
// Durations as written in campaign files: "250ms", "15s", "2m", "1h", "1d", or a bare
// number of seconds.

#include <chrono>
#include <string_view>

#include "util/result.hpp"

namespace util {

// Parses `text` ("1.5s", "500ms", "2m", "1h30m", "10"): fails on anything else, on
// negative values and on values over 365 days.
Result<std::chrono::milliseconds> parse_duration(std::string_view text);

}  // namespace util
