#pragma once
// Sends per second over the last few seconds, for the progress line, counted in 100 ms buckets
// of a fixed ring: the memory is the same at 10 sends a second as at 50,000 (a list of send
// times held a quarter of a million entries at full speed).

#include <array>
#include <chrono>
#include <cstdint>
#include <numeric>

namespace queue {

class SendRate {
public:
    using Steady = std::chrono::steady_clock::time_point;
    static constexpr std::chrono::milliseconds k_bucket{100};
    static constexpr int k_buckets = 50;  // 5 s

    // Counts one send at `now` (times never go back).
    void add(Steady now) {
        advance(now);
        ++m_counts[static_cast<std::size_t>(m_latest % k_buckets)];
    }

    // Returns the sends per second over the window ending at `now`.
    double per_second(Steady now) {
        advance(now);
        const auto total = std::accumulate(m_counts.begin(), m_counts.end(), std::int64_t{0});
        return static_cast<double>(total) / (std::chrono::duration<double>(k_bucket).count() * k_buckets);
    }

private:
    void advance(Steady now) {
        const std::int64_t bucket = now.time_since_epoch() / k_bucket;
        if (m_latest < 0 || bucket - m_latest >= k_buckets) {
            m_counts.fill(0);
            m_latest = bucket;
            return;
        }
        while (m_latest < bucket) {
            ++m_latest;
            m_counts[static_cast<std::size_t>(m_latest % k_buckets)] = 0;
        }
    }

    std::array<std::int64_t, k_buckets> m_counts{};
    std::int64_t m_latest = -1;  // index of the newest bucket
};

}  // namespace queue
