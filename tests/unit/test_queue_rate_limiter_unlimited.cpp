#include <doctest/doctest.h>

#include <cmath>
#include <limits>

#include "fakes.hpp"
#include "queue/rate_limiter.hpp"

using namespace std::chrono_literals;
using queue::RateLimiter;
using queue::SteadyTime;

namespace {

constexpr double k_unlimited = std::numeric_limits<double>::infinity();

// Starts `count` requests `gap` apart from `t`, each answered with success at once; returns
// the time of the last.
SteadyTime start_spaced(RateLimiter& limiter, SteadyTime t, int count, SteadyTime::duration gap) {
    for (int i = 0; i < count; ++i) {
        if (i > 0) {
            t += gap;
        }
        REQUIRE(limiter.try_acquire(t));
        limiter.on_success(t);
    }
    return t;
}

}  // namespace

TEST_SUITE("queue::RateLimiter unlimited") {
    TEST_CASE("never holds a request back until the service throttles") {
        fakes::FakeClock clock;
        const SteadyTime t0 = clock.steady_now();
        RateLimiter limiter(k_unlimited, 0);
        for (int i = 0; i < 10'000; ++i) {
            REQUIRE(limiter.next_allowed(t0) == t0);
            REQUIRE(limiter.try_acquire(t0));
        }
        CHECK(std::isinf(limiter.current_rate()));
        CHECK(std::isinf(limiter.configured_rate()));
        CHECK_FALSE(limiter.paused_until(t0).has_value());
    }

    TEST_CASE("a NaN rate is still the slowest rate, not unlimited") {
        RateLimiter limiter(std::nan(""), 0);
        CHECK(limiter.current_rate() == doctest::Approx(0.001));
    }

    TEST_CASE("the first throttle pauses and halves the rate measured over the last second") {
        fakes::FakeClock clock;
        const SteadyTime t0 = clock.steady_now();
        RateLimiter limiter(k_unlimited, 0);
        const SteadyTime t = start_spaced(limiter, t0, 1'000, 2ms);  // 500/s for 2 s
        limiter.on_throttled(t, std::nullopt);
        CHECK(limiter.current_rate() == doctest::Approx(250));
        CHECK(limiter.paused_until(t) == t + 1s);
        CHECK(limiter.next_allowed(t) == t + 1s);
    }

    TEST_CASE("a throttle of the very first requests measures over at least 100 ms") {
        fakes::FakeClock clock;
        const SteadyTime t0 = clock.steady_now();
        RateLimiter limiter(k_unlimited, 0);
        for (int i = 0; i < 32; ++i) {
            REQUIRE(limiter.try_acquire(t0));
        }
        limiter.on_throttled(t0 + 10ms, 0ms);
        CHECK(limiter.current_rate() == doctest::Approx(160));  // 32 in 100 ms, halved
    }

    TEST_CASE("after a throttle it paces at the rate in force, then climbs past the measured rate") {
        fakes::FakeClock clock;
        const SteadyTime t0 = clock.steady_now();
        RateLimiter limiter(k_unlimited, 0);
        SteadyTime t = start_spaced(limiter, t0, 400, 5ms);  // 200/s for 2 s
        limiter.on_throttled(t, 0ms);
        REQUIRE(limiter.current_rate() == doctest::Approx(100));
        REQUIRE(limiter.try_acquire(t));
        CHECK(limiter.next_allowed(t) == t + 10010us);  // with the pacing margin
        // The climb has no ceiling: 200 x 0.5 / 10 = 10/s per second of sending.
        const SteadyTime end = t + 30s;
        while (t < end) {
            t = limiter.next_allowed(t);
            REQUIRE(limiter.try_acquire(t));
            limiter.on_success(t);
        }
        CHECK(limiter.current_rate() > 200);
    }

    TEST_CASE("after the first throttle it paces like a limiter configured at the measured rate") {
        fakes::FakeClock clock;
        const SteadyTime t0 = clock.steady_now();
        RateLimiter unlimited(k_unlimited, 3);
        CHECK(unlimited.burst() == 3);
        SteadyTime t = start_spaced(unlimited, t0, 200, 10ms);  // 100/s for 2 s
        RateLimiter configured(100, 3);
        unlimited.on_throttled(t, 0ms);
        configured.on_throttled(t, 0ms);
        REQUIRE(unlimited.current_rate() == doctest::Approx(50));
        // The same burst after an idle spell, the same spacing, the same climb.
        t += 10s;
        for (int i = 0; i < 100; ++i) {
            t = configured.next_allowed(t);
            REQUIRE(unlimited.next_allowed(t) == t);
            REQUIRE(unlimited.try_acquire(t));
            REQUIRE(configured.try_acquire(t));
            unlimited.on_success(t);
            configured.on_success(t);
        }
        CHECK(unlimited.current_rate() == doctest::Approx(configured.current_rate()));
        CHECK(unlimited.current_rate() > 50);
    }
}
