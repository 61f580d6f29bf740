#include <doctest/doctest.h>

#include "report/latency_histogram.hpp"

TEST_SUITE("report::LatencyHistogram") {
    TEST_CASE("is empty until something is added") {
        report::LatencyHistogram h;
        CHECK(h.count() == 0);
        CHECK(h.max() == 0);
        CHECK(h.percentile(50) == 0);
    }

    TEST_CASE("takes the nearest rank") {
        report::LatencyHistogram h;
        for (int ms = 100; ms >= 1; --ms) {
            h.add(ms);
        }
        CHECK(h.count() == 100);
        CHECK(h.percentile(50) == 50);
        CHECK(h.percentile(95) == 95);
        CHECK(h.percentile(99) == 99);
        CHECK(h.percentile(100) == 100);
        CHECK(h.percentile(0.1) == 1);
    }

    TEST_CASE("is exact to the millisecond below 10 s") {
        report::LatencyHistogram h;
        h.add(9'999);
        CHECK(h.percentile(50) == 9'999);
    }

    TEST_CASE("rounds down to 100 ms from 10 s, but never above the max") {
        report::LatencyHistogram h;
        h.add(12'345);
        h.add(12'399);
        h.add(30'000);
        CHECK(h.percentile(50) == 12'300);
        CHECK(h.percentile(100) == 30'000);
    }

    TEST_CASE("reports the max for latencies beyond 10 minutes") {
        report::LatencyHistogram h;
        h.add(10);
        h.add(900'001);
        CHECK(h.percentile(99) == 900'001);
        CHECK(h.max() == 900'001);
    }

    TEST_CASE("counts negative latencies as zero") {
        report::LatencyHistogram h;
        h.add(-5);
        CHECK(h.percentile(50) == 0);
        CHECK(h.max() == 0);
    }
}
