#pragma once
// Latency percentiles in constant memory: a fixed histogram instead of every sample, so a
// report of millions of requests costs the same ~130 KB as one of ten.

#include <cstdint>
#include <vector>

namespace report {

// Precision: exact to the millisecond below 10 s; rounded down to 100 ms from 10 s to
// 10 min; above 10 min a percentile reports the largest latency seen (kept exactly).
class LatencyHistogram {
public:
    static constexpr std::int64_t k_fine_limit_ms = 10'000;  // 1 ms buckets below
    static constexpr std::int64_t k_coarse_step_ms = 100;
    static constexpr std::int64_t k_coarse_limit_ms = 600'000;  // 100 ms buckets below

    LatencyHistogram();

    // Counts one request that took `ms` milliseconds (negative values count as 0).
    void add(std::int64_t ms);

    // Returns how many latencies were added.
    std::int64_t count() const { return m_count; }
    // Returns the largest latency added (0 when none).
    std::int64_t max() const { return m_max; }
    // Returns the nearest-rank `percent` percentile (0 < percent ≤ 100) at the precision
    // above, never more than max(); 0 when nothing was added.
    std::int64_t percentile(double percent) const;

private:
    std::vector<std::int64_t> m_buckets;
    std::int64_t m_count = 0;
    std::int64_t m_max = 0;
};

}  // namespace report
