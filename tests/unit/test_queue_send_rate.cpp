#include <doctest/doctest.h>

#include "queue/send_rate.hpp"

TEST_SUITE("queue::SendRate") {
    TEST_CASE("counts the sends of the last five seconds, in a fixed ring") {
        using namespace std::chrono_literals;
        queue::SendRate rate;
        const auto t0 = std::chrono::steady_clock::time_point{} + 1000s;
        for (int i = 0; i < 500; ++i) {
            rate.add(t0 + i * 10ms);  // 100/s for 5 s
        }
        CHECK(rate.per_second(t0 + 4990ms) == doctest::Approx(100));
        CHECK(rate.per_second(t0 + 7550ms) == doctest::Approx(48));  // buckets from 2.6 s on: 240 sends
        CHECK(rate.per_second(t0 + 60s) == 0);
        rate.add(t0 + 60s);
        CHECK(rate.per_second(t0 + 60s) == doctest::Approx(0.2));
    }
}
