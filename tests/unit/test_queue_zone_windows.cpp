// The window in each recipient's zone: SetAside (the jobs waiting, on disk), ZoneWindows (the
// admission step) and the dispatcher sending the open zones' rows while the closed ones wait.

#include <doctest/doctest.h>

#include <chrono>
#include <map>
#include <string>
#include <vector>

#include "queue/daily_cap.hpp"
#include "queue/send_window.hpp"
#include "queue/set_aside.hpp"
#include "queue/zone_windows.hpp"
#include "queue_dispatch_rig.hpp"
#include "util/zone.hpp"

namespace {

using namespace std::chrono_literals;
using std::chrono::sys_days;
using Wall = queue::WallTime;

constexpr Wall at_utc(int year, unsigned month, unsigned day, int hour, int minute = 0) {
    return sys_days{std::chrono::year{year} / month / day} + std::chrono::hours(hour) + std::chrono::minutes(minute);
}

queue::Job job_of(std::int64_t row, int zone, std::size_t body_bytes = 40) {
    queue::Job job;
    job.row = row;
    job.zone = zone;
    job.wa_id = std::to_string(919812300000LL + row);
    job.user_name = "Person " + std::to_string(row);
    job.body = std::string(body_bytes, 'b') + std::to_string(row);
    job.requests = static_cast<int>(row % 3);
    job.template_send = row % 2 == 0;
    return job;
}

queue::Admission::Later later_until(Wall opens, std::string reason) {
    return {.until = opens, .reason = std::move(reason), .set_aside = true};
}

campaign::Window window_of(int from_hour, int to_hour) {
    campaign::Window w;
    w.days = {0, 1, 2, 3, 4, 5, 6};
    w.from_minute = from_hour * 60;
    w.to_minute = to_hour * 60;
    w.per_recipient = true;
    w.fallback_timezone = "UTC";
    return w;
}

// The local hour of `t` in `zone`.
int local_hour(Wall t, const std::string& zone) {
    const auto tz = util::TimeZone::locate(zone);
    REQUIRE(tz);
    const auto local = t + tz->offset_at(t);
    return static_cast<int>(
        std::chrono::floor<std::chrono::hours>(local - std::chrono::floor<std::chrono::days>(local)).count());
}

struct Sent {
    std::int64_t row;
    Wall at;
};

// Runs `source` through `rig` from `wall0`, checks that it completed, and returns what the
// rig's transport was asked to send, in order: the row (from the wa_id in the body) and the wall
// time it left.
std::vector<Sent> run_from(dispatch_test::Rig& rig, dispatch_test::ListSource& source, Wall wall0) {
    rig.clock.set_wall(wall0);
    const auto steady0 = rig.clock.steady_now();
    CHECK(rig.run(source).reason == queue::StopReason::completed);
    std::vector<Sent> out;
    for (const auto& started : rig.transport.started) {
        const auto& body = started.request.body;
        const auto digits = body.find("9198123");
        REQUIRE(digits != std::string::npos);
        const std::int64_t row = std::stoll(body.substr(digits, 12)) - 919812300000LL;
        out.push_back({row, wall0 + std::chrono::duration_cast<Wall::duration>(started.at - steady0)});
    }
    return out;
}

// A source of `rows` jobs whose zone is `zone_of(row)`, with bodies naming their wa_id.
dispatch_test::ListSource zoned_source(int rows, queue::ZoneWindows& zones,
                                       const std::function<std::string(int)>& zone_of) {
    dispatch_test::ListSource source(rows);
    for (auto& job : source.jobs()) {
        auto index = zones.zone(zone_of(static_cast<int>(job.row)));
        REQUIRE(index);
        job.zone = *index;
    }
    return source;
}

}  // namespace

