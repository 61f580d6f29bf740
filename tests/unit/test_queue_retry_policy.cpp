#include <doctest/doctest.h>

#include <set>

#include "fakes.hpp"
#include "queue/retry_policy.hpp"

using namespace std::chrono_literals;
using queue::RetryPolicy;

namespace {

campaign::Retry retry(int max_attempts, std::chrono::milliseconds initial, std::chrono::milliseconds max) {
    campaign::Retry r;
    r.max_attempts = max_attempts;
    r.initial_backoff = initial;
    r.max_backoff = max;
    return r;
}

}  // namespace

TEST_SUITE("queue::RetryPolicy") {
    TEST_CASE("allows attempts up to max_attempts") {
        const RetryPolicy policy(retry(3, 1s, 60s), fakes::FakeRandom({0.5}));
        CHECK(policy.may_retry(0));
        CHECK(policy.may_retry(1));
        CHECK(policy.may_retry(2));
        CHECK_FALSE(policy.may_retry(3));
        CHECK_FALSE(policy.may_retry(4));
    }

    TEST_CASE("max_attempts 1 never retries") {
        const RetryPolicy policy(retry(1, 1s, 60s), fakes::FakeRandom({0.5}));
        CHECK_FALSE(policy.may_retry(1));
    }

    TEST_CASE("the jitter range doubles per attempt up to max_backoff") {
        const RetryPolicy policy(retry(10, 1s, 60s), fakes::FakeRandom({0.5}));
        CHECK(policy.backoff_cap(1) == 1s);
        CHECK(policy.backoff_cap(2) == 2s);
        CHECK(policy.backoff_cap(3) == 4s);
        CHECK(policy.backoff_cap(6) == 32s);
        CHECK(policy.backoff_cap(7) == 60s);
        CHECK(policy.backoff_cap(1'000'000) == 60s);
    }

    TEST_CASE("a draw of 0 retries at once") {
        RetryPolicy policy(retry(5, 1s, 60s), fakes::FakeRandom({0.0}));
        CHECK(policy.backoff(1) == 0ms);
        CHECK(policy.backoff(4) == 0ms);
    }

    TEST_CASE("a draw just below 1 waits the whole range") {
        RetryPolicy policy(retry(5, 1s, 60s), fakes::FakeRandom({0.9999999}));
        CHECK(policy.backoff(1) == 1s);
        CHECK(policy.backoff(3) == 4s);
        CHECK(policy.backoff(20) == 60s);
    }

    TEST_CASE("the delay scales with the draw") {
        RetryPolicy policy(retry(5, 1s, 60s), fakes::FakeRandom({0.5, 0.25}));
        CHECK(policy.backoff(2) == 1000ms);
        CHECK(policy.backoff(3) == 1000ms);
    }

    TEST_CASE("draws outside [0, 1) are clamped into the range") {
        RetryPolicy policy(retry(5, 1s, 60s), fakes::FakeRandom({-3.0, 7.0}));
        CHECK(policy.backoff(1) == 0ms);
        CHECK(policy.backoff(1) == 1s);
    }

    TEST_CASE("attempts below 1 count as the first") {
        const RetryPolicy policy(retry(5, 1s, 60s), fakes::FakeRandom({0.5}));
        CHECK(policy.backoff_cap(0) == 1s);
        CHECK(policy.backoff_cap(-4) == 1s);
    }

    TEST_CASE("max_backoff below initial_backoff caps the first delay too") {
        const RetryPolicy policy(retry(5, 10s, 3s), fakes::FakeRandom({0.5}));
        CHECK(policy.backoff_cap(1) == 3s);
    }

    TEST_CASE("the default random source stays in range and varies") {
        RetryPolicy policy(retry(5, 1s, 60s));
        std::set<long long> seen;
        for (int i = 0; i < 200; ++i) {
            const auto d = policy.backoff(3);
            CHECK(d >= 0ms);
            CHECK(d <= 4s);
            seen.insert(d.count());
        }
        CHECK(seen.size() > 100);
    }

    TEST_CASE("a seeded source repeats its sequence") {
        auto a = queue::make_random_source(7);
        auto b = queue::make_random_source(7);
        for (int i = 0; i < 10; ++i) {
            const double x = a();
            CHECK(x == b());
            CHECK(x >= 0.0);
            CHECK(x < 1.0);
        }
    }
}
