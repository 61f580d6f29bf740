#pragma once
// Moments on an IANA time zone's clock, for people: a campaign's times shown in its window's zone
// (else the machine's) beside UTC. Zones come from the system's tzdata (/usr/share/zoneinfo)
// through H. Hinnant's date/tz; nothing is downloaded. Files and JSON keep UTC (util/time.hpp).

#include <chrono>
#include <string>
#include <string_view>

#include "util/clock.hpp"
#include "util/env.hpp"
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
    // The machine's zone, as the C library finds it: `TZ` in `env` when it names a tzdata zone
    // ("Asia/Kolkata", ":Asia/Kolkata", or a path under /usr/share/zoneinfo); when TZ is unset or
    // empty, /etc/localtime's zone. UTC when neither names a zone tzdata has (a POSIX rule such as
    // "IST-5:30", an unconfigured machine). Never fails.
    static TimeZone local(const Environment& env);
    // UTC itself. Never fails.
    static TimeZone utc();

    // The zone's IANA name, as given.
    const std::string& name() const { return m_name; }
    // The zone's offset from UTC at `t` (east positive).
    std::chrono::seconds offset_at(TimePoint t) const;
    // Whether the zone's clock at `t` is UTC itself (UTC, Etc/UTC, Etc/Zulu…; not a zone such as
    // Europe/London that only keeps offset 0 for part of the year): its times need no UTC beside.
    bool is_utc_at(TimePoint t) const;
    // The zone's offset at `t` and the moment that offset's span ends (the zone's next
    // transition, which may keep the offset and change only the abbreviation), for code that
    // compares zones over a stretch of time.
    struct OffsetSpan {
        std::chrono::seconds offset{0};
        TimePoint until{};
    };
    OffsetSpan offset_span(TimePoint t) const;
    // The zone in date/tz, for code that walks its transitions (the send window): a zone from
    // locate() only (local() may stand in for UTC without tzdata).
    const date::time_zone& date_zone() const { return *m_zone; }

private:
    TimeZone(const date::time_zone* zone, std::string name) : m_zone(zone), m_name(std::move(name)) {}

    const date::time_zone* m_zone;  // owned by date's tzdb, which lives as long as the process; null: UTC
    std::string m_name;
};

// Returns `t` on `zone`'s clock, then in UTC in brackets: "10:00 Asia/Kolkata (04:30 UTC)" when
// `t` falls on the zone's day of `now`, else with its date, "2026-11-28 10:00 Asia/Kolkata
// (04:30 UTC)"; the UTC part has a date of its own when it falls on another day than the zone's
// ("2026-11-28 01:00 Asia/Kolkata (2026-11-27 19:30 UTC)"). Seconds only when `t` has some. In UTC
// itself, once: "04:30 UTC". For lines read as they are written (progress, pauses); a moment
// read later (the plan, a summary, a report) is format_moment's.
std::string format_zoned_time(TimePoint t, TimePoint now, const TimeZone& zone);

// Returns `t` for a person who may read it any day: its weekday, date and time on `zone`'s clock
// and the zone's name, then UTC in brackets, with a weekday and date of its own when UTC's day is
// another: "Mon 2026-12-07 09:00 Asia/Kolkata (03:30 UTC)", "Mon 2026-12-07 01:00 Asia/Kolkata
// (Sun 2026-12-06 19:30 UTC)". In UTC itself, once: "Mon 2026-12-07 03:30 UTC". Seconds only when
// `t` has some (fractions are dropped).
std::string format_moment(TimePoint t, const TimeZone& zone);

// Returns format_moment of `t` on the clock of the zone named `zone_name`, for a zone's own
// moments (its window's opening); in UTC when tzdata has no such zone.
std::string format_moment(TimePoint t, std::string_view zone_name);

// Returns `t` on `zone`'s clock only, as format_zoned_time's first part: "10:00 Asia/Kolkata",
// "2026-11-28 10:00 Asia/Kolkata"; "10:00 UTC" in UTC itself.
std::string format_zone_clock(TimePoint t, TimePoint now, const TimeZone& zone);

// Returns `t` as RFC 3339 at `zone`'s offset then, to the millisecond:
// "2026-11-28T10:00:00.000+05:30".
std::string format_zoned_timestamp(TimePoint t, const TimeZone& zone);

}  // namespace util
