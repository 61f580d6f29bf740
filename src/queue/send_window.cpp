#include "queue/send_window.hpp"

#include <date/tz.h>
#include <fmt/format.h>
#include <algorithm>
#include <vector>

namespace queue {

namespace {

using namespace std::chrono;

// How far ahead to look for an opening or a closing. A weekly window opens and closes within
// about a week; a year covers every DST rule, so only a window that never opens (or never
// closes) runs out the horizon.
constexpr auto k_horizon = days(400);
constexpr std::string_view k_day_names[] = {"sun", "mon", "tue", "wed", "thu", "fri", "sat"};

// A stretch of time with one UTC offset: within it, local time runs straight alongside UTC.
struct Stretch {
    system_clock::duration offset;
    WallTime end;  // the next change of offset, or `limit` when that comes first
};

Stretch stretch_at(const date::time_zone& zone, WallTime t, WallTime limit) {
    const date::sys_info info = zone.get_info(floor<seconds>(t));
    // Compared in seconds: the last stretch of a zone ends in a year too far for nanoseconds.
    const WallTime end = info.end < ceil<seconds>(limit) ? WallTime(info.end) : limit;
    return {duration_cast<system_clock::duration>(info.offset), end};
}

std::string clock_text(minutes m) {
    return fmt::format("{:02}:{:02}", m.count() / 60, m.count() % 60);
}

// Which weekdays `window` lists, by index (0 = Sunday).
std::array<bool, 7> listed_days(const campaign::Window& window) {
    std::array<bool, 7> days{};
    for (int day : window.days) {
        if (day >= 0 && day < 7) {
            days[static_cast<size_t>(day)] = true;
        }
    }
    return days;
}

// "mon-fri 09:00-18:00 " then `zone_label`; the days listed one by one when not a range.
std::string window_text(const std::array<bool, 7>& days_on, minutes from, minutes to, std::string_view zone_label) {
    // Monday first, as people read a week.
    constexpr int k_week[] = {1, 2, 3, 4, 5, 6, 0};
    std::vector<int> listed;
    for (int day : k_week) {
        if (days_on[static_cast<size_t>(day)]) {
            listed.push_back(day);
        }
    }
    std::string days;
    const auto first = std::find(std::begin(k_week), std::end(k_week), listed.empty() ? -1 : listed.front());
    const bool run = !listed.empty() && std::equal(listed.begin(), listed.end(), first);
    if (listed.size() == 7) {
        days = "every day";
    } else if (run && listed.size() >= 3) {
        days = fmt::format("{}-{}", k_day_names[listed.front()], k_day_names[listed.back()]);
    } else {
        for (int day : listed) {
            days += (days.empty() ? "" : ",") + std::string(k_day_names[day]);
        }
    }
    return fmt::format("{} {}-{} {}", days, clock_text(from), clock_text(to), zone_label);
}

}  // namespace

SendWindow::SendWindow(util::TimeZone zone, const campaign::Window& window)
    : m_zone(std::move(zone)), m_days(listed_days(window)), m_from(window.from_minute), m_to(window.to_minute) {}

util::Result<SendWindow> SendWindow::make(const campaign::Window& window) {
    auto zone = util::TimeZone::locate(window.timezone);
    if (!zone) {
        return util::fail("schedule.window: " + zone.error().message);
    }
    return SendWindow(std::move(*zone), window);
}

bool SendWindow::day_listed(sys_days local_day) const {
    return m_days[weekday(local_day).c_encoding()];
}

bool SendWindow::open_at(WallTime now) const {
    const date::sys_info info = m_zone.date_zone().get_info(floor<seconds>(now));
    const WallTime local = now + info.offset;  // local time, counted like UTC
    const sys_days day = floor<days>(local);
    const auto time_of_day = local - day;
    return day_listed(day) && time_of_day >= m_from && time_of_day < m_to;
}

std::optional<WallTime> SendWindow::first_open(WallTime t) const {
    if (std::none_of(m_days.begin(), m_days.end(), [](bool listed) { return listed; })) {
        return std::nullopt;
    }
    const WallTime limit = t + k_horizon;
    while (t < limit) {
        const Stretch s = stretch_at(m_zone.date_zone(), t, limit);
        const WallTime local = t + s.offset;
        const WallTime local_end = s.end + s.offset;
        for (sys_days day = floor<days>(local); day < local_end; day += days(1)) {
            const WallTime opens = std::max<WallTime>(day + m_from, local);
            if (day_listed(day) && opens < std::min<WallTime>(day + m_to, local_end)) {
                return opens - s.offset;
            }
        }
        // Not in this stretch: the offset changes at its end, and local time jumps with it.
        t = s.end;
    }
    return std::nullopt;
}

std::optional<WallTime> SendWindow::first_closed(WallTime t) const {
    const WallTime limit = t + k_horizon;
    while (t < limit) {
        const Stretch s = stretch_at(m_zone.date_zone(), t, limit);
        WallTime local = t + s.offset;
        const WallTime local_end = s.end + s.offset;
        while (local < local_end) {
            const sys_days day = floor<days>(local);
            const auto time_of_day = local - day;
            if (!day_listed(day) || time_of_day < m_from || time_of_day >= m_to) {
                return local - s.offset;
            }
            // The end of this day's opening; with `to` 24:00 the next day's may follow at once.
            local = day + m_to;
        }
        t = s.end;
    }
    return std::nullopt;
}

std::optional<WallTime> SendWindow::next_open(WallTime now) const {
    return first_open(now);
}

std::optional<WallTime> SendWindow::closes_at(WallTime now) const {
    const auto opens = first_open(now);
    if (!opens) {
        return std::nullopt;
    }
    return first_closed(*opens);
}

std::optional<WallTime> SendWindow::closed_until(WallTime wall_now) const {
    const auto opens = first_open(wall_now);
    if (opens && *opens == wall_now) {
        return std::nullopt;
    }
    return opens.value_or(WallTime::max());
}

std::string SendWindow::reason() const {
    return "outside the send window";
}

std::size_t SendWindow::room(Instant at, Admission& why) const {
    const auto until = closed_until(at.wall);
    if (!until) {
        return k_any_room;
    }
    // Asked again at the opening, and every second meanwhile: the wall clock may be set.
    Admission::Later wait = later_until(at, until, std::chrono::seconds(1));
    if (*until == WallTime::max()) {
        wait.until.reset();
    }
    wait.reason = reason();
    wait.notice = true;
    why = std::move(wait);
    return 0;
}

util::Result<void> SendWindow::admit(std::span<const Job* const> jobs, Instant at, std::vector<Admission>& out) {
    Admission answer;
    room(at, answer);
    out.assign(jobs.size(), answer);
    return {};
}

std::string SendWindow::describe() const {
    return window_text(m_days, m_from, m_to, m_zone.name());
}

std::string SendWindow::describe(const campaign::Window& window, std::string_view zone_label) {
    return window_text(listed_days(window), minutes(window.from_minute), minutes(window.to_minute), zone_label);
}

}  // namespace queue
