#pragma once
// What a run tells the person running it, and asks them. The CLI implements it; the runner
// never prints.

#include <algorithm>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "campaign/pricing.hpp"
#include "queue/job.hpp"
#include "results/replay.hpp"
#include "results/status.hpp"
#include "util/clock.hpp"

namespace util {
class TimeZone;
}  // namespace util

namespace runner {

// What `run` shows before it sends.
struct Preview {
    std::string campaign_name;
    std::string results_path;
    std::int64_t rows = 0;     // data rows in the CSV
    std::int64_t to_send = 0;  // rows that will be sent now: valid, not yet recorded, not held back
    std::int64_t invalid = 0;
    std::int64_t duplicates = 0;
    std::int64_t already_done = 0;   // recorded in the log already (sent, invalid, skipped, held)
    results::CauseCounts held_back;  // rows the account's ledger holds back now, by cause
    std::int64_t recovered = 0;      // rows the log lost and the ledger holds: recorded, not sent
    std::int64_t beyond_limit = 0;   // rows to send left for a later run by --limit
    // Of the rows to send now, those whose numbers the account messaged in the trailing 24 h and
    // 7 days (its ledger; none without one).
    std::optional<std::int64_t> messaged_day;
    std::optional<std::int64_t> messaged_week;
    std::string per_second;   // "10/s", "2.5/s" or "unlimited"
    std::string concurrency;  // "4" or "auto (up to 256)"
    std::string starts;       // "now", or when and why later
    std::string takes;        // "about 5m 00s at 10/s", or empty when the pace is unlimited
    std::string first_wa_id;  // of the first row to be sent
    std::string first_body;   // its message, as JSON
    // The estimate for the rows to send now, and what the campaign spent before: the price of its
    // sent rows (LogState::spent), sent rows without one and rows of unknown outcome at their
    // price on today's card.
    campaign::CostEstimate cost;
    double spent = 0;
    std::int64_t spent_unpriced = 0;  // sent rows without a price, counted at today's card
    std::int64_t spent_unknown = 0;   // rows whose request may have been delivered, counted
    // The category the campaign's earlier sends were made at, when the template list gives the
    // template another now (Meta re-categorised it); empty otherwise. `cost` is at the new one.
    std::string category_was;
};

// What the runner adds to the queue's progress.
struct RunFigures {
    std::int64_t total = 0;          // jobs expected this run (0: unknown)
    results::CauseCounts held_back;  // rows the account's ledger held back this run, by cause
    std::int64_t rows = 0;           // data rows of the list (0: unknown)
    std::int64_t settled = 0;        // of them, rows the result log holds a final record of now

    // Returns the rows the ledger held back, over every cause.
    std::int64_t held_back_total() const {
        std::int64_t n = 0;
        for (auto count : held_back.by_cause) {
            n += count;
        }
        return n;
    }
    // Returns the rows of the list still to go: those the result log holds no final record of
    // yet (not yet attempted, in flight, waiting for a retry or a window, passed over): at the
    // end of a run, the summary's "remaining" (nothing is in flight then); with the list's size unknown, the jobs still
    // to go of `total`; nothing when both are unknown.
    std::optional<std::int64_t> remaining(const queue::Progress& progress) const {
        if (rows > 0) {
            return std::max<std::int64_t>(0, rows - settled);
        }
        return jobs_left(progress);
    }
    // Returns the jobs this run still expects to start: `total` less those `progress` finished
    // and those held back (a --limit run stops short of the list), at most remaining(); for the
    // ETA. Nothing when the total is unknown.
    std::optional<std::int64_t> jobs_left(const queue::Progress& progress) const {
        if (total <= 0) {
            return std::nullopt;
        }
        std::int64_t left =
            std::max<std::int64_t>(0, total - progress.sent - progress.failed - progress.unknown - held_back_total());
        if (rows > 0) {
            left = std::min(left, std::max<std::int64_t>(0, rows - settled));
        }
        return left;
    }
};

class RunUi {
public:
    virtual ~RunUi() = default;
    // Whether a preview and a question should come before sending.
    virtual bool wants_confirmation() const = 0;
    // Shows `preview` and returns whether to go on.
    virtual bool confirm(const Preview& preview) = 0;
    // Whether a person can answer confirm() when asked, though no question comes before every
    // send (`resume` asks only when the template's category changed under the campaign).
    virtual bool can_ask() const { return wants_confirmation(); }
    // An informational line ("continuing from …", "waiting until …").
    virtual void notice(std::string_view text) = 0;
    // The existing log, as the run read it under its lock, before "continuing from …".
    virtual void log_read(const results::LogState& /*state*/) {}
    // A warning line.
    virtual void warning(std::string_view text) = 0;
    // The zone the campaign's times are shown in beside UTC (schedule.window's), told before
    // any wait or progress. Without it times are shown in UTC only.
    virtual void time_zone(const util::TimeZone& /*zone*/) {}
    // The run waits for schedule.start_at `at`: called as the wait begins and about every
    // tenth of a second while it lasts, with the wall clock's `now`.
    virtual void waiting_to_start(util::TimePoint at, util::TimePoint now) = 0;
    // The queue began to wait for the send window or the daily cap: `progress` has its
    // pause_reason and, unless it has no end in sight, paused_until.
    virtual void paused(const queue::Progress& progress) = 0;
    // The queue's state, about once a second, with the runner's figures.
    virtual void progress(const queue::Progress& progress, const RunFigures& figures) = 0;
    // Ends any live progress line, so that what follows starts on a clean line.
    virtual void clear_line() {}
};

}  // namespace runner
