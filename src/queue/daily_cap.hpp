#pragma once
// The `rate.per_day` cap: at most `per_day` sends in any trailing 24 hours. Fed from the result
// log's `sent` results at startup, it holds across restarts. Pure: it takes `now`.

#include <chrono>
#include <optional>
#include <vector>

namespace queue {

using WallTime = std::chrono::system_clock::time_point;

// A send at `at` counts while now < at + 24 h. Only the newest `per_day` send times are kept
// (a min-heap), so memory is bounded by `per_day` and record() accepts times in any order: older
// ones can no longer decide when the cap lifts. Not thread-safe.
class DailyCap {
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

private:
    long long m_per_day;
    std::vector<WallTime> m_newest;  // a min-heap (std::greater): front() is the oldest kept
};

}  // namespace queue
