#pragma once
// Timestamps of the result log: ISO 8601, UTC, milliseconds ("2026-11-21T09:30:00.123Z").

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

#include "util/clock.hpp"

namespace results {

inline constexpr std::size_t k_timestamp_length = 24;  // "2026-11-21T09:30:00.123Z"

// Writes `t` as "YYYY-MM-DDTHH:MM:SS.mmmZ" into `out` (exactly k_timestamp_length chars,
// no terminator). Sub-millisecond digits are dropped; years are clamped to 0000…9999.
void write_timestamp(util::TimePoint t, char* out);

// Returns `t` as "YYYY-MM-DDTHH:MM:SS.mmmZ".
std::string format_timestamp(util::TimePoint t);

// Parses an ISO 8601 date-time with a zone: "2026-11-21T09:30:00Z", "…00.123Z",
// "…00+05:30". Returns nothing for anything else (no zone, out-of-range fields).
std::optional<util::TimePoint> parse_timestamp(std::string_view text);

}  // namespace results
