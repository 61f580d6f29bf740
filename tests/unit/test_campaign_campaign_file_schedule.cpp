#include <doctest/doctest.h>

#include "campaign_file_fixture.hpp"

using namespace campaign_file_test;
using namespace std::chrono_literals;

TEST_SUITE("campaign::load_campaign schedule.not_after and max_delay") {
    TEST_CASE("not_after is read like start_at, max_delay like the file's other durations") {
        Folder folder;
        auto c = folder.load(k_minimal +
                             "schedule:\n  start_at: 2026-12-01T09:00:00+05:30\n  max_delay: 2h30m\n"
                             "  not_after: 2026-12-01 18:00Z\n");
        REQUIRE_MESSAGE(c, c.error().message);
        using namespace std::chrono;
        CHECK(c->schedule.max_delay == 150min);
        CHECK(c->schedule.not_after == sys_days(2026y / December / 1) + 18h);
    }

    TEST_CASE("neither is set unless written") {
        Folder folder;
        auto c = folder.load(k_minimal + "schedule: {start_at: 2026-12-01T09:00:00Z}\n");
        REQUIRE(c);
        CHECK_FALSE(c->schedule.not_after.has_value());
        CHECK_FALSE(c->schedule.max_delay.has_value());
    }

    TEST_CASE("not_after alone needs no start_at") {
        Folder folder;
        auto c = folder.load(k_minimal + "schedule: {not_after: 2026-12-01T09:00:00Z}\n");
        REQUIRE_MESSAGE(c, c.error().message);
        CHECK(c->schedule.not_after.has_value());
    }

    TEST_CASE("max_delay without start_at is an error naming the file, the line and the key") {
        Folder folder;
        auto c = folder.load(k_minimal + "schedule:\n  max_delay: 1h\n");
        REQUIRE_FALSE(c);
        CHECK_MESSAGE(c.error().message.find(folder.campaign_path() +
                                             ":12: schedule.max_delay: needs schedule.start_at") != std::string::npos,
                      c.error().message);
    }

    TEST_CASE("a bad max_delay names the file, the line and the key") {
        Folder folder;
        const auto yaml = k_minimal + "schedule:\n  start_at: 2026-12-01T09:00:00Z\n  max_delay: soon\n";
        auto c = folder.load(yaml);
        REQUIRE_FALSE(c);
        CHECK_MESSAGE(c.error().message.find(folder.campaign_path() + ":13: schedule.max_delay: ") != std::string::npos,
                      c.error().message);
        CHECK_PROBLEM(folder.problems(k_minimal + "schedule:\n  start_at: 2026-12-01T09:00:00Z\n  max_delay: 0s\n"),
                      "13: schedule.max_delay: must be between 1s and 366d, got 0s");
    }

    TEST_CASE("a bad not_after names the file, the line and the key") {
        Folder folder;
        auto c = folder.load(k_minimal + "schedule:\n  not_after: 2026-12-01T09:00:00\n");
        REQUIRE_FALSE(c);
        CHECK_MESSAGE(c.error().message.find(folder.campaign_path() +
                                             ":12: schedule.not_after: \"2026-12-01T09:00:00\" has no UTC offset") !=
                          std::string::npos,
                      c.error().message);
        CHECK_PROBLEM(folder.problems(k_minimal + "schedule: {not_after: yesterday}\n"),
                      "11: schedule.not_after: \"yesterday\" is not a date and time like 2026-12-01T09:00:00+05:30");
    }

    TEST_CASE("not_after at or before start_at is an error") {
        Folder folder;
        CHECK_PROBLEM(
            folder.problems(k_minimal +
                            "schedule:\n  start_at: 2026-12-01T09:00:00Z\n  not_after: 2026-12-01T08:00:00Z\n"),
            "13: schedule.not_after: must be after start_at (2026-12-01T09:00:00.000Z), got 2026-12-01T08:00:00.000Z");
        CHECK_PROBLEM(
            folder.problems(k_minimal +
                            "schedule:\n  start_at: 2026-12-01T09:00:00Z\n  not_after: 2026-12-01T09:00:00Z\n"),
            "13: schedule.not_after: must be after start_at (2026-12-01T09:00:00.000Z), got 2026-12-01T09:00:00.000Z");
    }
}
