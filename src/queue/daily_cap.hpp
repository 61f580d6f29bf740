#pragma once
// The `rate.per_day` cap of a campaign without a ledger (`account.ledger: off`): at most
// `per_day` sends in any trailing 24 hours. Fed from the result log's `sent` results at startup,
// it holds across restarts. With a ledger the ledger counts per_day, for the whole account; the
// runner gives the dispatcher one or the other (docs/decisions/sending.md). Pure: it takes `now`.

#include <algorithm>
#include <chrono>
#include <deque>
#include <optional>
#include <vector>

#include "queue/admission.hpp"

namespace queue {

// A send at `at` counts while now < at + 24 h. Sends are kept as runs, one per second they were
// made in, each counted at the latest time recorded in its second: equal times (a batch's answers,
// the log's minutes, the plan's account count) and times a second or more apart stay exact, and
// sends within one second lift the cap at most a second late, never sooner. At most the newest
// `per_day` sends are kept, and none a day older than the newest: memory is bounded by the
// seconds of a day (86,400 runs), whatever `per_day` (docs/decisions/cli.md). record() accepts
// times in any order. As an admission step, the jobs it admitted and that have not ended count
// as sends (they may be), until settle() says how they ended. Not thread-safe.
class DailyCap final : public Admitter {
public:
    // Admitter: a test send passes over a closed window or a full day rather than wait.
    bool passable() const override { return true; }
    // A cap of `per_day` sends per trailing 24 hours (a value below 0 counts as 0: never send).
    explicit DailyCap(long long per_day);

    // Counts `count` sends made at `at` (in time order or not; none for a count below 1).
    void record(WallTime at, long long count = 1);

    // When the next send at `now` would go over the cap: the time the oldest counted send ages
    // out (or WallTime::max() for a cap of 0). nullopt when a send may go now.
    std::optional<WallTime> blocked_until(WallTime now) const;

    // The sends counted at `now`, at most `per_day`.
    long long sent_in_window(WallTime now) const;

    // The configured cap.
    long long per_day() const { return m_per_day; }

    // The next `count` jobs admitted cost no room, and their sends are not counted: numbers the
    // account messaged in the trailing 24 h count once a day however often they are messaged
    // (the plan's simulation; a run's ledger knows each number).
    void admit_free(long long count) { m_free = std::max(0LL, count); }

    // The runs of sends kept: at most one a second of the trailing day, whatever per_day.
    std::size_t runs() const { return m_runs.size(); }

    // Admitter: per_day less the sends counted at `at` and the jobs started; with none, `why`
    // says "daily cap reached" until the oldest send ages out, or, when jobs not yet answered
    // hold the last room (they may fail and give it back), nothing, to be asked again in a second.
    std::size_t room(Instant at, Admission& why) const override;
    // Admits jobs while there is room; the others wait as room() says. Never fails.
    util::Result<void> admit(std::span<const Job* const> jobs, Instant at, std::vector<Admission>& out) override;
    // Counts the `sent` as sends at `at`, and gives the others' room back.
    void settle(std::size_t ended, std::size_t sent, Instant at) override;

private:
    // Why no job may start at `at`.
    Admission::Later full(Instant at) const;

    // The sends of one second, counted at the latest time recorded in it.
    struct Run {
        WallTime at;
        long long count = 0;
        long long through = 0;  // the sends of this run and every earlier one, plus m_runs' offset
    };

    // The sends of the runs from `first` to the last.
    long long since(std::deque<Run>::const_iterator first) const;
    // Keeps the newest `per_day` sends, and none that ages out a day before the newest.
    void trim();

    long long m_per_day;
    long long m_started = 0;       // admitted, not ended yet
    long long m_free = 0;          // admit_free's jobs still to admit
    long long m_free_started = 0;  // admitted free, not ended yet: the first to end
    std::deque<Run> m_runs;        // sorted by time, one per second: front() is the oldest kept
};

}  // namespace queue
