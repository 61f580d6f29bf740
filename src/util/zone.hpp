#pragma once
// Moments on an IANA time zone's clock, for people: a campaign's times shown in its window's zone
// beside UTC. Zones come from the system's tzdata (/usr/share/zoneinfo) through H. Hinnant's
// date/tz; nothing is downloaded.

#include <chrono>
#include <string>
#include <string_view>

#include "util/clock.hpp"
#include "util/result.hpp"

namespace date {
class time_zone;  // date/tz.h stays out of headers: it needs the library's compile definitions
}  // namespace date

namespace util {

class TimeZone {
public:
    // The zone named `name` ("Asia/Kolkata", "UTC"); fails, naming it, when tzdata has no such
    // zone or its file cannot be read.
    static Result<TimeZone> locate(std::string_view name);

    // The zone's IANA name, as given.
    const std::string& name() const { return m_name; }
    // The zone's offset from UTC at `t` (east positive).
    std::chrono::seconds offset_at(TimePoint t) const;
    // The zone's offset at `t` and the moment that offset's span ends (the zone's next
    // transition, which may keep the offset and change only the abbreviation), for code that
    // compares zones over a stretch of time.
    struct OffsetSpan {
        std::chrono::seconds offset{0};
        TimePoint until{};
    };
    OffsetSpan offset_span(TimePoint t) const;
    // The zone in date/tz, for code that walks its transitions (the send window).
    const date::time_zone& date_zone() const { return *m_zone; }

private:
    TimeZone(const date::time_zone* zone, std::string name) : m_zone(zone), m_name(std::move(name)) {}

    const date::time_zone* m_zone;  // owned by date's tzdb, which lives as long as the process
    std::string m_name;
};

// Returns `t` on `zone`'s clock, then in UTC in brackets: "10:00 Asia/Kolkata (04:30 UTC)" when
// `t` falls on the zone's day of `now`, else with its date, "2026-11-28 10:00 Asia/Kolkata
// (04:30 UTC)"; the UTC part has a date of its own when it falls on another day than the zone's
// ("2026-11-28 01:00 Asia/Kolkata (2026-11-27 19:30 UTC)"). Seconds only when `t` has some.
std::string format_zoned_time(TimePoint t, TimePoint now, const TimeZone& zone);

// Returns `t` on `zone`'s clock only, as format_zoned_time's first part: "10:00 Asia/Kolkata",
// "2026-11-28 10:00 Asia/Kolkata".
std::string format_zone_clock(TimePoint t, TimePoint now, const TimeZone& zone);

// Returns `t` as RFC 3339 at `zone`'s offset then, to the millisecond:
// "2026-11-28T10:00:00.000+05:30".
std::string format_zoned_timestamp(TimePoint t, const TimeZone& zone);

}  // namespace util
