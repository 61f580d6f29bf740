#pragma once
// The account's pace shared by every runner of the account (`account.rate_store`, docs/pace.md):
// the dispatcher takes its send slots from it as well as from its own RateLimiter.
// A slot is a start time, not a permission: the dispatcher starts the requests it was granted
// slots for by the answer's `use_by` or drops the slots, never keeps one for later (a slot used
// late would break the account-wide bound of per_second + burst in any one second).

#include <chrono>
#include <optional>
#include <string>

namespace queue {

struct PaceAnswer {
    int granted = 0;  // slots to use now (0 .. the number asked for)
    // With none granted: when to ask again, and why the wait (empty when it is only the pace
    // itself: other runners took the slots; else "rate store unreachable: …" or the account's
    // shared throttle pause), for the progress line and the log.
    std::chrono::steady_clock::time_point retry_at{};
    std::string reason;
    // With a reason: when the pause ends, when known (a shared throttle's pause).
    std::optional<std::chrono::system_clock::time_point> paused_until;
    // Whether the reason is news to tell once (DispatchObserver::on_pause: the store is
    // unreachable), not only shown on the progress line (a shared throttle's pause, like this
    // runner's own).
    bool notice = false;
    // With slots granted: the latest time their requests may start (their attempt lines). A
    // slot's time is when it was granted; one unused by then is dropped, never used late (a
    // late start could break the bound), and asked for again.
    std::chrono::steady_clock::time_point use_by = std::chrono::steady_clock::time_point::max();
};

class SharedPace {
public:
    virtual ~SharedPace() = default;
    // Asks for `want` (>= 1) slots at `now`. Never grants a slot it cannot vouch for: an error
    // of the store grants none.
    virtual PaceAnswer take(std::chrono::steady_clock::time_point now, int want) = 0;
    // Shares a throttle (429, 130429) seen at `now`, with the service's Retry-After if any: every
    // runner of the account pauses and slows down. Best effort: a store it cannot reach answers
    // the next take() with the reason; the run goes on.
    virtual void throttled(std::chrono::steady_clock::time_point now,
                           std::optional<std::chrono::milliseconds> retry_after) = 0;
};

}  // namespace queue
