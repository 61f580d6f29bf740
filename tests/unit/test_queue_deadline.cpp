#include <doctest/doctest.h>

#include "queue/deadline.hpp"
#include "queue/send_window.hpp"
#include "queue_dispatch_rig.hpp"

using namespace dispatch_test;
using queue::Admission;

namespace {

queue::WallTime utc(int y, unsigned m, unsigned d, int h, int mi = 0, int s = 0) {
    using namespace std::chrono;
    return sys_days(year(y) / month(m) / day(d)) + hours(h) + minutes(mi) + seconds(s);
}

campaign::Schedule schedule(std::optional<queue::WallTime> start_at, std::optional<std::chrono::milliseconds> max_delay,
                            std::optional<queue::WallTime> not_after) {
    campaign::Schedule s;
    s.start_at = start_at;
    s.max_delay = max_delay;
    s.not_after = not_after;
    return s;
}

queue::Instant at_wall(queue::WallTime wall) {
    return {std::chrono::steady_clock::time_point(std::chrono::hours(1000)), wall};
}

// The wall times at which the fake transport saw requests start (both fake clocks move together).
std::vector<queue::WallTime> start_times(const Rig& rig, std::chrono::steady_clock::time_point steady0,
                                         queue::WallTime wall0) {
    std::vector<queue::WallTime> out;
    for (const auto& s : rig.transport.started) {
        out.push_back(wall0 + std::chrono::duration_cast<queue::WallTime::duration>(s.at - steady0));
    }
    return out;
}

}  // namespace

TEST_SUITE("queue::Deadline") {
    TEST_CASE("without not_after or max_delay it is never too late") {
        queue::Deadline deadline(schedule(utc(2026, 3, 1, 9), std::nullopt, std::nullopt));
        CHECK_FALSE(deadline.too_late(utc(2030, 1, 1, 0)));
        Admission why;
        CHECK(deadline.room(at_wall(utc(2030, 1, 1, 0)), why) == queue::k_any_room);
    }

    TEST_CASE("not_after: too late at and after it, not before") {
        queue::Deadline deadline(schedule(std::nullopt, std::nullopt, utc(2026, 3, 1, 18)));
        CHECK_FALSE(deadline.too_late(utc(2026, 3, 1, 17, 59, 59)));
        REQUIRE(deadline.too_late(utc(2026, 3, 1, 18)));
        CHECK(deadline.too_late(utc(2026, 3, 1, 18))->find("schedule.not_after (2026-03-01T18:00:00") !=
              std::string::npos);
        deadline.first_sent();  // a run that has sent is held by not_after all the same
        CHECK(deadline.too_late(utc(2026, 3, 2, 0)));
    }

    TEST_CASE("max_delay: too late from start_at + max_delay while this run has sent nothing") {
        queue::Deadline deadline(schedule(utc(2026, 3, 1, 9), std::chrono::hours(2), std::nullopt));
        CHECK_FALSE(deadline.too_late(utc(2026, 3, 1, 10, 59, 59)));
        REQUIRE(deadline.too_late(utc(2026, 3, 1, 11)));
        CHECK(deadline.too_late(utc(2026, 3, 1, 11))->find("start_at + schedule.max_delay (2026-03-01T11:00:00") !=
              std::string::npos);
        deadline.first_sent();
        CHECK_FALSE(deadline.too_late(utc(2026, 3, 5, 11)));
    }

    TEST_CASE("once too late every job is refused with too_late, the room is none") {
        queue::Deadline deadline(schedule(std::nullopt, std::nullopt, utc(2026, 3, 1, 18)));
        Admission why;
        CHECK(deadline.room(at_wall(utc(2026, 3, 1, 18)), why) == 0);
        REQUIRE(why.never());
        CHECK(why.never()->refusal == Admission::Refusal::too_late);
        queue::Job a;
        queue::Job b;
        const queue::Job* jobs[] = {&a, &b};
        std::vector<Admission> out;
        REQUIRE(deadline.admit(jobs, at_wall(utc(2026, 3, 1, 18, 5)), out));
        REQUIRE(out.size() == 2);
        REQUIRE(out[1].never());
        CHECK(out[1].never()->refusal == Admission::Refusal::too_late);
    }

    TEST_CASE("an admission before the deadline must start before it") {
        queue::Deadline deadline(schedule(utc(2026, 3, 1, 9), std::chrono::hours(1), utc(2026, 3, 1, 18)));
        queue::Job a;
        const queue::Job* jobs[] = {&a};
        std::vector<Admission> out;
        const auto at = at_wall(utc(2026, 3, 1, 9, 30));
        REQUIRE(deadline.admit(jobs, at, out));
        REQUIRE(out[0].now());
        CHECK(out[0].now()->use_by < at.steady + std::chrono::minutes(30));  // max_delay's end, the nearer
        CHECK(out[0].now()->use_by >= at.steady + std::chrono::minutes(30) - std::chrono::milliseconds(1));
        deadline.first_sent();
        REQUIRE(deadline.admit(jobs, at, out));
        REQUIRE(out[0].now());
        CHECK(out[0].now()->use_by < at.steady + std::chrono::hours(8) + std::chrono::minutes(30));  // not_after's
        CHECK(out[0].now()->use_by > at.steady + std::chrono::hours(8));
    }
}

