#pragma once
// Time as text, both ways: RFC 3339 timestamps (the result log, the campaign file), HTTP dates
// (Retry-After), and moments and durations shown to people. All UTC; no time-zone database.

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

#include "util/clock.hpp"
#include "util/result.hpp"

namespace util {

inline constexpr std::size_t k_timestamp_length = 24;  // "2026-11-21T09:30:00.123Z"

// Writes `t` as "YYYY-MM-DDTHH:MM:SS.mmmZ" into `out` (exactly k_timestamp_length chars,
// no terminator). Sub-millisecond digits are dropped; years are clamped to 0000…9999.
void write_timestamp(TimePoint t, char* out);

// Returns `t` as "YYYY-MM-DDTHH:MM:SS.mmmZ".
std::string format_timestamp(TimePoint t);

enum class TimestampSyntax {
    // RFC 3339 date-time: "2026-11-21T09:30:00Z", "…00.123Z", "…00+05:30" ('t', 'z' too; a
    // leap second :60 reads as the next minute's :00). What the result log is read with.
    rfc3339,
    // RFC 3339 plus what people type: a space for the 'T', no seconds ("09:00+05:30"), and
    // offsets "±HHMM" or "±HH". What the campaign file's start_at takes.
    relaxed,
};

// Parses `text` per `syntax`, keeping fractions to the nanosecond. Fails, with a message
// that follows the quoted text, on a missing offset ("has no UTC offset: …"), an offset
// beyond ±23:59, fields out of range (2025-02-29, 24:00, :61), anything else, and times
// TimePoint cannot hold (about 1678 to 2261).
Result<TimePoint> parse_timestamp(std::string_view text, TimestampSyntax syntax);

// Parses a time of day, "HH:MM" or "H:MM", into minutes after midnight; "24:00", the end of
// a day, gives 1440. Nothing for anything else.
std::optional<int> parse_time_of_day(std::string_view text);

// Parses an HTTP date in any of RFC 9110 §5.6.7's three forms: IMF-fixdate
// ("Sun, 06 Nov 1994 08:49:37 GMT"), RFC 850 ("Sunday, 06-Nov-94 08:49:37 GMT", whose
// two-digit year is the latest one not more than 50 years after `now`) and asctime
// ("Sun Nov  6 08:49:37 1994"). Names are read in any case; nothing if the text is none of
// these, a field is out of range, or the day name is not that date's.
std::optional<TimePoint> parse_http_date(std::string_view text, TimePoint now);

// Returns `t` as "20:20:53 UTC" when it falls on the same UTC day as `now`, else with its
// date, "2026-11-25 20:20:53 UTC", so that a time tomorrow never reads as one already past.
std::string format_wall_time(TimePoint t, TimePoint now);

enum class DurationStyle {
    compact,    // the CLI's lines: "850ms", "12.3s", "4m05s", "2h10m", "1d02h"; "-" before a negative
    report,     // reports: "350 ms", "4.2 s", "12m 03s", "2h 03m 04s", "3d 02h 10m"; negative reads 0
    axis,       // chart ticks: nonzero units only, "0", "45s", "1m30s", "2m", "1h05m", "2d3h"
    countdown,  // time left, in whole seconds rounded up: "5s", "1m 05s", "1h 02m 05s", "2d 01h 02m 05s"
};

// Returns `d` for a person in `style`. Every style but countdown truncates (a clock's
// reading): 59.99 s is "59.9s", never "60.0s", and 119.9 s is "1m59s"; a countdown rounds up,
// so that it reads "1s" until the moment itself, and 0 (or less) reads "0s".
std::string format_duration(Millis d, DurationStyle style);

}  // namespace util
