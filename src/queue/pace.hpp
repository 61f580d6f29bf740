#pragma once
// The pace: how fast requests may start, the last admission step. This runner's own
// (queue::RateLimiter) or the account's pace shared by every runner of the account
// (`account.rate_store`, docs/pace.md: pace::RedisPace). A slot is a start time, not a
// permission: the dispatcher starts the jobs a pace admits by their `use_by` or drops the
// slots, never keeps one for later (a slot used late would break the account-wide bound of
// per_second + burst in any one second).

#include <chrono>
#include <optional>
#include <string>
#include <vector>

#include "queue/admission.hpp"

namespace queue {

class Pace : public Admitter {
public:
    // The service throttled a request at `now` (one that started at `request_started`, when
    // known), with its Retry-After if it sent one: pause and slow down (a shared pace: every
    // runner of the account). Best effort for a shared pace: a store it cannot reach says so at
    // the next admit; the run goes on.
    virtual void on_throttled(SteadyTime now, std::optional<std::chrono::milliseconds> retry_after,
                              std::optional<SteadyTime> request_started) = 0;
};

// What a shared pace answers a request for slots.
struct PaceAnswer {
    int granted = 0;  // slots to use now (0 .. the number asked for)
    // With fewer granted than asked: when to ask again, and why the wait (empty when it is only
    // the pace itself: other runners took the slots; else "rate store unreachable: …" or the
    // account's shared throttle pause), for the progress line and the log.
    SteadyTime retry_at{};
    std::string reason{};
    // With a reason: when the pause ends, when known (a shared throttle's pause).
    std::optional<WallTime> paused_until{};
    // Whether the reason is news to tell once (DispatchObserver::on_pause: the store is
    // unreachable), not only shown on the progress line (a shared throttle's pause, like this
    // runner's own).
    bool notice = false;
    // With slots granted: the latest time their requests may start (their attempt lines). A
    // slot's time is when it was granted; one unused by then is dropped, never used late (a
    // late start could break the bound), and asked for again.
    SteadyTime use_by = SteadyTime::max();
};

// The answers to `asked` jobs of a pace that answered `answer`, into `out`: the first
// answer.granted (at most `asked`) now, by its use_by; the others later, at its retry time, and
// with its reason when none was granted.
void admissions_of(const PaceAnswer& answer, std::size_t asked, std::vector<Admission>& out);

}  // namespace queue
