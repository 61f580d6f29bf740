#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <optional>
#include <queue>
#include <random>
#include <string>
#include <vector>

#include "fakes.hpp"
#include "queue/job.hpp"
#include "queue/rate_limiter.hpp"

using namespace std::chrono_literals;
using queue::RateLimiter;
using queue::SteadyTime;

constexpr double k_unlimited = std::numeric_limits<double>::infinity();

namespace {

// The most starts in any window [a, a + `window`) of the sorted `starts`.
long long max_in_window(const std::vector<SteadyTime>& starts, SteadyTime::duration window) {
    long long most = 0;
    std::size_t first = 0;
    for (std::size_t last = 0; last < starts.size(); ++last) {
        while (starts[last] - starts[first] >= window) {
            ++first;
        }
        most = std::max(most, static_cast<long long>(last - first + 1));
    }
    return most;
}

// Acquires `count` slots, each as soon as the limiter allows; with `rng`, the caller sometimes
// comes late (idle gaps up to 3 s) and the service sometimes throttles.
std::vector<SteadyTime> drive(RateLimiter& limiter, SteadyTime t, int count, std::mt19937_64* rng = nullptr) {
    std::vector<SteadyTime> starts;
    std::uniform_int_distribution<int> dice(0, 99);
    std::uniform_int_distribution<long long> gap_ms(1, 3'000);
    while (static_cast<int>(starts.size()) < count) {
        t = limiter.next_allowed(t);
        if (rng && dice(*rng) < 5) {
            t += std::chrono::milliseconds(gap_ms(*rng));
        }
        REQUIRE(limiter.try_acquire(t));
        starts.push_back(t);
        if (rng && dice(*rng) < 2) {
            limiter.on_throttled(t, std::nullopt);
        } else {
            limiter.on_success(t);
        }
    }
    return starts;
}

// A service that takes `rate` requests per second (a token bucket `depth` deep) and throttles
// the rest.
struct SimulatedService {
    double rate;
    double depth;
    SteadyTime last;
    double tokens = depth;

    bool accept(SteadyTime t) {
        const std::chrono::duration<double> dt = t - last;
        tokens = std::min(depth, tokens + dt.count() * rate);
        last = t;
        if (tokens < 1) {
            return false;
        }
        tokens -= 1;
        return true;
    }
};

struct SimulationSetup {
    std::chrono::seconds duration{60};
    std::chrono::milliseconds latency{0};
    std::size_t concurrency = 1;
    std::optional<std::chrono::milliseconds> retry_after;
};

struct SimulationOutcome {
    long long sent = 0;
    long long throttled = 0;  // 429s received
    long long decreases = 0;  // of them, those that lowered the rate
};

// Runs `limiter` against `service` as a dispatcher would: starts requests when the limiter
// allows and a concurrency slot is free, reports each response after `latency`.
SimulationOutcome simulate(RateLimiter& limiter, SimulatedService& service, SteadyTime t,
                           const SimulationSetup& setup) {
    struct InFlight {
        SteadyTime done;
        SteadyTime started;
        bool ok;
        bool operator>(const InFlight& o) const { return done > o.done; }
    };
    std::priority_queue<InFlight, std::vector<InFlight>, std::greater<>> in_flight;
    SimulationOutcome outcome;
    const SteadyTime end = t + setup.duration;
    for (;;) {
        const SteadyTime start = in_flight.size() < setup.concurrency ? limiter.next_allowed(t) : SteadyTime::max();
        const SteadyTime done = in_flight.empty() ? SteadyTime::max() : in_flight.top().done;
        if (std::min(start, done) >= end) {
            return outcome;
        }
        if (done <= start) {
            const InFlight r = in_flight.top();
            in_flight.pop();
            t = r.done;
            if (r.ok) {
                ++outcome.sent;
                limiter.on_success(t);
            } else {
                ++outcome.throttled;
                const double before = limiter.current_rate();
                limiter.on_throttled(t, setup.retry_after, r.started);
                outcome.decreases += limiter.current_rate() < before ? 1 : 0;
            }
        } else {
            t = start;
            REQUIRE(limiter.try_acquire(t));
            in_flight.push({t + setup.latency, t, service.accept(t)});
        }
    }
}

}  // namespace

TEST_SUITE("queue::RateLimiter") {
    TEST_CASE("starts 1 + burst requests at once, then one per interval") {
        fakes::FakeClock clock;
        const SteadyTime t0 = clock.steady_now();
        RateLimiter limiter(10, 2);
        CHECK(limiter.try_acquire(t0));
        CHECK(limiter.try_acquire(t0));
        CHECK(limiter.try_acquire(t0));
        CHECK_FALSE(limiter.try_acquire(t0));
        // 100 ms, and the pacing margin of 0.1 %.
        CHECK(limiter.next_allowed(t0) == t0 + 100100us);
        clock.advance(100100us);
        CHECK(limiter.try_acquire(clock.steady_now()));
        CHECK(limiter.next_allowed(clock.steady_now()) == t0 + 200200us);
    }

    TEST_CASE("next_allowed for several: when they may start together, none of the rate lost") {
        fakes::FakeClock clock;
        RateLimiter limiter(1000, 10);
        SteadyTime t = clock.steady_now();
        for (int i = 0; i < 100; ++i) {  // steady state: one a millisecond, the burst spent
            t = limiter.next_allowed(t);
            REQUIRE(limiter.try_acquire(t));
        }
        const SteadyTime one = limiter.next_allowed(t);
        CHECK(limiter.next_allowed(t, 1) == one);
        const SteadyTime four = limiter.next_allowed(t, 4);
        CHECK(four == one + 3 * limiter.interval());
        for (int i = 0; i < 4; ++i) {
            CHECK(limiter.try_acquire(four));
        }
        // Sent at `four`, the next is due exactly as if each had gone at its own time.
        CHECK(limiter.next_allowed(four) == one + 4 * limiter.interval());
        // More than 1 + burst count as 1 + burst.
        CHECK(limiter.next_allowed(four, 50) == limiter.next_allowed(four, 11));
    }

    TEST_CASE("next_allowed is now when a request may start at once") {
        fakes::FakeClock clock;
        RateLimiter limiter(2, 0);
        CHECK(limiter.next_allowed(clock.steady_now()) == clock.steady_now());
        REQUIRE(limiter.try_acquire(clock.steady_now()));
        clock.advance(2s);
        CHECK(limiter.next_allowed(clock.steady_now()) == clock.steady_now());
    }

    TEST_CASE("an early try_acquire is refused and changes nothing") {
        fakes::FakeClock clock;
        const SteadyTime t0 = clock.steady_now();
        RateLimiter limiter(1, 0);
        REQUIRE(limiter.try_acquire(t0));
        CHECK_FALSE(limiter.try_acquire(t0 + 500ms));
        CHECK_FALSE(limiter.try_acquire(t0 + 1s));
        CHECK(limiter.next_allowed(t0 + 999ms) == t0 + 1001ms);
        CHECK(limiter.try_acquire(t0 + 1001ms));
    }

    TEST_CASE("idle time lets a burst through again, but never more than the burst") {
        fakes::FakeClock clock;
        RateLimiter limiter(5, 1);
        drive(limiter, clock.steady_now(), 20);
        clock.advance(1h);
        const SteadyTime t = clock.steady_now();
        CHECK(limiter.try_acquire(t));
        CHECK(limiter.try_acquire(t));
        CHECK_FALSE(limiter.try_acquire(t));
    }

    TEST_CASE("a fractional rate spaces requests by more than a second") {
        fakes::FakeClock clock;
        const SteadyTime t0 = clock.steady_now();
        RateLimiter limiter(0.5, 0);
        REQUIRE(limiter.try_acquire(t0));
        CHECK(limiter.next_allowed(t0) == t0 + 2002ms);
    }

    TEST_CASE("requests arriving up to 1 ms apart from when they left still make no second over per_second + burst") {
        // What the service sees: each start delayed by network and scheduling, 0..1 ms.
        std::mt19937_64 rng(7);
        std::uniform_int_distribution<long long> jitter_us(0, 999);
        for (const auto& [per_second, burst] : std::vector<std::pair<double, int>>{{1000, 1}, {80, 1}, {500, 0}}) {
            CAPTURE(per_second);
            fakes::FakeClock clock;
            RateLimiter limiter(per_second, burst);
            auto arrivals = drive(limiter, clock.steady_now(), 20'000);
            for (auto& at : arrivals) {
                at += std::chrono::microseconds(jitter_us(rng));
            }
            std::sort(arrivals.begin(), arrivals.end());
            CHECK(max_in_window(arrivals, 1s) <= static_cast<long long>(per_second) + burst);
        }
    }

    TEST_CASE("no one-second window holds more than ceil(per_second) + burst starts") {
        struct Config {
            double per_second;
            int burst;
        };
        const std::vector<Config> configs = {{10, 1}, {10, 0},  {0.5, 0},  {0.5, 2},  {1, 0},
                                             {3, 0},  {7.3, 2}, {1000, 0}, {1000, 5}, {333.3, 1}};
        std::mt19937_64 rng(42);
        for (const auto& c : configs) {
            CAPTURE(c.per_second);
            CAPTURE(c.burst);
            const long long bound = static_cast<long long>(std::ceil(c.per_second)) + c.burst;
            fakes::FakeClock clock;

            RateLimiter saturated(c.per_second, c.burst);
            auto starts = drive(saturated, clock.steady_now(), 10'000);
            // Tight: the limiter uses what it allows, less at most the one start that the
            // margin of 1 ms a second keeps out.
            CHECK(max_in_window(starts, 1s) <= bound);
            CHECK(max_in_window(starts, 1s) >= bound - 1);

            // Idle gaps and throttles (which change the rate) keep within it too.
            RateLimiter gappy(c.per_second, c.burst);
            starts = drive(gappy, clock.steady_now(), 10'000, &rng);
            CHECK(max_in_window(starts, 1s) <= bound);
            const auto bound_10s = static_cast<long long>(std::ceil(10 * c.per_second)) + c.burst;
            CHECK(max_in_window(starts, 10s) <= bound_10s);
        }
    }

    TEST_CASE("over a long run the rate is the configured one") {
        fakes::FakeClock clock;
        RateLimiter limiter(10, 3);
        const auto starts = drive(limiter, clock.steady_now(), 10'001);
        const std::chrono::duration<double> span = starts.back() - starts.front();
        CHECK(span.count() == doctest::Approx(999.7).epsilon(0.001));
    }

    TEST_CASE("Retry-After pauses the whole queue until it has passed") {
        fakes::FakeClock clock;
        const SteadyTime t0 = clock.steady_now();
        RateLimiter limiter(10, 1);
        REQUIRE(limiter.try_acquire(t0));
        limiter.on_throttled(t0 + 50ms, 5s);
        CHECK(limiter.paused_until(t0 + 1s) == t0 + 5050ms);
        CHECK(limiter.next_allowed(t0 + 1s) == t0 + 5050ms);
        CHECK_FALSE(limiter.try_acquire(t0 + 5s));
        CHECK(limiter.try_acquire(t0 + 5050ms));
        CHECK_FALSE(limiter.paused_until(t0 + 5050ms).has_value());
    }

    TEST_CASE("without Retry-After the pause doubles per consecutive throttle, up to 60 s") {
        fakes::FakeClock clock;
        SteadyTime t = clock.steady_now();
        RateLimiter limiter(10, 1);
        std::vector<SteadyTime::duration> pauses;
        for (int i = 0; i < 8; ++i) {
            limiter.on_throttled(t, std::nullopt);
            const auto until = limiter.paused_until(t);
            REQUIRE(until.has_value());
            pauses.push_back(*until - t);
            t = *until;
        }
        const std::vector<SteadyTime::duration> expected = {1s, 2s, 4s, 8s, 16s, 32s, 60s, 60s};
        CHECK(pauses == expected);
    }

    TEST_CASE("a success after the pause starts the doubling over") {
        fakes::FakeClock clock;
        const SteadyTime t0 = clock.steady_now();
        RateLimiter limiter(10, 1);
        limiter.on_throttled(t0, std::nullopt);
        limiter.on_throttled(t0 + 1s, std::nullopt);
        limiter.on_success(t0 + 3s);
        limiter.on_throttled(t0 + 4s, std::nullopt);
        CHECK(limiter.paused_until(t0 + 4s) == t0 + 5s);
    }

    TEST_CASE("a throttle halves the rate, never below the floor") {
        fakes::FakeClock clock;
        SteadyTime t = clock.steady_now();
        RateLimiter limiter(10, 1);
        limiter.on_throttled(t, 0ms);
        CHECK(limiter.current_rate() == doctest::Approx(5));
        for (int i = 0; i < 20; ++i) {
            t += 1s;
            limiter.on_throttled(t, 0ms);
        }
        CHECK(limiter.current_rate() == doctest::Approx(0.1));
        CHECK(limiter.configured_rate() == doctest::Approx(10));

        RateLimiter slow(0.05, 0);
        slow.on_throttled(t, 0ms);
        CHECK(slow.current_rate() == doctest::Approx(0.05));
    }

    TEST_CASE("the slower rate spaces the requests after the pause") {
        fakes::FakeClock clock;
        const SteadyTime t0 = clock.steady_now();
        RateLimiter limiter(10, 0);
        limiter.on_throttled(t0, 1s);
        REQUIRE(limiter.try_acquire(t0 + 1s));
        CHECK(limiter.next_allowed(t0 + 1s) == t0 + 1200200us);
    }

    TEST_CASE("throttles arriving together count as one decrease") {
        fakes::FakeClock clock;
        const SteadyTime t0 = clock.steady_now();
        RateLimiter limiter(8, 1);
        for (int i = 0; i < 4; ++i) {
            limiter.on_throttled(t0, std::nullopt);
        }
        CHECK(limiter.current_rate() == doctest::Approx(4));
        CHECK(limiter.paused_until(t0) == t0 + 1s);
        // During the pause: the same episode.
        limiter.on_throttled(t0 + 300ms, std::nullopt);
        CHECK(limiter.current_rate() == doctest::Approx(4));
        // After the pause, for a request that left before the decrease: still the same one.
        limiter.on_throttled(t0 + 3s, std::nullopt, t0 - 100ms);
        CHECK(limiter.current_rate() == doctest::Approx(4));
        CHECK_FALSE(limiter.paused_until(t0 + 3s).has_value());
        // A request sent after the decrease: a new one.
        limiter.on_throttled(t0 + 3s, std::nullopt, t0 + 2s);
        CHECK(limiter.current_rate() == doctest::Approx(2));
    }

    TEST_CASE("a longer Retry-After in the same episode lengthens the pause") {
        fakes::FakeClock clock;
        const SteadyTime t0 = clock.steady_now();
        RateLimiter limiter(10, 1);
        limiter.on_throttled(t0, 2s);
        limiter.on_throttled(t0 + 100ms, 10s);
        limiter.on_throttled(t0 + 200ms, 1s);
        CHECK(limiter.paused_until(t0 + 1s) == t0 + 10100ms);
        CHECK(limiter.current_rate() == doctest::Approx(5));
    }

    TEST_CASE("successes during a pause change nothing") {
        fakes::FakeClock clock;
        const SteadyTime t0 = clock.steady_now();
        RateLimiter limiter(10, 1);
        limiter.on_throttled(t0, 5s);
        for (int i = 0; i < 100; ++i) {
            limiter.on_success(t0 + 1s);
        }
        CHECK(limiter.current_rate() == doctest::Approx(5));
    }

    TEST_CASE("successes win a halving back in about 10 s of sending, then stop at the rate") {
        fakes::FakeClock clock;
        const SteadyTime t0 = clock.steady_now();
        RateLimiter limiter(10, 0);
        limiter.on_throttled(t0, 0ms);
        const auto starts = drive(limiter, t0, 75);
        const std::chrono::duration<double> took = starts.back() - t0;
        CHECK(limiter.current_rate() == doctest::Approx(10));
        CHECK(took.count() == doctest::Approx(10).epsilon(0.1));
        drive(limiter, starts.back(), 100);
        CHECK(limiter.current_rate() == doctest::Approx(10));
    }

    TEST_CASE("after a cascade of throttles the climb back is set by the first rate, not the last") {
        // Retry-After 0 and a full service window halve the rate request after request; the
        // slope must come from the rate that first proved too fast, or the queue crawls.
        fakes::FakeClock clock;
        SteadyTime t = clock.steady_now();
        RateLimiter limiter(100, 0);
        for (int i = 0; i < 9; ++i) {
            limiter.on_throttled(t, 0ms, t);
            t += 1ms;
        }
        CHECK(limiter.current_rate() < 1.0);
        const SteadyTime end = t + 10s;
        while (t < end) {
            t = std::max(t, limiter.next_allowed(t));
            REQUIRE(limiter.try_acquire(t));
            limiter.on_success(t);
        }
        // Slope 100 x 0.5 / 20 = 2.5/s per second: about 25/s after 10 s (a slope from the last
        // rate would give under 1/s).
        CHECK(limiter.current_rate() > 15);
    }

    TEST_CASE("converges near a slower service's real rate") {
        // A service that takes 30/s (bucket of 5) against a campaign configured far faster.
        struct Variant {
            double configured;
            SimulationSetup setup;
            std::string name;
        };
        const std::vector<Variant> variants = {
            {100, {60s, 0ms, 1, std::nullopt}, "100/s, instant responses, no Retry-After"},
            {100, {60s, 0ms, 1, 1s}, "100/s, instant responses, Retry-After 1 s"},
            {100, {60s, 250ms, 8, std::nullopt}, "100/s, 250 ms latency, 8 in flight"},
            {100, {60s, 250ms, 8, 2s}, "100/s, 250 ms latency, 8 in flight, Retry-After 2 s"},
            {1000, {60s, 100ms, 16, std::nullopt}, "1000/s, 100 ms latency, 16 in flight"},
            {k_unlimited, {60s, 10ms, 32, std::nullopt}, "unlimited, 10 ms latency, 32 in flight"},
            {k_unlimited, {60s, 0ms, 1, 1s}, "unlimited, instant responses, Retry-After 1 s"},
        };
        for (const auto& v : variants) {
            CAPTURE(v.name);
            fakes::FakeClock clock;
            RateLimiter limiter(v.configured, 1);
            SimulatedService service{30, 5, clock.steady_now()};
            const auto outcome = simulate(limiter, service, clock.steady_now(), v.setup);
            const double achieved = static_cast<double>(outcome.sent) / 60;
            INFO(v.name, ": ", achieved, "/s, ", outcome.throttled, " throttled, ", outcome.decreases,
                 " decreases, rate ", limiter.current_rate());
            CHECK(achieved >= 0.6 * 30);
            CHECK(achieved <= 30 + 5.0 / 60);
            CHECK(outcome.decreases <= 12);
            CHECK(outcome.throttled <= 100);
        }
    }
}

TEST_SUITE("queue::RateLimiter as a pace") {
    TEST_CASE("admits the jobs that may start at once, taking their slots; the others wait for the next") {
        fakes::FakeClock clock;
        RateLimiter limiter(10, 1);
        const queue::Job job{};
        const std::vector<const queue::Job*> jobs{&job, &job, &job};
        std::vector<queue::Admission> out;
        const queue::Instant at{clock.steady_now(), clock.wall_now()};
        REQUIRE(limiter.admit(jobs, at, out));
        REQUIRE(out.size() == 3);
        CHECK(out[0].is_now());
        CHECK(out[1].is_now());
        REQUIRE(out[2].later());
        CHECK(out[2].later()->retry_at == limiter.next_allowed(at.steady));
        CHECK(out[2].later()->retry_at > at.steady);
        CHECK(out[2].later()->reason.empty());
    }
}
