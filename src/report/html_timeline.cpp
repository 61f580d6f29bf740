#include "report/html_timeline.hpp"

#include <algorithm>
#include <cmath>

namespace report {

namespace {

using std::chrono::days;
using std::chrono::hours;
using std::chrono::minutes;
using std::chrono::seconds;

constexpr int k_bins_per_decade = 16;

// Round widths, so that "per second" over a bucket and the axis ticks read naturally.
constexpr std::array<util::Millis, 18> k_widths = {
    seconds(1),  seconds(2),  seconds(5),  seconds(10), seconds(15), seconds(30), minutes(1), minutes(2), minutes(5),
    minutes(10), minutes(15), minutes(30), hours(1),    hours(2),    hours(3),    hours(6),   hours(12),  days(1)};

util::Millis width_for(util::Millis span) {
    const auto limit = static_cast<std::int64_t>(Timeline::k_max_buckets);
    for (util::Millis w : k_widths) {
        if (span.count() / w.count() < limit) {
            return w;
        }
    }
    // Longer than k_max_buckets days: whole days.
    const auto day = util::Millis(days(1)).count();
    return util::Millis(day * (span.count() / day / limit + 1));
}

std::size_t bin_of(std::int64_t ms) {
    if (ms <= 0) {
        return 0;
    }
    const auto bin = 1 + static_cast<std::int64_t>(std::floor(k_bins_per_decade * std::log10(static_cast<double>(ms))));
    return static_cast<std::size_t>(
        std::min<std::int64_t>(bin, static_cast<std::int64_t>(Timeline::k_latency_bins) - 1));
}

// The latency `fraction` (0…1) of the way through `bin`, on its logarithmic scale: with
// the rank's place inside the bin, percentiles of neighbouring buckets do not jump from
// one bin edge to the next.
double inside_bin(std::size_t bin, double fraction) {
    if (bin == 0) {
        return 0;
    }
    return std::pow(10.0, (static_cast<double>(bin - 1) + fraction) / k_bins_per_decade);
}

}  // namespace

Timeline::Timeline(util::TimePoint first, util::TimePoint last)
    : m_origin(first),
      m_width(width_for(std::max(util::Millis(0), std::chrono::duration_cast<util::Millis>(last - first)))) {
    const auto span = std::chrono::duration_cast<util::Millis>(last - first).count();
    m_buckets.resize(static_cast<std::size_t>(std::max<std::int64_t>(0, span) / m_width.count() + 1));
}

Timeline::Bucket& Timeline::bucket_at(util::TimePoint at) {
    if (m_buckets.empty()) {
        m_buckets.resize(1);  // a default-constructed timeline: everything in one bucket
    }
    const auto offset = std::chrono::duration_cast<util::Millis>(at - m_origin).count();
    const auto index =
        std::clamp<std::int64_t>(offset / m_width.count(), 0, static_cast<std::int64_t>(m_buckets.size()) - 1);
    m_used = true;
    return m_buckets[static_cast<std::size_t>(index)];
}

void Timeline::add(util::TimePoint at, Outcome outcome) {
    Bucket& bucket = bucket_at(at);
    if (outcome == Outcome::sent) {
        ++bucket.sent;
    } else {
        ++bucket.not_sent;
    }
}

void Timeline::add_latency(util::TimePoint at, std::int64_t ms) {
    Bucket& bucket = bucket_at(at);
    ms = std::max<std::int64_t>(ms, 0);
    ++bucket.latency[bin_of(ms)];
    bucket.latency_max = std::max(bucket.latency_max, ms);
}

std::optional<std::int64_t> Timeline::percentile(const Bucket& bucket, double percent) {
    std::int64_t count = 0;
    for (auto n : bucket.latency) {
        count += n;
    }
    if (count == 0) {
        return std::nullopt;
    }
    const double exact = std::ceil(percent / 100.0 * static_cast<double>(count));
    const auto rank = std::clamp<std::int64_t>(static_cast<std::int64_t>(exact), 1, count);
    std::int64_t seen = 0;
    for (std::size_t bin = 0; bin < bucket.latency.size(); ++bin) {
        const std::int64_t here = bucket.latency[bin];
        if (seen + here >= rank) {
            const double fraction = (static_cast<double>(rank - seen) - 0.5) / static_cast<double>(here);
            const auto ms = static_cast<std::int64_t>(std::llround(inside_bin(bin, fraction)));
            return std::min(ms, bucket.latency_max);
        }
        seen += here;
    }
    return bucket.latency_max;
}

}  // namespace report
