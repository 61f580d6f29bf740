#include "queue/rate_limiter.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

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
constexpr double k_unlimited = std::numeric_limits<double>::infinity();
// While unlimited, the send rate is measured over the last second of starts (kept in memory,
// so at most this many of them).
constexpr auto k_measure_window = std::chrono::seconds(1);
constexpr auto k_min_measure_span = std::chrono::milliseconds(100);
constexpr std::size_t k_max_measured = 1'000'000;
// Far beyond any real burst; keeps burst x T inside the 64-bit nanosecond range.
constexpr double k_max_tolerance_ns = 1e17;

// Starts are spaced 0.1 % wider than 1 s / rate: a millisecond a second of margin, so that
// requests that reach the service up to 1 ms closer together than they left (network and
// scheduling jitter) still make no second there with more than per_second + burst.
constexpr double k_pacing_margin = 1.001;

// 1 s / `rate` with the margin, rounded up: a shorter interval would let one request too many
// into a window.
Duration interval_for(double rate) {
    const double ns = std::ceil(static_cast<double>(Duration(seconds(1)).count()) * k_pacing_margin / rate);
    return Duration(std::max<Duration::rep>(1, static_cast<Duration::rep>(ns)));
}

// burst x T, the tolerance of GCRA.
Duration tolerance_for(int burst, Duration interval) {
    const double tolerance = static_cast<double>(burst) * static_cast<double>(interval.count());
    return Duration(static_cast<Duration::rep>(std::min(tolerance, k_max_tolerance_ns)));
}

// The pause after the `n`th consecutive throttle when the service gave no Retry-After.
Duration fallback_pause(int n) {
    Duration pause = k_first_pause;
    for (int i = 1; i < n && pause < k_max_pause; ++i) {
        pause *= 2;
    }
    return std::min<Duration>(pause, k_max_pause);
}

}  // namespace

RateLimiter::RateLimiter(double per_second, int burst)
    : m_configured(per_second == k_unlimited   ? k_unlimited
                   : std::isfinite(per_second) ? std::clamp(per_second, k_min_rate, k_max_rate)
                                               : k_min_rate),
      m_burst(std::max(burst, 0)),
      m_rate(m_configured),
      m_floor(std::min(m_configured, k_floor_rate)) {
    set_rate(m_configured);
    m_tolerance = tolerance_for(m_burst, m_interval);
}

bool RateLimiter::unlimited() const {
    return m_rate == k_unlimited;
}

double RateLimiter::measured_rate(SteadyTime now) {
    while (!m_recent_starts.empty() && now - m_recent_starts.front() >= k_measure_window) {
        m_recent_starts.pop_front();
    }
    // Right after the start, a second of history does not exist yet; a floor keeps a throttle
    // of the very first requests from reading as an absurd rate.
    const Duration since_first = now - m_first_start.value_or(now);
    const Duration span = std::clamp<Duration>(since_first, k_min_measure_span, k_measure_window);
    const double rate = static_cast<double>(m_recent_starts.size()) / std::chrono::duration<double>(span).count();
    return std::clamp(rate, k_floor_rate, k_max_rate);
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

SteadyTime RateLimiter::next_allowed(SteadyTime now, int count) const {
    const SteadyTime first = next_allowed(now);
    if (count <= 1 || unlimited() || !m_tat) {
        return first;
    }
    // All of them conform at t when TAT + (count - 1) x T - tau <= t, and none loses credit
    // while t is not after TAT, which (count - 1) x T <= tau = burst x T ensures.
    const int extra = std::min(count, m_burst + 1) - 1;
    return std::max(first, *m_tat + extra * m_interval - m_tolerance);
}

bool RateLimiter::try_acquire(SteadyTime now) {
    if (next_allowed(now) > now) {
        return false;
    }
    if (unlimited()) {
        // Only counted, for the rate the first throttle decreases from.
        m_first_start = m_first_start.value_or(now);
        m_recent_starts.push_back(now);
        while (now - m_recent_starts.front() >= k_measure_window || m_recent_starts.size() > k_max_measured) {
            m_recent_starts.pop_front();
        }
        return true;
    }
    m_tat = std::max(m_tat.value_or(now), now) + m_interval;
    return true;
}

void RateLimiter::on_throttled(SteadyTime now, std::optional<milliseconds> retry_after,
                               std::optional<SteadyTime> request_started) {
    if (retry_after) {
        retry_after = std::clamp(*retry_after, milliseconds(0), k_max_retry_after);
    }
    const bool same_episode = m_last_decrease && ((m_pause_until && now < *m_pause_until) ||
                                                  (request_started && *request_started <= *m_last_decrease));
    if (same_episode) {
        if (retry_after) {
            m_pause_until = std::max(*m_pause_until, now + *retry_after);
        }
        return;
    }
    if (unlimited()) {
        // From now on the limiter paces, starting from the rate that proved too fast.
        set_rate(measured_rate(now));
        m_tolerance = tolerance_for(m_burst, m_interval);
        m_recent_starts = {};
        m_first_start.reset();
    }
    ++m_consecutive_throttles;
    const Duration pause = retry_after ? Duration(*retry_after) : fallback_pause(m_consecutive_throttles);
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

util::Result<void> RateLimiter::admit(std::span<const Job* const> jobs, Instant at, std::vector<Admission>& out) {
    out.resize(jobs.size());
    for (auto& answer : out) {
        if (try_acquire(at.steady)) {
            answer = Admission{};
        } else {
            answer = Admission::Later{.retry_at = next_allowed(at.steady)};
        }
    }
    return {};
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

}  // namespace queue
