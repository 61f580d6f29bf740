#include "report/latency_histogram.hpp"

#include <algorithm>
#include <cmath>

namespace report {

namespace {

constexpr std::int64_t k_coarse_buckets =
    (LatencyHistogram::k_coarse_limit_ms - LatencyHistogram::k_fine_limit_ms) / LatencyHistogram::k_coarse_step_ms;
// Fine buckets, coarse buckets, then one for everything slower.
constexpr std::int64_t k_bucket_count = LatencyHistogram::k_fine_limit_ms + k_coarse_buckets + 1;

std::size_t bucket_of(std::int64_t ms) {
    if (ms < LatencyHistogram::k_fine_limit_ms) {
        return static_cast<std::size_t>(ms);
    }
    if (ms < LatencyHistogram::k_coarse_limit_ms) {
        return static_cast<std::size_t>(LatencyHistogram::k_fine_limit_ms +
                                        (ms - LatencyHistogram::k_fine_limit_ms) / LatencyHistogram::k_coarse_step_ms);
    }
    return static_cast<std::size_t>(k_bucket_count - 1);
}

// The smallest latency bucket `index` holds; the overflow bucket has no useful one.
std::int64_t lower_bound_of(std::size_t index) {
    const auto i = static_cast<std::int64_t>(index);
    if (i < LatencyHistogram::k_fine_limit_ms) {
        return i;
    }
    return LatencyHistogram::k_fine_limit_ms +
           (i - LatencyHistogram::k_fine_limit_ms) * LatencyHistogram::k_coarse_step_ms;
}

}  // namespace

LatencyHistogram::LatencyHistogram() : m_buckets(static_cast<std::size_t>(k_bucket_count), 0) {}

void LatencyHistogram::add(std::int64_t ms) {
    ms = std::max<std::int64_t>(ms, 0);
    ++m_buckets[bucket_of(ms)];
    ++m_count;
    m_max = std::max(m_max, ms);
}

std::int64_t LatencyHistogram::percentile(double percent) const {
    if (m_count == 0) {
        return 0;
    }
    // Nearest rank: the smallest latency with at least `percent` % of requests at or below it.
    const double exact = std::ceil(percent / 100.0 * static_cast<double>(m_count));
    const auto rank = std::clamp<std::int64_t>(static_cast<std::int64_t>(exact), 1, m_count);
    std::int64_t seen = 0;
    for (std::size_t i = 0; i + 1 < m_buckets.size(); ++i) {
        seen += m_buckets[i];
        if (seen >= rank) {
            return std::min(lower_bound_of(i), m_max);
        }
    }
    return m_max;
}

}  // namespace report
