#include "queue/retry_policy.hpp"

#include <algorithm>
#include <cmath>
#include <memory>
#include <random>
#include <utility>

namespace queue {

using std::chrono::milliseconds;

namespace {

// Different for every run: jitter exists to keep separate runs from retrying in step.
std::uint64_t random_seed() {
    std::random_device device;
    return (static_cast<std::uint64_t>(device()) << 32) ^ device();
}

}  // namespace

milliseconds pair_rate_wait(int answers) {
    constexpr milliseconds k_floor{6'000};
    constexpr milliseconds k_ceiling{24LL * 3600 * 1000};  // far beyond k_pair_rate_max_answers: no overflow
    milliseconds wait{1'000};
    for (int n = 0; n < std::max(answers, 1) && wait < k_ceiling; ++n) {
        wait *= 4;
    }
    return std::clamp(wait, k_floor, k_ceiling);
}

RandomSource make_random_source(std::uint64_t seed) {
    // Shared so that copies of the RandomSource draw from one sequence.
    auto engine = std::make_shared<std::mt19937_64>(seed);
    return [engine] { return std::uniform_real_distribution<double>(0.0, 1.0)(*engine); };
}

RetryPolicy::RetryPolicy(const campaign::Retry& retry) : RetryPolicy(retry, make_random_source(random_seed())) {}

RetryPolicy::RetryPolicy(const campaign::Retry& retry, RandomSource random)
    : m_max_attempts(retry.max_attempts),
      m_initial(std::max(retry.initial_backoff, milliseconds(0))),
      m_max(std::max(retry.max_backoff, milliseconds(0))),
      m_random(random ? std::move(random) : make_random_source(random_seed())) {}

bool RetryPolicy::may_retry(int attempts_made) const {
    return attempts_made < m_max_attempts;
}

milliseconds RetryPolicy::backoff_cap(int attempts_made) const {
    milliseconds cap = std::min(m_initial, m_max);
    // Doubling stops at the cap, so a large `attempts_made` cannot overflow.
    for (int n = 1; n < attempts_made && cap < m_max && cap.count() > 0; ++n) {
        cap = std::min(cap * 2, m_max);
    }
    return cap;
}

milliseconds RetryPolicy::backoff(int attempts_made) {
    const milliseconds cap = backoff_cap(attempts_made);
    double u = m_random();
    if (!(u >= 0.0)) {  // also catches NaN
        u = 0.0;
    }
    u = std::min(u, 1.0);
    // cap + 1 whole values, so that the cap itself is reachable from [0, 1).
    const auto drawn = static_cast<milliseconds::rep>(std::floor(u * static_cast<double>(cap.count() + 1)));
    return milliseconds(std::min(drawn, cap.count()));
}

}  // namespace queue
