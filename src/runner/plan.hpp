#pragma once
// The campaign's plan (`validate`, the dry run): when its first and last messages would go out,
// found by running the queue's own dispatcher, with the run's own admission steps
// (runner::make_steps), over the rows to send on a simulated clock that moves only when the
// dispatcher waits, and a transport that answers every request at once with a success. One set
// of rules: the plan cannot disagree with the run it predicts (the service's answers aside).

#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "campaign/campaign.hpp"
#include "queue/zone_windows.hpp"
#include "results/records.hpp"
#include "util/clock.hpp"
#include "util/result.hpp"
#include "util/zone.hpp"

namespace runner {

class AccountBook;

// Hours of the plan's messages-per-hour counts: the first 62 days from the first send's hour.
inline constexpr std::size_t k_plan_hours = 62 * 24;

struct Plan {
    enum class Kind {
        timed,      // first and last are known
        unbounded,  // unlimited rate, no per_day, no window: as fast as the service answers
        never,      // not one message would go out (`why`): a window with no days, the deadline
    };
    Kind kind = Kind::timed;
    std::int64_t messages = 0;  // rows that would be sent
    std::int64_t planned = 0;   // of them, those the plan sends (fewer when the deadline stops it)
    std::optional<util::TimePoint> first;
    std::optional<util::TimePoint> last;
    std::int64_t days = 0;                // calendar days from first to last, both counted, in `zone`
    std::string zone = "UTC";             // the window's zone, else UTC
    double per_second = 0;                // rate.per_second (infinity: unlimited)
    std::optional<long long> per_day;     // the account's per_day in force
    std::string per_day_source;           // "rate.per_day" or "account.messaging_limit"
    std::optional<long long> room_today;  // per_day less the account's sends in the trailing 24 h (the ledger)
    bool room_for_all = false;            // room_today is only known to hold every message (it is `messages`)
    // Of the messages, those whose numbers the account messaged in the trailing 24 h and 7 days
    // (its ledger; none without one): the first cost no new room of per_day.
    std::optional<std::int64_t> messaged_day;
    std::optional<std::int64_t> messaged_week;
    std::string window;  // the send window for people; empty: none
    std::string why;     // never, or fewer planned than messages: why
    std::string note;    // what the plan leaves out, for people; empty: nothing
    // Messages per hour, from the hour of the first send, for at most k_plan_hours; a longer plan
    // counts only its first k_plan_hours.
    std::vector<std::int64_t> per_hour;

    // Whether the campaign is larger than a day of per_day.
    bool larger_than_a_day() const { return per_day && messages > *per_day; }
};

// The zones of the rows to send, in CSV order, for a window per recipient
// (schedule.window.timezone: recipient): written as the rows are read, read back by the plan's
// jobs. Two bytes a row, in an unnamed temporary file beyond 64 KiB: memory stays flat.
class ZoneSequence {
public:
    // For the window `window` (its per_recipient set).
    explicit ZoneSequence(const campaign::Window& window);
    ZoneSequence(ZoneSequence&&) noexcept;
    ZoneSequence& operator=(ZoneSequence&&) noexcept;
    ~ZoneSequence();

    // Adds the next row to send, in the zone named `zone`. Fails when tzdata has no such zone or
    // the temporary file cannot be written.
    util::Result<void> add(const std::string& zone);

    // Rows added.
    std::int64_t size() const;

    // The zones' windows, asked by the plan's dispatch (queue::ZoneWindows).
    queue::ZoneWindows& windows();

    // Reads the rows back from the first, one call a row: the zone index (ZoneWindows::zone) of
    // the next row, or false at the end.
    util::Result<bool> next(int& zone);

private:
    struct Impl;
    std::unique_ptr<Impl> m_impl;
};

// What the plan is computed from besides the campaign.
struct PlanInputs {
    std::int64_t messages = 0;  // rows that would be sent
    // Of them, those whose numbers the account messaged in the trailing 24 h and 7 days (read
    // with the ledger's screening, runner::RecentlyMessaged).
    std::int64_t messaged_day = 0;
    std::int64_t messaged_week = 0;
    util::TimePoint now;          // the plan starts at max(now, schedule.start_at)
    AccountBook* book = nullptr;  // the account's ledger, read only: its per_day room now; null: none
    // With a window per recipient, the zones of the `messages` rows, in order: the plan keeps
    // each row's window on its own zone's clock, as the run does. Null: the window is planned on
    // schedule.window.fallback_timezone's clock (said in Plan::note).
    ZoneSequence* zones = nullptr;
};

// Returns the plan of campaign `c` for `in.messages` rows. Fails when the send window's zone
// cannot be read, or the ledger cannot.
util::Result<Plan> make_plan(const campaign::Campaign& c, const PlanInputs& in);

// The name of `kind` in JSON: "timed", "unbounded" or "never".
std::string_view to_string(Plan::Kind kind);

// The plan as a dry run's `end` record keeps it.
results::PlanSummary summary_of(const Plan& plan);

// The plan for people, a few lines each starting with "plan: " or two spaces, its times on
// `shown`'s clock beside UTC (runner::shown_zone): "plan: 60,000 messages from Mon 2026-11-30
// 09:00 Asia/Kolkata (03:30 UTC) to Fri 2026-12-04 17:12 Asia/Kolkata (11:42 UTC) (5 days) at 10/s, …".
std::string describe(const Plan& plan, const util::TimeZone& shown = util::TimeZone::utc());

}  // namespace runner