TEST_SUITE("queue::dispatch with a deadline") {
    TEST_CASE("not_after reached mid-run stops it with too_late, and nothing leaves at or after it") {
        Rig rig(ok, 1, 0, 50ms);  // one a second: 100 rows take 100 s
        rig.settings.concurrency = 1;
        rig.clock.set_wall(utc(2026, 3, 1, 17, 59));
        const auto steady0 = rig.clock.steady_now();
        const auto wall0 = rig.clock.wall_now();
        queue::Deadline deadline(schedule(std::nullopt, std::nullopt, utc(2026, 3, 1, 18)));
        rig.deadline = &deadline;
        ListSource source(100);
        auto result = rig.run(source);
        CHECK(result.reason == queue::StopReason::too_late);
        CHECK(result.message.find("schedule.not_after") != std::string::npos);
        const auto starts = start_times(rig, steady0, wall0);
        REQUIRE_FALSE(starts.empty());
        CHECK(starts.size() < 100);
        for (auto at : starts) {
            CHECK(at < utc(2026, 3, 1, 18));
        }
        // Every row sent is recorded; the others are not: they stay for a resume.
        CHECK(rig.recorder.count(queue::JobStatus::sent) == static_cast<int>(starts.size()));
        CHECK(rig.recorder.events.size() == starts.size());
    }

    TEST_CASE("max_delay passed before the first send: nothing is sent, too_late") {
        Rig rig(ok);
        rig.clock.set_wall(utc(2026, 3, 1, 12));  // a timer firing three hours late
        queue::Deadline deadline(schedule(utc(2026, 3, 1, 9), std::chrono::hours(1), std::nullopt));
        rig.deadline = &deadline;
        ListSource source(10);
        auto result = rig.run(source);
        CHECK(result.reason == queue::StopReason::too_late);
        CHECK(result.message.find("schedule.max_delay") != std::string::npos);
        CHECK(rig.transport.started.empty());
        CHECK(rig.recorder.attempts == 0);
        CHECK(rig.recorder.events.empty());
    }

    TEST_CASE("a queue held behind a closed window past start_at + max_delay stops with too_late") {
        auto made = queue::SendWindow::make({"UTC", {1, 2, 3, 4, 5}, 9 * 60, 18 * 60});
        REQUIRE(made);
        auto window = *made;
        Rig rig(ok);
        rig.window = &window;
        rig.clock.set_wall(utc(2026, 3, 7, 10));  // a Saturday: closed until Monday 09:00
        queue::Deadline deadline(schedule(utc(2026, 3, 7, 10), std::chrono::hours(2), std::nullopt));
        rig.deadline = &deadline;
        const auto steady0 = rig.clock.steady_now();
        ListSource source(10);
        auto result = rig.run(source);
        CHECK(result.reason == queue::StopReason::too_late);
        CHECK(rig.transport.started.empty());
        // Stopped at 12:00, not at Monday's opening.
        CHECK(rig.clock.steady_now() - steady0 < std::chrono::hours(2) + std::chrono::seconds(2));
    }

    TEST_CASE("a run that started sending before start_at + max_delay is not stopped by it") {
        Rig rig(ok, 1, 0, 50ms);  // 100 rows take 100 s; max_delay ends after 10 s
        rig.settings.concurrency = 1;
        rig.clock.set_wall(utc(2026, 3, 1, 9));
        queue::Deadline deadline(schedule(utc(2026, 3, 1, 9), std::chrono::seconds(10), std::nullopt));
        rig.deadline = &deadline;
        ListSource source(100);
        auto result = rig.run(source);
        CHECK(result.reason == queue::StopReason::completed);
        CHECK(rig.recorder.count(queue::JobStatus::sent) == 100);
    }

    TEST_CASE("without the deadline (--late-ok) a late run sends everything") {
        Rig rig(ok);
        rig.clock.set_wall(utc(2026, 3, 2, 12));  // after both
        ListSource source(10);
        auto result = rig.run(source);  // rig.deadline: null, as the runner passes with --late-ok
        CHECK(result.reason == queue::StopReason::completed);
        CHECK(rig.recorder.count(queue::JobStatus::sent) == 10);
    }
}
