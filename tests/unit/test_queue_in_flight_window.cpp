#include <doctest/doctest.h>

#include <limits>

#include "queue/in_flight_window.hpp"

using namespace std::chrono_literals;
using queue::InFlightWindow;

namespace {

constexpr double k_unlimited = std::numeric_limits<double>::infinity();

// Feeds `count` answers that each took `latency`.
void answers(InFlightWindow& window, int count, std::chrono::microseconds latency) {
    for (int i = 0; i < count; ++i) {
        window.on_answer(latency);
    }
}

}  // namespace

TEST_SUITE("queue::InFlightWindow") {
    TEST_CASE("before any answer: a quarter second of a paced rate, 32 for an unlimited one, never above the cap") {
        CHECK(InFlightWindow(256, 0).limit(1000) == 250);
        CHECK(InFlightWindow(256, 0).limit(80) == 32);  // 20 < the slow start's 32
        CHECK(InFlightWindow(256, 0).limit(2000) == 256);
        CHECK(InFlightWindow(256, 0).limit(k_unlimited) == 32);
        CHECK(InFlightWindow(4, 0).limit(1000) == 4);
        CHECK(InFlightWindow(0, 0).limit(1000) == 1);  // a cap below 1 counts as 1
    }

    TEST_CASE("grows by one per answer up to rate x latency x 1.25 + burst") {
        InFlightWindow window(256, 0);
        answers(window, 10, 100ms);
        CHECK(window.limit(k_unlimited) == 42);  // slow start: 32 + 10
        CHECK(window.limit(80) == 10);           // 80/s x 0.1 s x 1.25
        answers(window, 500, 100ms);
        CHECK(window.limit(1000) == 125);  // 1000/s x 0.1 s x 1.25
        InFlightWindow bursty(256, 10);
        answers(bursty, 500, 100ms);
        CHECK(bursty.limit(1000) == 135);
    }

    TEST_CASE("an unlimited rate's window doubles every round trip") {
        InFlightWindow window(128, 0);
        int round_trips = 0;
        while (window.limit(k_unlimited) < 128 && round_trips < 100) {
            // Every request in flight answers once per round trip.
            answers(window, window.limit(k_unlimited), 100ms);
            ++round_trips;
        }
        CHECK(window.limit(k_unlimited) == 128);
        CHECK(round_trips == 2);  // 32, 64, then 128
    }

    TEST_CASE("shrinks when the latency drops") {
        InFlightWindow window(256, 0);
        answers(window, 2000, 100ms);
        REQUIRE(window.limit(1000) == 125);
        answers(window, 500, 20ms);       // half of the last second's answers
        CHECK(window.limit(1000) == 75);  // mean 60 ms
        answers(window, 500, 20ms);
        CHECK(window.limit(1000) == 25);
        CHECK(window.latency_estimate(1000) == 20ms);
    }

    TEST_CASE("shrinks at once when the rate in force drops") {
        InFlightWindow window(256, 2);
        answers(window, 2000, 100ms);
        CHECK(window.limit(1000) == 127);
        CHECK(window.limit(500) == 65);  // ceil(62.5) + 2
        CHECK(window.limit(10) == 4);    // ceil(1.25) + 2
    }

    TEST_CASE("respects the cap and the floor of one") {
        InFlightWindow capped(256, 0);
        answers(capped, 1000, 1s);
        CHECK(capped.limit(1000) == 256);
        InFlightWindow idle(256, 0);
        answers(idle, 100, 0ms);
        CHECK(idle.limit(1000) == 1);
        answers(idle, 100, -5ms);  // counts as 0
        CHECK(idle.limit(0.1) == 1);
    }

    TEST_CASE("an unlimited rate opens the window up to the cap, still by slow start") {
        InFlightWindow window(256, 0);
        answers(window, 100, 1ms);
        CHECK(window.limit(k_unlimited) == 132);
        answers(window, 1000, 1ms);
        CHECK(window.limit(k_unlimited) == 256);
        CHECK(window.limit(1000) == 2);  // the same answers at a finite rate: ceil(1.25)
    }

    TEST_CASE("a rare slow answer counts in full: the mean covers about a second of answers") {
        InFlightWindow window(256, 0);
        for (int i = 0; i < 20; ++i) {
            answers(window, 99, 50ms);
            window.on_answer(5s);
        }
        // 1 % of answers at 5 s hold 50 of the 100 requests in flight at 1000/s.
        CHECK(window.latency_estimate(1000) == 99500us);
        CHECK(window.limit(1000) == 125);  // ceil(1000 x 0.0995 x 1.25)
    }

    TEST_CASE("at a low rate the mean covers the last 64 answers") {
        InFlightWindow window(256, 0);
        answers(window, 64, 1s);
        answers(window, 32, 200ms);
        CHECK(window.latency_estimate(10) == 600ms);  // half and half
        CHECK(window.limit(10) == 8);                 // ceil(10 x 0.6 x 1.25) = ceil(7.5)
    }
}
