#include "util/zone.hpp"

#include <date/tz.h>
#include <fmt/chrono.h>
#include <fmt/format.h>
#include <exception>

#include "util/time.hpp"

namespace util {

namespace {

using namespace std::chrono;

// "10:00", or "10:00:53" when `t` has seconds; with its date first unless on `today`.
std::string clock_text(sys_seconds t, sys_days today) {
    const sys_days day = floor<days>(t);
    const char* time = (t - day) % minutes(1) == seconds(0) ? "{:%H:%M}" : "{:%H:%M:%S}";
    std::string text = fmt::format(fmt::runtime(time), t);
    return day == today ? text : fmt::format("{:%Y-%m-%d} {}", day, text);
}

}  // namespace

Result<TimeZone> TimeZone::locate(std::string_view name) {
    try {
        const date::time_zone* zone = date::locate_zone(name);
        // The OS tzdb reads a zone's file on first use: read it now, so a bad file fails here.
        (void)zone->get_info(floor<seconds>(system_clock::now()));
        return TimeZone(zone, std::string(name));
    } catch (const std::exception& e) {
        return fail(fmt::format("time zone \"{}\" cannot be used: {}", name, e.what()));
    }
}

seconds TimeZone::offset_at(TimePoint t) const {
    return m_zone->get_info(floor<seconds>(t)).offset;
}

TimeZone::OffsetSpan TimeZone::offset_span(TimePoint t) const {
    const auto info = m_zone->get_info(floor<seconds>(t));
    // A zone with no later transition ends at sys_seconds::max(), beyond what TimePoint holds.
    const auto last = floor<seconds>(TimePoint::max());
    return {info.offset, info.end >= last ? TimePoint::max() : TimePoint(info.end)};
}

std::string format_zone_clock(TimePoint t, TimePoint now, const TimeZone& zone) {
    const sys_seconds local = floor<seconds>(t) + zone.offset_at(t);
    const sys_days today = floor<days>(floor<seconds>(now) + zone.offset_at(now));
    return clock_text(local, today) + " " + zone.name();
}

std::string format_zoned_time(TimePoint t, TimePoint now, const TimeZone& zone) {
    const sys_seconds utc = floor<seconds>(t);
    const sys_days local_day = floor<days>(utc + zone.offset_at(t));
    return fmt::format("{} ({} UTC)", format_zone_clock(t, now, zone), clock_text(utc, local_day));
}

std::string format_zoned_timestamp(TimePoint t, const TimeZone& zone) {
    const seconds offset = zone.offset_at(t);
    std::string text = format_timestamp(t + offset);  // local time, counted like UTC: "…T10:00:00.000Z"
    text.pop_back();
    const auto east = abs(offset);
    return text + fmt::format("{}{:02}:{:02}", offset < seconds(0) ? '-' : '+', duration_cast<hours>(east).count(),
                              duration_cast<minutes>(east).count() % 60);
}

}  // namespace util
