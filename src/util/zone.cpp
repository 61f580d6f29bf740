#include "util/zone.hpp"

#include <date/tz.h>
#include <fmt/format.h>
#include <exception>

#include "util/time.hpp"

namespace util {

namespace {

using namespace std::chrono;

// The fields are written by hand: fmt 9 formats a system_clock time point through localtime(),
// so its %H under TZ=Asia/Kolkata would be Kolkata's hour, not the one asked for.

// "2026-12-07".
std::string date_text(sys_days day) {
    const year_month_day ymd{day};
    return fmt::format("{:04}-{:02}-{:02}", static_cast<int>(ymd.year()), static_cast<unsigned>(ymd.month()),
                       static_cast<unsigned>(ymd.day()));
}

// "10:00", or "10:00:53" when `t` has seconds.
std::string time_text(sys_seconds t) {
    const hh_mm_ss hms{t - floor<days>(t)};
    const auto h = hms.hours().count();
    const auto m = hms.minutes().count();
    const auto sec = hms.seconds().count();
    return sec == 0 ? fmt::format("{:02}:{:02}", h, m) : fmt::format("{:02}:{:02}:{:02}", h, m, sec);
}

// "10:00", or "10:00:53" when `t` has seconds; with its date first unless on `today`.
std::string clock_text(sys_seconds t, sys_days today) {
    const sys_days day = floor<days>(t);
    return day == today ? time_text(t) : date_text(day) + " " + time_text(t);
}

// "Mon 2026-12-07 10:00": the weekday in English whatever the locale.
std::string day_clock_text(sys_seconds t) {
    constexpr const char* k_names[] = {"Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"};
    const sys_days day = floor<days>(t);
    return fmt::format("{} {} {}", k_names[weekday(day).c_encoding()], date_text(day), time_text(t));
}

// The name a zone's times are shown with: "UTC" for UTC itself, whatever tzdata calls it.
std::string shown_name(const TimeZone& zone, TimePoint t) {
    return zone.is_utc_at(t) ? std::string("UTC") : zone.name();
}

// Where tzdata keeps its files: a TZ of "/usr/share/zoneinfo/Asia/Kolkata" names Asia/Kolkata.
constexpr std::string_view k_zoneinfo = "/usr/share/zoneinfo/";

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

TimeZone TimeZone::local(const Environment& env) {
    if (auto tz = env.get("TZ")) {
        std::string_view name = *tz;
        name.remove_prefix(name.starts_with(':') ? 1 : 0);
        name.remove_prefix(name.starts_with(k_zoneinfo) ? k_zoneinfo.size() : 0);
        auto zone = locate(name);  // glibc reads an empty TZ as UTC too
        return zone && !name.empty() ? *zone : utc();
    }
    try {
        const date::time_zone* zone = date::current_zone();
        (void)zone->get_info(floor<seconds>(system_clock::now()));
        return TimeZone(zone, std::string(zone->name()));
    } catch (const std::exception&) {
        return utc();
    }
}

TimeZone TimeZone::utc() {
    auto zone = locate("UTC");
    return zone ? *zone : TimeZone(nullptr, "UTC");  // without tzdata: offset 0, no transitions
}

seconds TimeZone::offset_at(TimePoint t) const {
    return m_zone != nullptr ? m_zone->get_info(floor<seconds>(t)).offset : seconds(0);
}

bool TimeZone::is_utc_at(TimePoint t) const {
    if (m_zone == nullptr) {
        return true;
    }
    const auto info = m_zone->get_info(floor<seconds>(t));
    return info.offset == seconds(0) && info.abbrev == "UTC";
}

TimeZone::OffsetSpan TimeZone::offset_span(TimePoint t) const {
    if (m_zone == nullptr) {
        return {seconds(0), TimePoint::max()};
    }
    const auto info = m_zone->get_info(floor<seconds>(t));
    // A zone with no later transition ends at sys_seconds::max(), beyond what TimePoint holds.
    const auto last = floor<seconds>(TimePoint::max());
    return {info.offset, info.end >= last ? TimePoint::max() : TimePoint(info.end)};
}

std::string format_zone_clock(TimePoint t, TimePoint now, const TimeZone& zone) {
    const sys_seconds local = floor<seconds>(t) + zone.offset_at(t);
    const sys_days today = floor<days>(floor<seconds>(now) + zone.offset_at(now));
    return clock_text(local, today) + " " + shown_name(zone, t);
}

std::string format_zoned_time(TimePoint t, TimePoint now, const TimeZone& zone) {
    if (zone.is_utc_at(t)) {
        return format_zone_clock(t, now, zone);
    }
    const sys_seconds utc = floor<seconds>(t);
    const sys_days local_day = floor<days>(utc + zone.offset_at(t));
    return fmt::format("{} ({} UTC)", format_zone_clock(t, now, zone), clock_text(utc, local_day));
}

std::string format_moment(TimePoint t, const TimeZone& zone) {
    const sys_seconds utc = floor<seconds>(t);
    const sys_seconds local = utc + zone.offset_at(t);
    std::string text = day_clock_text(local) + " " + shown_name(zone, t);
    if (zone.is_utc_at(t)) {
        return text;
    }
    const bool same_day = floor<days>(local) == floor<days>(utc);
    return fmt::format("{} ({} UTC)", text, same_day ? time_text(utc) : day_clock_text(utc));
}

std::string format_moment(TimePoint t, std::string_view zone_name) {
    auto zone = TimeZone::locate(zone_name);
    return format_moment(t, zone ? *zone : TimeZone::utc());
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