TEST_SUITE("queue::SetAside") {
    TEST_CASE("a job comes back as it went in, and none comes from an empty queue") {
        const queue::Job job = job_of(42, 7, 100);
        util::ByteSpillQueue bytes(64);  // through the temporary file
        REQUIRE(queue::push_job(bytes, job));
        queue::Job back;
        REQUIRE(queue::pop_job(bytes, back));
        CHECK(back.row == 42);
        CHECK(back.zone == 7);
        CHECK(back.wa_id == job.wa_id);
        CHECK(back.user_name == job.user_name);
        CHECK(back.body == job.body);
        CHECK(back.requests == job.requests);
        CHECK(back.template_send == job.template_send);
        CHECK(bytes.empty());
        CHECK_FALSE(queue::pop_job(bytes, back));
    }

    TEST_CASE("each zone's jobs come back when it opens, in order, lowest row first across zones") {
        queue::SetAside aside;
        const Wall early = at_utc(2026, 3, 2, 3);
        const Wall late = at_utc(2026, 3, 2, 15);
        // Enough rows, and long enough, that most of them go through the temporary file.
        constexpr int k_rows = 3000;
        for (int row = 1; row <= k_rows; ++row) {
            const bool first_zone = row % 3 != 0;
            REQUIRE(aside.put(job_of(row, first_zone ? 0 : 1, 200),
                              later_until(first_zone ? early : late, first_zone ? "zone A" : "zone B")));
        }
        CHECK(aside.size() == k_rows);
        REQUIRE(aside.next_opening());
        CHECK(*aside.next_opening() == early);
        const auto waits = aside.waits();
        REQUIRE(waits.size() == 2);
        CHECK(waits[0].reason == "zone A");
        CHECK(waits[0].rows == 2000);
        CHECK(waits[1].rows == 1000);

        queue::Job out;
        auto taken = aside.take_due(early - 1s, out);
        REQUIRE(taken);
        CHECK_FALSE(*taken);  // nothing has opened yet

        std::vector<std::int64_t> rows;
        for (;;) {
            taken = aside.take_due(early, out);
            REQUIRE(taken);
            if (!*taken) {
                break;
            }
            CHECK(out.body == job_of(out.row, 0, 200).body);
            rows.push_back(out.row);
        }
        REQUIRE(rows.size() == 2000);
        CHECK(std::is_sorted(rows.begin(), rows.end()));
        CHECK(std::all_of(rows.begin(), rows.end(), [](std::int64_t r) { return r % 3 != 0; }));
        CHECK(aside.size() == 1000);
        CHECK(*aside.next_opening() == late);

        // Zone A waits again (its window closed) while B opens: lowest row first across both.
        REQUIRE(aside.put(job_of(1, 0), later_until(late, "zone A")));
        REQUIRE(aside.put(job_of(4, 0), later_until(late, "zone A")));
        rows.clear();
        while (true) {
            taken = aside.take_due(late, out);
            REQUIRE(taken);
            if (!*taken) {
                break;
            }
            rows.push_back(out.row);
        }
        REQUIRE(rows.size() == 1002);
        CHECK(rows[0] == 1);
        CHECK(rows[1] == 3);
        CHECK(rows[2] == 4);
        CHECK(rows[3] == 6);
        CHECK(std::is_sorted(rows.begin(), rows.end()));
        CHECK(aside.empty());
        CHECK_FALSE(aside.next_opening());
    }
}

TEST_SUITE("queue::ZoneWindows") {
    TEST_CASE("answers job by job: now in an open zone, set aside until the opening in a closed one") {
        queue::ZoneWindows zones(window_of(9, 17));
        const auto kolkata = zones.zone("Asia/Kolkata");
        const auto new_york = zones.zone("America/New_York");
        REQUIRE(kolkata);
        REQUIRE(new_york);
        CHECK(*zones.zone("Asia/Kolkata") == *kolkata);  // one window a zone
        CHECK_FALSE(zones.zone("Mars/Olympus"));

        // 05:00 UTC: 10:30 in Kolkata, midnight in New York.
        const queue::Job in_kolkata = job_of(1, *kolkata);
        const queue::Job in_new_york = job_of(2, *new_york);
        const queue::Job nowhere = job_of(3, -1);
        const std::vector<const queue::Job*> jobs{&in_kolkata, &in_new_york, &nowhere};
        std::vector<queue::Admission> out;
        const queue::Instant at{std::chrono::steady_clock::time_point(1000h), at_utc(2026, 3, 2, 5)};
        REQUIRE(zones.admit(jobs, at, out));
        REQUIRE(out.size() == 3);
        CHECK(out[0].is_now());
        const queue::Admission::Later* wait = out[1].later();
        REQUIRE(wait);
        CHECK(wait->set_aside);
        CHECK(wait->reason == "outside the send window in America/New_York");
        REQUIRE(wait->until);
        CHECK(*wait->until == at_utc(2026, 3, 2, 14));  // 09:00 EST
        CHECK(out[2].is_now());
        CHECK(zones.describe() == "every day 09:00-17:00 in each recipient's zone");
    }
}

