#include <doctest/doctest.h>

#include <chrono>
#include <ctime>
#include <optional>

#include "queue/daily_cap.hpp"
#include "queue/send_window.hpp"
#include "queue/zone_windows.hpp"
#include "queue_dispatch_rig.hpp"
#include "runner/plan.hpp"

namespace {

using namespace std::chrono;
using namespace std::chrono_literals;

// Monday 2026-11-30 00:00 UTC.
const util::TimePoint k_monday{sys_days{year{2026} / 11 / 30}};

campaign::Campaign campaign_with(double per_second, std::optional<long long> per_day = std::nullopt) {
    campaign::Campaign c;
    c.service.base_url = "http://sandbox";
    c.rate.per_second = per_second;
    c.rate.per_day = per_day;
    return c;
}

campaign::Window weekdays_9_to_17() {
    return {.timezone = "UTC", .days = {1, 2, 3, 4, 5}, .from_minute = 9 * 60, .to_minute = 17 * 60};
}

runner::Plan plan_of(const campaign::Campaign& c, std::int64_t messages, util::TimePoint now) {
    auto plan = runner::make_plan(c, {.messages = messages, .now = now, .book = nullptr});
    REQUIRE(plan);
    return *plan;
}

}  // namespace

TEST_SUITE("runner::plan") {
    TEST_CASE("a campaign larger than a day of per_day spans three days") {
        const auto plan = plan_of(campaign_with(100, 1000), 2500, k_monday);
        REQUIRE(plan.kind == runner::Plan::Kind::timed);
        CHECK(plan.planned == 2500);
        CHECK(*plan.first == k_monday);
        CHECK(*plan.last >= k_monday + 48h);
        CHECK(*plan.last < k_monday + 48h + 10s);
        CHECK(plan.days == 3);
        CHECK(plan.larger_than_a_day());
        REQUIRE(plan.per_hour.size() == 49);
        CHECK(plan.per_hour[0] == 1000);
        CHECK(plan.per_hour[24] == 1000);
        CHECK(plan.per_hour[48] == 500);
        const auto text = runner::describe(plan);
        CHECK(text.find("plan: 2,500 messages from Mon 2026-11-30 00:00 UTC to Wed 2026-12-02 00:00 UTC (3 days)") ==
              0);
        CHECK(text.find("1,000 a day (rate.per_day)") != std::string::npos);
        CHECK(text.find("larger than a day of per_day") != std::string::npos);
    }

    TEST_CASE("a weekday window pushes the end past the weekend") {
        auto c = campaign_with(1);
        c.schedule.window = weekdays_9_to_17();
        const auto friday_16 = k_monday + days(4) + 16h;
        const auto plan = plan_of(c, 6000, friday_16);  // 3,600 on Friday, the rest on Monday
        REQUIRE(plan.kind == runner::Plan::Kind::timed);
        CHECK(*plan.first == friday_16);
        const auto next_monday_9 = k_monday + days(7) + 9h;
        CHECK(*plan.last > next_monday_9);
        CHECK(*plan.last < next_monday_9 + 1h);
        CHECK(plan.days == 4);
        CHECK(runner::describe(plan).find("to Mon 2026-12-07 09:") != std::string::npos);
    }

    TEST_CASE("the plan's times are shown on the given zone's clock with UTC beside") {
        auto c = campaign_with(1);
        c.schedule.window = weekdays_9_to_17();
        c.schedule.window->timezone = "Asia/Kolkata";
        const auto plan = plan_of(c, 2, k_monday);  // Monday 09:00 in Kolkata is 03:30 UTC
        const auto kolkata = util::TimeZone::locate("Asia/Kolkata");
        REQUIRE(kolkata);
        CHECK(runner::describe(plan, *kolkata)
                  .starts_with("plan: 2 messages from Mon 2026-11-30 09:00 Asia/Kolkata (03:30 UTC) to Mon "
                               "2026-11-30 09:00 Asia/Kolkata (03:30 UTC) (1 day)"));
    }

    TEST_CASE("start_at delays the first send") {
        auto c = campaign_with(10);
        c.schedule.start_at = k_monday + 5h;
        const auto plan = plan_of(c, 10, k_monday);
        CHECK(*plan.first == k_monday + 5h);
        CHECK(plan.days == 1);
    }

    TEST_CASE("an unlimited rate with no per_day and no window has no finish time") {
        const auto plan = plan_of(campaign_with(campaign::Rate::k_unlimited), 1000, k_monday);
        CHECK(plan.kind == runner::Plan::Kind::unbounded);
        CHECK(!plan.last);
        CHECK(runner::describe(plan) == "plan: 1,000 messages as fast as the service answers; no finish time\n");
    }

    TEST_CASE("a window with no days is never open") {
        auto c = campaign_with(10);
        c.schedule.window = weekdays_9_to_17();
        c.schedule.window->days.clear();
        const auto plan = plan_of(c, 10, k_monday);
        CHECK(plan.kind == runner::Plan::Kind::never);
        CHECK(runner::describe(plan).find("never sent") != std::string::npos);
    }

    TEST_CASE("the deadline stops the plan where it would stop the run") {
        auto c = campaign_with(1);
        c.schedule.not_after = k_monday + 100s;
        const auto plan = plan_of(c, 1000, k_monday);
        CHECK(plan.kind == runner::Plan::Kind::timed);
        CHECK(plan.planned > 90);
        CHECK(plan.planned <= 102);
        CHECK(*plan.last < k_monday + 100s);
        CHECK(runner::describe(plan).find("only ") != std::string::npos);
    }

    TEST_CASE("a deadline already past: never") {
        auto c = campaign_with(1);
        c.schedule.not_after = k_monday - 1s;
        const auto plan = plan_of(c, 10, k_monday);
        CHECK(plan.kind == runner::Plan::Kind::never);
    }

    TEST_CASE("the plan finds the first and last sends of the real dispatcher") {
        // One campaign: a weekday window and a per_day that spans three days.
        auto c = campaign_with(100, 1000);
        c.schedule.window = weekdays_9_to_17();
        const auto now = k_monday + 8h;
        const auto plan = plan_of(c, 2500, now);

        dispatch_test::Rig rig(dispatch_test::ok, c.rate.per_second, c.rate.burst, 0ms);
        rig.clock.set_wall(now);
        auto window = queue::SendWindow::make(*c.schedule.window);
        REQUIRE(window);
        queue::DailyCap cap(*c.rate.per_day);
        rig.window = &*window;
        rig.limits = &cap;
        std::optional<util::TimePoint> first, last;
        rig.recorder.attempt_hook = [&] {
            if (!first) {
                first = rig.clock.wall_now();
            }
            last = rig.clock.wall_now();
        };
        dispatch_test::ListSource source(2500);
        const auto result = rig.run(source);
        REQUIRE(result.reason == queue::StopReason::completed);
        REQUIRE(first);
        CHECK(*first == now + 1h);
        CHECK(*plan.first == *first);
        CHECK(*plan.last == *last);
        CHECK(plan.days == 3);
    }

    TEST_CASE("several zones, a window in each, a per_day spanning three days: the plan and the dispatcher agree") {
        // Three zones: UTC+9, UTC and UTC-5 (Etc/GMT signs are POSIX's), the window 09:00-17:00
        // every weekday in each; 100/s, 1,000 a day, 2,500 rows by turns.
        auto c = campaign_with(100, 1000);
        c.schedule.window = {.timezone = "",
                             .days = {1, 2, 3, 4, 5},
                             .from_minute = 9 * 60,
                             .to_minute = 17 * 60,
                             .per_recipient = true,
                             .fallback_timezone = "UTC"};
        const char* zone_names[] = {"Etc/GMT-9", "Etc/GMT", "Etc/GMT+5"};
        const auto zone_of = [&](std::int64_t row) { return std::string(zone_names[(row - 1) % 3]); };
        constexpr std::int64_t k_rows = 2500;
        const auto now = k_monday + 6h;  // 15:00 at UTC+9, 06:00 at UTC, 01:00 at UTC-5

        runner::ZoneSequence zones(*c.schedule.window);
        for (std::int64_t row = 1; row <= k_rows; ++row) {
            REQUIRE(zones.add(zone_of(row)));
        }
        auto planned = runner::make_plan(c, {.messages = k_rows, .now = now, .book = nullptr, .zones = &zones});
        REQUIRE(planned);
        const auto& plan = *planned;
        CHECK(plan.note.empty());  // each row on its own zone's clock, not the fallback's

        dispatch_test::Rig rig(dispatch_test::ok, c.rate.per_second, c.rate.burst, 0ms);
        rig.clock.set_wall(now);
        queue::ZoneWindows windows(*c.schedule.window);
        queue::DailyCap cap(*c.rate.per_day);
        rig.window = &windows;
        rig.limits = &cap;
        dispatch_test::ListSource source(static_cast<int>(k_rows));
        for (auto& job : source.jobs()) {
            auto index = windows.zone(zone_of(job.row));
            REQUIRE(index);
            job.zone = *index;
        }
        std::optional<util::TimePoint> first, last;
        rig.recorder.attempt_hook = [&] {
            if (!first) {
                first = rig.clock.wall_now();
            }
            last = rig.clock.wall_now();
        };
        const auto result = rig.run(source);
        REQUIRE(result.reason == queue::StopReason::completed);
        REQUIRE(first);
        REQUIRE(plan.first);
        REQUIRE(plan.last);
        CHECK(*first == now);  // UTC+9 is open at once
        CHECK(*plan.first == *first);
        CHECK(*plan.last == *last);
        CHECK(plan.days >= 3);
        CHECK(plan.planned == k_rows);
    }
}

// Not run by default (--no-skip): the plan's CPU time for 100k and 1M rows (docs/decisions/sending.md).
TEST_SUITE("runner::plan speed" * doctest::skip()) {
    TEST_CASE("plan of many rows") {
        for (const std::int64_t rows : {100'000, 1'000'000}) {
            for (const bool limits : {false, true}) {
                auto c = campaign_with(rows == 100'000 && limits ? 1 : 80,
                                       limits ? std::optional<long long>(100'000) : std::nullopt);
                if (limits) {
                    c.schedule.window = weekdays_9_to_17();
                }
                const auto started = std::clock();
                const auto plan = plan_of(c, rows, k_monday);
                MESSAGE(runner::describe(plan), " CPU ms: ", (std::clock() - started) * 1000 / CLOCKS_PER_SEC);
            }
        }
    }
}
