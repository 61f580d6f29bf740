#pragma once
// When to try a failed request again: a bounded number of attempts, with exponential backoff
// and full jitter so that retries of many recipients spread out instead of arriving together.

#include <chrono>
#include <cstdint>
#include <functional>

#include "campaign/campaign.hpp"

namespace queue {

// Meta's pair rate (code 131056): the answers one row may get in a run before it ends failed.
inline constexpr int k_pair_rate_max_answers = 5;

// How long a row waits after its `answers`-th pair-rate answer in this run (values below 1 count
// as 1): max(6 s, 4^answers s), as Meta advises. Only that row waits; the queue goes on.
std::chrono::milliseconds pair_rate_wait(int answers);

// A source of uniform random numbers in [0, 1).
using RandomSource = std::function<double()>;

// A RandomSource backed by a std::mt19937_64 seeded with `seed`.
RandomSource make_random_source(std::uint64_t seed);

// Attempt n (1-based) failed; the delay before attempt n + 1 is drawn uniformly from the whole
// milliseconds 0 .. min(max_backoff, initial_backoff x 2^(n-1)), both ends included ("full
// jitter"). Attempts that were rate limited do not count against `max_attempts`: the caller
// leaves them out of `attempts_made`, and the RateLimiter decides when they go again.
// Not thread-safe: backoff() draws from the random source.
class RetryPolicy {
public:
    // A policy for `retry`, jittered by a std::mt19937_64 seeded from std::random_device.
    explicit RetryPolicy(const campaign::Retry& retry);

    // A policy for `retry`, jittered by `random` (values in [0, 1); others are clamped; an empty
    // function means the default source).
    RetryPolicy(const campaign::Retry& retry, RandomSource random);

    // True when another attempt may follow the `attempts_made` counted ones (fewer than
    // `max_attempts`).
    bool may_retry(int attempts_made) const;

    // The delay before the next attempt after `attempts_made` counted ones (values below 1
    // count as 1).
    std::chrono::milliseconds backoff(int attempts_made);

    // The upper end of the jitter range for `attempts_made`: min(max_backoff, initial x 2^(n-1)).
    std::chrono::milliseconds backoff_cap(int attempts_made) const;

private:
    int m_max_attempts;
    std::chrono::milliseconds m_initial;
    std::chrono::milliseconds m_max;
    RandomSource m_random;
};

}  // namespace queue