TEST_SUITE("queue::dispatch with a window per recipient") {
    TEST_CASE("zones 12 hours apart: the open zone's rows go at once, the closed zone's when it opens") {
        dispatch_test::Rig rig(dispatch_test::ok, 1);  // one a second
        queue::ZoneWindows zones(window_of(9, 17));
        rig.window = &zones;
        // Etc/GMT-6 is UTC+6, Etc/GMT+6 UTC-6: at 03:00 UTC one is at 09:00, the other at 21:00.
        auto source = zoned_source(20, zones, [](int row) { return row % 2 == 0 ? "Etc/GMT-6" : "Etc/GMT+6"; });
        const Wall wall0 = at_utc(2026, 3, 2, 3);
        const auto sends = run_from(rig, source, wall0);
        CHECK(rig.recorder.count(queue::JobStatus::sent) == 20);
        REQUIRE(sends.size() == 20);
        // The east zone's ten rows first, in CSV order, within a minute of the start.
        for (std::size_t i = 0; i < 10; ++i) {
            CHECK(sends[i].row == static_cast<std::int64_t>(2 * (i + 1)));
            CHECK(sends[i].at < wall0 + 1min);
        }
        // The west zone's, in CSV order, from its 09:00 (15:00 UTC), none before.
        for (std::size_t i = 10; i < 20; ++i) {
            CHECK(sends[i].row == static_cast<std::int64_t>(2 * (i - 10) + 1));
            CHECK(sends[i].at >= at_utc(2026, 3, 2, 15));
            CHECK(sends[i].at < at_utc(2026, 3, 2, 15, 1));
        }
        for (const auto& sent : sends) {
            const int hour = local_hour(sent.at, sent.row % 2 == 0 ? "Etc/GMT-6" : "Etc/GMT+6");
            CHECK(hour >= 9);
            CHECK(hour < 17);
        }
        // While only the west zone's rows were left, the queue said how many wait, and until when.
        REQUIRE_FALSE(rig.recorder.pauses.empty());
        const auto& pause = rig.recorder.pauses.back();
        CHECK(pause.pause_reason ==
              "10 rows wait for their recipients' send windows; next: outside the send window in Etc/GMT+6 (10 rows)");
        REQUIRE(pause.paused_until);
        CHECK(*pause.paused_until == at_utc(2026, 3, 2, 15));
    }

    TEST_CASE("a zone closing as another opens: each row inside its own window, the rest the next day") {
        // The slowest pace there is, one every 1,000 s: four starts an hour.
        dispatch_test::Rig rig(dispatch_test::ok, 0.001);
        queue::ZoneWindows zones(window_of(9, 10));
        rig.window = &zones;
        // UTC+2's window is 07:00-08:00 UTC, UTC+1's 08:00-09:00 UTC: one closes as the other opens.
        auto source = zoned_source(12, zones, [](int row) { return row % 2 == 1 ? "Etc/GMT-2" : "Etc/GMT-1"; });
        const Wall wall0 = at_utc(2026, 3, 2, 7);
        const auto sends = run_from(rig, source, wall0);
        REQUIRE(sends.size() == 12);
        std::map<bool, int> first_day;  // by "is UTC+2"
        for (const auto& sent : sends) {
            const bool plus_two = sent.row % 2 == 1;
            CAPTURE(sent.row);
            CAPTURE((sent.at - wall0).count());
            // The pace holds some rows past their window's end: they wait for its next opening,
            // never leave outside it.
            CHECK(local_hour(sent.at, plus_two ? "Etc/GMT-2" : "Etc/GMT-1") == 9);
            if (sent.at < at_utc(2026, 3, 3, 0)) {
                ++first_day[plus_two];
            }
        }
        CHECK(first_day[true] == 4);   // 07:00, 07:16:40, 07:33:20, 07:50
        CHECK(first_day[false] == 4);  // from 08:06:40, the pace's next start
        // Within each zone, CSV order.
        std::map<bool, std::int64_t> last_row;
        for (const auto& sent : sends) {
            CHECK(sent.row > last_row[sent.row % 2 == 1]);
            last_row[sent.row % 2 == 1] = sent.row;
        }
    }

    TEST_CASE("across DST changes the window follows the zone's clock (New York, spring and autumn)") {
        struct Case {
            Wall start;
            Wall first_day_opening;   // 09:00 local, in UTC
            Wall second_day_opening;  // the day after the change
        };
        // 2026-03-08 02:00 EST → EDT; 2026-11-01 02:00 EDT → EST.
        const Case cases[] = {{at_utc(2026, 3, 7, 12), at_utc(2026, 3, 7, 14), at_utc(2026, 3, 8, 13)},
                              {at_utc(2026, 10, 31, 12), at_utc(2026, 10, 31, 13), at_utc(2026, 11, 1, 14)}};
        for (const auto& c : cases) {
            CAPTURE(c.start.time_since_epoch().count());
            dispatch_test::Rig rig(dispatch_test::ok, 0.001);  // one every 1,000 s
            queue::ZoneWindows zones(window_of(9, 10));        // four a day: 09:00, 09:16:40, 09:33:20, 09:50
            rig.window = &zones;
            auto source = zoned_source(6, zones, [](int) { return "America/New_York"; });
            const auto sends = run_from(rig, source, c.start);
            REQUIRE(sends.size() == 6);
            CHECK(sends[0].at == c.first_day_opening);
            // A start the pace holds may fall up to a wake-up (a second) late each time.
            CHECK(sends[3].at - (c.first_day_opening + 50min) < 5s);
            CHECK(sends[3].at < c.first_day_opening + 1h);
            CHECK(sends[4].at == c.second_day_opening);
            CHECK(sends[5].at - (c.second_day_opening + 1000s) < 5s);
            for (std::size_t i = 0; i < sends.size(); ++i) {
                CHECK(sends[i].row == static_cast<std::int64_t>(i + 1));
            }
        }
    }

    TEST_CASE("a stop leaves the rows set aside unsent, unrecorded, for a resume") {
        dispatch_test::Rig rig(dispatch_test::ok, 1000);
        queue::ZoneWindows zones(window_of(9, 17));
        rig.window = &zones;
        auto source = zoned_source(10, zones, [](int row) { return row <= 5 ? "Etc/GMT-6" : "Etc/GMT+6"; });
        rig.clock.set_wall(at_utc(2026, 3, 2, 3));
        int sent = 0;
        rig.recorder.attempt_hook = [&] {
            if (++sent == 5) {
                rig.stops = 1;  // Ctrl-C once the open zone's rows are out
            }
        };
        const auto result = rig.run(source);
        CHECK(result.reason == queue::StopReason::interrupted);
        CHECK(rig.transport.started.size() == 5);
        CHECK(rig.recorder.events.size() == 5);  // the five set aside have no record
    }

    TEST_CASE("--limit passes over rows whose windows are closed: N open rows go, the run ends, nothing waits") {
        dispatch_test::Rig rig(dispatch_test::ok, 1000);
        queue::ZoneWindows zones(window_of(9, 17));
        rig.window = &zones;
        rig.settings.limit = 5;
        rig.settings.when_closed = queue::WhenClosed::pass_over;
        // Odd rows in a zone at 21:00 (closed until 15:00 UTC), even rows in one at 09:00.
        auto source = zoned_source(20, zones, [](int row) { return row % 2 == 0 ? "Etc/GMT-6" : "Etc/GMT+6"; });
        const Wall wall0 = at_utc(2026, 3, 2, 3);
        rig.clock.set_wall(wall0);
        const auto result = rig.run(source);
        CHECK(result.reason == queue::StopReason::limit);
        REQUIRE(rig.transport.started.size() == 5);
        CHECK(rig.recorder.events.size() == 5);  // the passed over have no record
        for (const auto& started : rig.transport.started) {
            CHECK(started.request.body.find("Etc") == std::string::npos);
        }
        CHECK(result.passed_over == 5);  // rows 1, 3, 5, 7, 9 came before the fifth open row
        REQUIRE(result.passed_over_until);
        CHECK(*result.passed_over_until == at_utc(2026, 3, 2, 15));
        CHECK(result.waiting.empty());
        CHECK(rig.clock.wall_now() < wall0 + std::chrono::minutes(1));  // it did not wait for 15:00
    }

    TEST_CASE("--limit with every recipient's window closed: nothing sent, ends at once, says when the first opens") {
        dispatch_test::Rig rig(dispatch_test::ok, 1000);
        queue::ZoneWindows zones(window_of(9, 17));
        rig.window = &zones;
        rig.settings.limit = 5;
        rig.settings.when_closed = queue::WhenClosed::pass_over;
        auto source = zoned_source(8, zones, [](int) { return "Etc/GMT+6"; });
        const Wall wall0 = at_utc(2026, 3, 2, 3);
        rig.clock.set_wall(wall0);
        const auto result = rig.run(source);
        CHECK(result.reason == queue::StopReason::limit);  // not "completed": 8 rows are left
        CHECK(rig.transport.started.empty());
        CHECK(rig.recorder.events.empty());
        CHECK(result.passed_over == 8);
        REQUIRE(result.passed_over_until);
        CHECK(*result.passed_over_until == at_utc(2026, 3, 2, 15));
        CHECK(rig.clock.wall_now() < wall0 + std::chrono::minutes(1));
    }

    TEST_CASE("--limit with the campaign's send window closed: nothing sent, the run ends naming the opening") {
        dispatch_test::Rig rig(dispatch_test::ok, 1000);
        campaign::Window w = window_of(9, 17);
        w.per_recipient = false;
        w.timezone = "UTC";
        auto window = queue::SendWindow::make(w);
        REQUIRE(window.ok());
        rig.window = &window.value();
        rig.settings.limit = 5;
        rig.settings.when_closed = queue::WhenClosed::pass_over;
        dispatch_test::ListSource source(8);
        const Wall wall0 = at_utc(2026, 3, 2, 3);
        rig.clock.set_wall(wall0);
        const auto result = rig.run(source);
        CHECK(result.reason == queue::StopReason::limit);
        CHECK(rig.transport.started.empty());
        CHECK(rig.recorder.events.empty());
        REQUIRE(result.not_waited);
        CHECK(result.not_waited->reason == "outside the send window");
        REQUIRE(result.not_waited->until);
        CHECK(*result.not_waited->until == at_utc(2026, 3, 2, 9));
        CHECK(result.message.find("does not wait") != std::string::npos);
        CHECK(rig.clock.wall_now() < wall0 + std::chrono::minutes(1));
    }

    TEST_CASE("--limit with the day's room used up mid-way: what had room went, the run ends without waiting") {
        dispatch_test::Rig rig(dispatch_test::ok, 1000, 0, 10ms);
        queue::DailyCap cap(3);
        rig.limits = &cap;
        rig.settings.concurrency = 1;
        rig.settings.limit = 5;
        rig.settings.when_closed = queue::WhenClosed::pass_over;
        dispatch_test::ListSource source(8);
        const Wall wall0 = at_utc(2026, 3, 2, 3);
        rig.clock.set_wall(wall0);
        const auto result = rig.run(source);
        CHECK(result.reason == queue::StopReason::limit);
        CHECK(rig.transport.started.size() == 3);
        CHECK(rig.recorder.events.size() == 3);
        REQUIRE(result.not_waited);
        CHECK(result.not_waited->reason.find("daily cap") != std::string::npos);
        CHECK(rig.clock.wall_now() < wall0 + std::chrono::minutes(1));
    }
}
