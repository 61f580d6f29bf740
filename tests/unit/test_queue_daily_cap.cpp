#include <doctest/doctest.h>

#include "fakes.hpp"
#include "queue/daily_cap.hpp"
#include "queue/job.hpp"

using namespace std::chrono_literals;
using queue::DailyCap;
using queue::WallTime;

TEST_SUITE("queue::DailyCap") {
    TEST_CASE("sends freely below the cap") {
        fakes::FakeClock clock;
        DailyCap cap(3);
        CHECK_FALSE(cap.blocked_until(clock.wall_now()).has_value());
        cap.record(clock.wall_now());
        cap.record(clock.wall_now() + 1min);
        CHECK_FALSE(cap.blocked_until(clock.wall_now() + 2min).has_value());
        CHECK(cap.sent_in_window(clock.wall_now() + 2min) == 2);
    }

    TEST_CASE("at the cap, blocks until the oldest send is 24 hours old") {
        fakes::FakeClock clock;
        const WallTime t0 = clock.wall_now();
        DailyCap cap(3);
        cap.record(t0);
        cap.record(t0 + 1h);
        cap.record(t0 + 2h);
        CHECK(cap.blocked_until(t0 + 3h) == t0 + 24h);
        CHECK(cap.blocked_until(t0 + 24h - 1ms) == t0 + 24h);
        CHECK_FALSE(cap.blocked_until(t0 + 24h).has_value());
        CHECK(cap.sent_in_window(t0 + 24h) == 2);
    }

    TEST_CASE("the window slides: each new send moves the next block") {
        fakes::FakeClock clock;
        const WallTime t0 = clock.wall_now();
        DailyCap cap(2);
        cap.record(t0);
        cap.record(t0 + 1h);
        cap.record(t0 + 24h);
        CHECK(cap.blocked_until(t0 + 24h) == t0 + 25h);
    }

    TEST_CASE("past sends may be recorded in any order") {
        fakes::FakeClock clock;
        const WallTime t0 = clock.wall_now();
        DailyCap in_order(3);
        DailyCap shuffled(3);
        const WallTime sends[] = {t0 - 30h, t0 - 20h, t0 - 5h, t0 - 10h, t0 - 1h};
        for (WallTime at : {sends[0], sends[1], sends[3], sends[2], sends[4]}) {
            in_order.record(at);
        }
        for (WallTime at : {sends[2], sends[4], sends[0], sends[3], sends[1]}) {
            shuffled.record(at);
        }
        CHECK(shuffled.blocked_until(t0) == t0 + 14h);
        CHECK(in_order.blocked_until(t0) == shuffled.blocked_until(t0));
    }

    TEST_CASE("sends older than 24 hours do not count") {
        fakes::FakeClock clock;
        const WallTime t0 = clock.wall_now();
        DailyCap cap(2);
        cap.record(t0 - 48h);
        cap.record(t0 - 25h);
        CHECK_FALSE(cap.blocked_until(t0).has_value());
        CHECK(cap.sent_in_window(t0) == 0);
    }

    TEST_CASE("keeps no more than per_day send times") {
        fakes::FakeClock clock;
        const WallTime t0 = clock.wall_now();
        DailyCap cap(5);
        for (int i = 0; i < 1'000; ++i) {
            cap.record(t0 + std::chrono::seconds(i));
        }
        CHECK(cap.sent_in_window(t0 + 1'000s) == 5);
        CHECK(cap.blocked_until(t0 + 1'000s) == t0 + 995s + 24h);
    }

    TEST_CASE("sends of one time count at once: a per_day's worth is one run, exact to the millisecond") {
        fakes::FakeClock clock;
        const WallTime t0 = clock.wall_now() + 123ms;
        DailyCap cap(1'000'000'000);
        cap.record(t0, 999'999'999);
        CHECK(cap.runs() == 1);
        CHECK(cap.sent_in_window(t0) == 999'999'999);
        CHECK_FALSE(cap.blocked_until(t0).has_value());
        cap.record(t0 + 1s);
        CHECK(cap.blocked_until(t0 + 2s) == t0 + 24h);
        CHECK(cap.sent_in_window(t0 + 24h) == 1);
        CHECK_FALSE(cap.blocked_until(t0 + 24h).has_value());
    }

    TEST_CASE("memory is one run a second of the trailing day, whatever per_day") {
        fakes::FakeClock clock;
        const WallTime t0 = clock.wall_now();
        DailyCap cap(1'000'000'000);
        // Two days at 20 sends a second, 50 ms apart.
        for (int i = 0; i < 2 * 24 * 3600 * 20; ++i) {
            cap.record(t0 + std::chrono::milliseconds(50LL * i));
        }
        const WallTime end = t0 + 48h;
        CHECK(cap.runs() <= 24 * 3600 + 1);
        CHECK(cap.sent_in_window(end) == 24 * 3600 * 20);
    }

    TEST_CASE(
        "sends within one second count at the latest of them: the cap lifts at most a second late, never "
        "sooner") {
        fakes::FakeClock clock;
        const WallTime t0 = clock.wall_now();  // a whole second
        DailyCap cap(2);
        cap.record(t0 + 100ms);
        cap.record(t0 + 900ms);
        CHECK(cap.runs() == 1);
        CHECK(cap.blocked_until(t0 + 1s) == t0 + 900ms + 24h);
        CHECK(cap.sent_in_window(t0 + 100ms + 24h) == 2);
        CHECK(cap.sent_in_window(t0 + 900ms + 24h) == 0);
        DailyCap apart(2);  // a second or more apart: each at its own time
        apart.record(t0 + 100ms);
        apart.record(t0 + 1100ms);
        CHECK(apart.blocked_until(t0 + 2s) == t0 + 100ms + 24h);
    }

    TEST_CASE("a cap of 0 never lets a send go") {
        fakes::FakeClock clock;
        DailyCap cap(0);
        CHECK(cap.blocked_until(clock.wall_now()) == WallTime::max());
        CHECK(DailyCap(-3).per_day() == 0);
    }
}

TEST_SUITE("queue::DailyCap as an admission step") {
    TEST_CASE("its room is the cap less the day's sends and the jobs started and not yet ended") {
        fakes::FakeClock clock;
        const queue::Instant at{clock.steady_now(), clock.wall_now()};
        DailyCap cap(5);
        cap.record(at.wall - 1h);
        queue::Admission why;
        CHECK(cap.room(at, why) == 4);
        const queue::Job job{};
        const std::vector<const queue::Job*> jobs{&job, &job, &job};
        std::vector<queue::Admission> out;
        REQUIRE(cap.admit(jobs, at, out));
        REQUIRE(out.size() == 3);
        CHECK(out[2].is_now());
        CHECK(cap.room(at, why) == 1);
        cap.settle(2, 1, at);  // one sent, one failed: its room comes back
        CHECK(cap.room(at, why) == 2);
        CHECK(cap.sent_in_window(at.wall) == 2);
    }
    TEST_CASE("full with sends: later, \"daily cap reached\" until the oldest ages out, told once") {
        fakes::FakeClock clock;
        const queue::Instant at{clock.steady_now(), clock.wall_now()};
        DailyCap cap(2);
        cap.record(at.wall - 23h);
        cap.record(at.wall - 1h);
        queue::Admission why;
        CHECK(cap.room(at, why) == 0);
        const queue::Admission::Later* wait = why.later();
        REQUIRE(wait);
        CHECK(wait->reason == "daily cap reached");
        CHECK(wait->until == at.wall + 1h);
        CHECK(wait->notice);
        CHECK(wait->retry_at == at.steady + 1s);  // looked at again every second meanwhile
        const queue::Job job{};
        const std::vector<const queue::Job*> jobs{&job};
        std::vector<queue::Admission> out;
        REQUIRE(cap.admit(jobs, at, out));
        CHECK(out[0].later());
    }
    TEST_CASE("full only with jobs not yet answered: no pause to tell, asked again in a second") {
        fakes::FakeClock clock;
        const queue::Instant at{clock.steady_now(), clock.wall_now()};
        DailyCap cap(1);
        const queue::Job job{};
        const std::vector<const queue::Job*> jobs{&job};
        std::vector<queue::Admission> out;
        REQUIRE(cap.admit(jobs, at, out));
        queue::Admission why;
        CHECK(cap.room(at, why) == 0);
        const queue::Admission::Later* wait = why.later();
        REQUIRE(wait);
        CHECK(wait->reason.empty());
        CHECK_FALSE(wait->until.has_value());
        CHECK(wait->retry_at == at.steady + 1s);
    }
}
