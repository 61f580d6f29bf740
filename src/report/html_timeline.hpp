#pragma once
// The campaign over time, for the HTML report's charts: outcomes and latencies counted in
// fixed time buckets. The bucket width is chosen from the log's time span up front, so the
// number of buckets (and the memory) is bounded whatever the campaign's length.

#include <array>
#include <cstdint>
#include <optional>
#include <vector>

#include "util/clock.hpp"

namespace report {

enum class Outcome { sent, not_sent };

class Timeline {
public:
    static constexpr std::size_t k_max_buckets = 600;
    // Latencies are kept per bucket in logarithmic bins, 16 per decade (±8 %), up to 1e6 ms.
    static constexpr std::size_t k_latency_bins = 98;

    struct Bucket {
        std::int64_t sent = 0;
        std::int64_t not_sent = 0;  // failed request outcomes, throttled ones included
        std::int64_t latency_max = 0;
        std::array<std::uint32_t, k_latency_bins> latency{};
    };

    // Returns an empty timeline (no buckets).
    Timeline() = default;
    // Returns a timeline covering `first` to `last`, in buckets of a round width (1 s, 2 s,
    // 5 s, …) picked so that at most k_max_buckets are needed.
    Timeline(util::TimePoint first, util::TimePoint last);

    // Counts a request outcome at `at`; times outside the span count in the nearest bucket.
    void add(util::TimePoint at, Outcome outcome);
    // Counts a response that took `ms` milliseconds, received at `at`.
    void add_latency(util::TimePoint at, std::int64_t ms);

    // Returns the width of each bucket.
    util::Millis width() const { return m_width; }
    // Returns the start of the first bucket.
    util::TimePoint origin() const { return m_origin; }
    // Returns the buckets, oldest first.
    const std::vector<Bucket>& buckets() const { return m_buckets; }
    // Returns whether any outcome or latency was added.
    bool empty() const { return !m_used; }

    // Returns the nearest-rank `percent` percentile of `bucket`'s latencies, within its bin's
    // ±8 % (never above the bucket's max); nothing when the bucket has no latency.
    static std::optional<std::int64_t> percentile(const Bucket& bucket, double percent);

private:
    Bucket& bucket_at(util::TimePoint at);

    util::TimePoint m_origin{};
    util::Millis m_width{1000};
    std::vector<Bucket> m_buckets;
    bool m_used = false;
};

}  // namespace report
