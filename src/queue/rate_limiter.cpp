#include "queue/rate_limiter.hpp"

#include <algorithm>
#include <cmath>

namespace queue {

namespace {

using Duration = SteadyTime::duration;
using std::chrono::milliseconds;
using std::chrono::seconds;

constexpr double k_min_rate = 0.001;
constexpr double k_max_rate = 1e9;  // one request per nanosecond
constexpr double k_floor_rate = 0.1;
constexpr double k_decrease_factor = 0.5;
constexpr double k_recovery_seconds = 10;
constexpr milliseconds k_first_pause{1'000};
constexpr milliseconds k_max_pause{60'000};
// Retry-After is honoured up to a day: a far-off HTTP date is more likely a broken clock.
constexpr milliseconds k_max_retry_after{24 * 3'600'000};
// Far beyond any real burst; keeps burst x T inside the 64-bit nanosecond range.
constexpr double k_max_tolerance_ns = 1e17;

// 1 s / `rate`, rounded up: a shorter interval would let one request too many into a window.
Duration interval_for(double rate) {
    const double ns = std::ceil(static_cast<double>(Duration(seconds(1)).count()) / rate);
    return Duration(std::max<Duration::rep>(1, static_cast<Duration::rep>(ns)));
}

// The pause after the `n`th consecutive throttle when the service gave no Retry-After.
Duration fallback_pause(int n) {
    Duration pause = k_first_pause;
    for (int i = 1; i < n && pause < k_max_pause; ++i) {
        pause *= 2;
    }
    return std::min<Duration>(pause, k_max_pause);
}

} // namespace

RateLimiter::RateLimiter(double per_second, int burst)
    : m_configured(std::isfinite(per_second) ? std::clamp(per_second, k_min_rate, k_max_rate)
                                             : k_min_rate),
      m_rate(m_configured),
      m_floor(std::min(m_configured, k_floor_rate)) {
    set_rate(m_configured);
    const double tolerance =
        static_cast<double>(std::max(burst, 0)) * static_cast<double>(m_interval.count());
    m_tolerance = Duration(static_cast<Duration::rep>(std::min(tolerance, k_max_tolerance_ns)));
}

SteadyTime RateLimiter::next_allowed(SteadyTime now) const {
    SteadyTime at = now;
    if (m_tat) {
        at = std::max(at, *m_tat - m_tolerance);
    }
    if (m_pause_until) {
        at = std::max(at, *m_pause_until);
    }
    return at;
}

bool RateLimiter::try_acquire(SteadyTime now) {
    if (next_allowed(now) > now) {
        return false;
    }
    m_tat = std::max(m_tat.value_or(now), now) + m_interval;
    return true;
}

void RateLimiter::on_throttled(SteadyTime now, std::optional<milliseconds> retry_after,
                               std::optional<SteadyTime> request_started) {
    if (retry_after) {
        retry_after = std::clamp(*retry_after, milliseconds(0), k_max_retry_after);
    }
    const bool same_episode =
        m_last_decrease &&
        ((m_pause_until && now < *m_pause_until) ||
         (request_started && *request_started <= *m_last_decrease));
    if (same_episode) {
        if (retry_after) {
            m_pause_until = std::max(*m_pause_until, now + *retry_after);
        }
        return;
    }
    ++m_consecutive_throttles;
    const Duration pause = retry_after ? Duration(*retry_after)
                                       : fallback_pause(m_consecutive_throttles);
    m_pause_until = std::max(m_pause_until.value_or(now), now + pause);
    m_last_decrease = now;

    // The rate that proved too fast sets the slope, so the climb scales with the service's
    // real limit, not with an optimistic configuration (and still moves off the floor). In a
    // run of throttles with no success between them, only the first rate proved anything:
    // the later ones meet a service whose window is still full (a Retry-After of 0 halves
    // the rate request after request), and a slope taken from them left the queue crawling
    // at a fraction of the service's rate for minutes.
    if (m_consecutive_throttles == 1) {
        m_climb_per_second = m_rate * (1 - k_decrease_factor) / k_recovery_seconds;
    }
    set_rate(std::max(m_floor, m_rate * k_decrease_factor));
}

void RateLimiter::on_success(SteadyTime now) {
    if (m_pause_until && now < *m_pause_until) {
        return;  // a request that left before the pause says nothing about the service now
    }
    m_consecutive_throttles = 0;
    if (m_rate < m_configured) {
        // One success stands for 1 / rate seconds of sending at the rate in force.
        set_rate(std::min(m_configured, m_rate + m_climb_per_second / m_rate));
    }
}

std::optional<SteadyTime> RateLimiter::paused_until(SteadyTime now) const {
    if (m_pause_until && now < *m_pause_until) {
        return m_pause_until;
    }
    return std::nullopt;
}

void RateLimiter::set_rate(double rate) {
    m_rate = rate;
    m_interval = interval_for(rate);
}

} // namespace queue
