#include <doctest/doctest.h>

#include "service/deadlines.hpp"

using namespace std::chrono_literals;
using service::Deadlines;

namespace {

const Deadlines::Steady k_t0{std::chrono::hours(100)};

}  // namespace

TEST_SUITE("service::Deadlines") {
    TEST_CASE("a request expires its timeout after it started, earliest first") {
        Deadlines d;
        d.add(1, k_t0, 2000ms);
        d.add(2, k_t0 + 100ms, 500ms);
        CHECK(d.next() == k_t0 + 600ms);
        CHECK(d.expired(k_t0 + 599ms).empty());
        CHECK(d.expired(k_t0 + 600ms) == std::vector<std::uint64_t>{2});
        CHECK(d.expired(k_t0 + 5s) == std::vector<std::uint64_t>{2, 1});
        d.remove(2);
        d.remove(99);  // unknown: nothing happens
        CHECK(d.next() == k_t0 + 2000ms);
        d.remove(1);
        CHECK_FALSE(d.next().has_value());
    }
    TEST_CASE("a late wake-up within the tolerance counts as running time") {
        Deadlines d(1000ms);
        d.add(1, k_t0, 2000ms);
        d.woke(k_t0 + 100ms, k_t0 + 900ms);  // 800 ms late: a busy machine, not a stop
        CHECK(d.expired(k_t0 + 2000ms) == std::vector<std::uint64_t>{1});
    }
    TEST_CASE("time the process was stopped is not held against requests in flight") {
        Deadlines d(1000ms);
        d.add(1, k_t0, 2000ms);
        // Asked to wake at t0 + 100 ms, woke 30 s later: stopped meanwhile.
        d.woke(k_t0 + 100ms, k_t0 + 30'100ms);
        CHECK(d.stopped() == 30s);
        CHECK(d.expired(k_t0 + 30'100ms).empty());
        CHECK(d.next() == k_t0 + 32s);
        CHECK(d.expired(k_t0 + 32s) == std::vector<std::uint64_t>{1});
        // A request started after the stop gets its whole timeout from its start.
        d.add(2, k_t0 + 31s, 500ms);
        CHECK(d.next() == k_t0 + 31'500ms);
    }
    TEST_CASE("stops add up") {
        Deadlines d(1000ms);
        d.add(1, k_t0, 2000ms);
        d.woke(k_t0, k_t0 + 5s);
        d.woke(k_t0 + 6s, k_t0 + 10s);
        CHECK(d.stopped() == 9s);
        CHECK(d.next() == k_t0 + 11s);
    }
}
