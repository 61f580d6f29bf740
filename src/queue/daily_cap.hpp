#pragma once
// The `rate.per_day` cap of a campaign without a ledger (`account.ledger: off`): at most
// `per_day` sends in any trailing 24 hours. Fed from the result log's `sent` results at startup,
// it holds across restarts. With a ledger the ledger counts per_day, for the whole account; the
// runner gives the dispatcher one or the other (docs/decisions.md). Pure: it takes `now`.

#include <chrono>
#include <deque>
#include <optional>
#include <vector>

#include "queue/admission.hpp"

namespace queue {

// A send at `at` counts while now < at + 24 h. Only the newest `per_day` send times are kept,
// sorted (so counting them is a binary search, not a scan), so memory is bounded by `per_day` and
// record() accepts times in any order: older ones can no longer decide when the cap lifts. As an admission step, the
// jobs it admitted and that have not ended count as sends (they may be), until settle() says how they ended. Not
// thread-safe.
class DailyCap final : public Admitter {
public:
    // A cap of `per_day` sends per trailing 24 hours (a value below 0 counts as 0: never send).
    explicit DailyCap(long long per_day);

    // Counts a send made at `at` (in time order or not).
    void record(WallTime at);

    // When the next send at `now` would go over the cap: the time the oldest counted send ages
    // out (or WallTime::max() for a cap of 0). nullopt when a send may go now.
    std::optional<WallTime> blocked_until(WallTime now) const;

    // The sends counted at `now`, at most `per_day`.
    long long sent_in_window(WallTime now) const;

    // The configured cap.
    long long per_day() const { return m_per_day; }

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
    Admission full(Instant at) const;

    long long m_per_day;
    long long m_started = 0;        // admitted, not ended yet
    std::deque<WallTime> m_newest;  // sorted: front() is the oldest kept
};

}  // namespace queue
