#pragma once
// The queue's pacing: a GCRA rate limit that slows down (AIMD) when the service throttles.
// Pure: every answer is for a given `now`; it never sleeps or reads a clock.

#include <chrono>
#include <deque>
#include <optional>

#include "queue/pace.hpp"

namespace queue {

// GCRA (generic cell rate algorithm), kept in integer nanoseconds.
// - Emission interval T = 1 s / rate, rounded *up* to a whole nanosecond.
// - Tolerance tau = burst x T_configured: after an idle spell 1 + `burst` requests may start at
//   once. A request may start at t when t >= TAT - tau; it then sets TAT = max(TAT, t) + T.
// - Guarantee: in any window [a, a + L) at most ceil(L x per_second) + burst requests start, so
//   at most ceil(per_second) + burst in any one second. It holds while throttling too, because
//   the rate in force never exceeds the configured one and tau stays fixed.
// Throttling (AIMD), on a 429 or a rate-limit error code:
// - The whole queue pauses until `now + retry_after` (clamped to 0 .. 24 h); without
//   Retry-After for 1 s, 2 s, 4 s, ... (doubling per consecutive throttle, at most 60 s). A
//   success after the pause ends the run of consecutive throttles.
// - The rate in force halves, but not below min(configured, 0.1/s).
// - Throttles that belong together count as one decrease: one arriving before the last
//   decrease's pause has ended, or for a request that started no later than the last decrease.
//   They may only lengthen the pause (a longer Retry-After).
// - After the pause the rate climbs linearly by (rate before the first decrease of the current
//   run of throttles) / 20 per second of successful sending, up to the configured rate: a
//   halving is won back in 10 s. Each success adds that slope x (1 / rate in force), the time
//   it stands for. Successes during a pause change nothing.
// Unlimited (`per_second` infinite, `rate.per_second: unlimited`): no pacing at all until the
// service throttles; pauses work as above. The first decrease starts from the rate measured over
// the last second of starts (at least 0.1/s; over the time since the first start when that is
// shorter, but no less than 100 ms), and from then on the limiter paces like a configured one
// whose tau is burst x T at that measured rate, climbing without a ceiling: a climb that
// outgrows what the in-flight limit lets through no longer holds anything back.
// As a Pace (this runner's, when the account's pace is not shared) it admits each job that may
// start at once and takes its slot; the others wait until next_allowed().
// Not thread-safe: the dispatcher serialises calls.
class RateLimiter final : public Pace {
public:
    // A limiter for `per_second` (> 0; clamped into [0.001, 1e9]; infinity: unlimited) and
    // `burst` (>= 0; a negative value counts as 0).
    RateLimiter(double per_second, int burst);

    // The earliest time the next request may start: `now` when it may start at once, later
    // while the rate or a pause holds it back.
    SteadyTime next_allowed(SteadyTime now) const;

    // The earliest time `count` requests may start together, none of the rate lost: GCRA lets
    // up to 1 + burst start at once when they are on time. A count of 1 is next_allowed(now);
    // a count above 1 + burst counts as 1 + burst.
    SteadyTime next_allowed(SteadyTime now, int count) const;

    // Takes a slot and returns true when a request may start at `now`; otherwise returns false
    // and changes nothing.
    bool try_acquire(SteadyTime now);

    // The service throttled a request at `now`, with its Retry-After if it sent one; pass
    // `request_started` (when that request left) so that the 429s of requests already in flight
    // count as one decrease.
    void on_throttled(SteadyTime now, std::optional<std::chrono::milliseconds> retry_after,
                      std::optional<SteadyTime> request_started = std::nullopt) override;

    // Pace: takes a slot for each of `jobs` that may start at `at` (now); the others wait
    // until next_allowed() (later, no reason: it is only pacing). Never fails.
    util::Result<void> admit(std::span<const Job* const> jobs, Instant at, std::vector<Admission>& out) override;

    // A request succeeded at `now`: ends a run of throttles and climbs back toward the
    // configured rate (ignored while paused).
    void on_success(SteadyTime now);

    // The rate in force, in requests per second (infinity while unlimited).
    double current_rate() const { return m_rate; }

    // The configured rate, in requests per second (after clamping; infinity for unlimited).
    double configured_rate() const { return m_configured; }

    // The configured burst (after clamping).
    int burst() const { return m_burst; }

    // The spacing of starts at the rate in force (1 ns when unlimited).
    SteadyTime::duration interval() const { return m_interval; }

    // The end of the pause when a throttle pause holds at `now`; nullopt otherwise.
    std::optional<SteadyTime> paused_until(SteadyTime now) const;

private:
    void set_rate(double rate);
    bool unlimited() const;
    double measured_rate(SteadyTime now);

    double m_configured;
    int m_burst;
    double m_rate;
    double m_floor;
    double m_climb_per_second = 0;       // additive increase, requests/s per second
    SteadyTime::duration m_interval{};   // T for the rate in force
    SteadyTime::duration m_tolerance{};  // tau, fixed by the configured rate
    std::optional<SteadyTime> m_tat;     // theoretical arrival time; none before the first
    std::optional<SteadyTime> m_pause_until;
    std::optional<SteadyTime> m_last_decrease;
    int m_consecutive_throttles = 0;
    std::deque<SteadyTime> m_recent_starts;   // while unlimited: the last second's starts
    std::optional<SteadyTime> m_first_start;  // while unlimited
};

}  // namespace queue
