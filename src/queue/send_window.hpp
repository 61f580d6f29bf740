#pragma once
// `schedule.window`: the weekly hours, in an IANA time zone, when requests may start. Pure: every
// answer is for a given `now`, so the window survives restarts with nothing to remember.

#include <array>
#include <chrono>
#include <optional>
#include <string>
#include <string_view>

#include "campaign/campaign.hpp"
#include "queue/admission.hpp"
#include "util/result.hpp"
#include "util/zone.hpp"

namespace queue {

// The window is open at an instant when that instant's local time in the zone (at the offset in
// force then) falls on a listed weekday, at or after `from` and before `to`. So across DST:
// - spring forward: local times that do not exist are skipped; a window opening in the gap
//   opens at the transition, and 01:00-03:00 is one hour long that night;
// - fall back: the repeated hour counts twice; 01:00-03:00 is three hours long, and a window
//   inside the repeated hour opens twice;
// - `to` 24:00 closes at the next local midnight; back-to-back days (00:00-24:00) merge.
// Zones come from the system's tzdata (/usr/share/zoneinfo); nothing is downloaded.
// As an admission step it holds every job back while closed, the same for every job.
class SendWindow final : public Admitter {
public:
    // Admitter: a test send passes over a closed window or a full day rather than wait.
    bool passable() const override { return true; }
    // The window `window`; fails when tzdata has no zone named `window.timezone` or cannot be read.
    static util::Result<SendWindow> make(const campaign::Window& window);

    // True when requests may start at `now`.
    bool open_at(WallTime now) const;

    // `now` when the window is open; otherwise the first instant after it that is open.
    // nullopt when it never opens (no days).
    std::optional<WallTime> next_open(WallTime now) const;

    // When the opening in force at `now` ends, or when closed the one next_open() finds.
    // nullopt when it never ends (every day 00:00-24:00) or never opens.
    std::optional<WallTime> closes_at(WallTime now) const;

    // nullopt when open at `wall_now`, else next_open() (WallTime::max() when never).
    std::optional<WallTime> closed_until(WallTime wall_now) const;

    // Why it holds jobs back, for people: "outside the send window".
    std::string reason() const;

    // Admitter: none while closed (`why`: until the opening, a notice), else any.
    std::size_t room(Instant at, Admission& why) const override;
    // Every job now while open, else later as room() says. Never fails.
    util::Result<void> admit(std::span<const Job* const> jobs, Instant at, std::vector<Admission>& out) override;

    // The window for people: "mon-fri 09:00-18:00 Asia/Kolkata" (days listed when not a range).
    std::string describe() const;

    // The days and hours of `window` for people, then `zone_label`: "mon-fri 09:00-18:00 in
    // each recipient's zone". Needs no zone from tzdata.
    static std::string describe(const campaign::Window& window, std::string_view zone_label);

    // The window's zone, in which a campaign's times are shown to people beside UTC.
    const util::TimeZone& zone() const { return m_zone; }

private:
    SendWindow(util::TimeZone zone, const campaign::Window& window);

    std::optional<WallTime> first_open(WallTime from) const;
    std::optional<WallTime> first_closed(WallTime from) const;
    bool day_listed(std::chrono::sys_days local_day) const;

    util::TimeZone m_zone;
    std::array<bool, 7> m_days{};  // index = weekday, 0 = Sunday
    std::chrono::minutes m_from;
    std::chrono::minutes m_to;
};

}  // namespace queue
