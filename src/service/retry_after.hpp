#pragma once
// The Retry-After header of a throttled answer.

#include <chrono>
#include <optional>
#include <string_view>

namespace service {

// Parses a Retry-After value: delta seconds ("120", "1.5") or an HTTP date in any of its three
// forms (util::parse_http_date); nothing if unparseable. A date in the past gives zero; more
// than a day gives a day.
std::optional<std::chrono::milliseconds> parse_retry_after(std::string_view value,
                                                           std::chrono::system_clock::time_point now);

}  // namespace service
