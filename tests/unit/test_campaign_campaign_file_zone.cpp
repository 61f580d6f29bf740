// The campaign file's keys for a window in each recipient's zone and for the account's
// messaging limit.

#include <doctest/doctest.h>

#include "campaign_file_fixture.hpp"

using namespace campaign_file_test;

TEST_SUITE("campaign::load_campaign recipient zones") {
    TEST_CASE("timezone: recipient keeps the window per recipient, with its fallback zone") {
        Folder folder;
        folder.put("samples/r.csv", "phone,name,tz\n");
        auto c = folder.load(minimal_with("user_name: name}", "user_name: name, time_zone: tz}") +
                             "schedule:\n"
                             "  window: {timezone: recipient, fallback_timezone: Asia/Kolkata, from: \"09:00\"}\n");
        REQUIRE_MESSAGE(c, (c ? "" : c.error().message));
        REQUIRE(c->schedule.window);
        CHECK(c->schedule.window->per_recipient);
        CHECK(c->schedule.window->timezone.empty());
        CHECK(c->schedule.window->fallback_timezone == "Asia/Kolkata");
        CHECK(c->schedule.window->from_minute == 9 * 60);
        CHECK(c->recipients.columns.time_zone == "tz");
    }

    TEST_CASE("a named zone is no recipient zone, and has no fallback") {
        Folder folder;
        auto c = folder.load(k_minimal + "schedule: {window: {timezone: Europe/Berlin}}\n");
        REQUIRE(c);
        CHECK_FALSE(c->schedule.window->per_recipient);
        CHECK(c->schedule.window->timezone == "Europe/Berlin");
        CHECK(c->schedule.window->fallback_timezone.empty());
        CHECK(c->recipients.columns.time_zone.empty());
    }

    TEST_CASE("timezone: recipient without fallback_timezone names the missing key") {
        Folder folder;
        CHECK_PROBLEM(folder.problems(k_minimal + "schedule:\n  window:\n    timezone: recipient\n"),
                      "13: schedule.window.timezone: recipient needs schedule.window.fallback_timezone, the zone of "
                      "rows whose zone is neither in recipients.columns.time_zone nor told by their number's "
                      "country");
    }

    TEST_CASE("fallback_timezone is checked like timezone") {
        Folder folder;
        CHECK_PROBLEM(folder.problems(k_minimal + "schedule:\n  window:\n    timezone: recipient\n"
                                                  "    fallback_timezone: Asia/Calcuta\n"),
                      "14: schedule.window.fallback_timezone: unknown time zone \"Asia/Calcuta\" (expected an IANA "
                      "name like Asia/Kolkata)");
    }

    TEST_CASE("fallback_timezone without timezone: recipient is refused") {
        Folder folder;
        CHECK_PROBLEM(folder.problems(k_minimal + "schedule:\n  window:\n    timezone: UTC\n"
                                                  "    fallback_timezone: Asia/Kolkata\n"),
                      "14: schedule.window.fallback_timezone: only applies to timezone: recipient");
    }

    TEST_CASE("a time_zone column without timezone: recipient is refused, on its line") {
        Folder folder;
        const std::string yaml = minimal_with("columns: {wa_id: phone, user_name: name}",
                                              "columns:\n    wa_id: phone\n    user_name: name\n    time_zone: tz");
        CHECK_PROBLEM(folder.problems(yaml),
                      "10: recipients.columns.time_zone: only applies to "
                      "schedule.window.timezone: recipient");
        CHECK_PROBLEM(folder.problems(yaml + "schedule: {window: {timezone: UTC}}\n"),
                      "10: recipients.columns.time_zone: only applies to schedule.window.timezone: recipient");
    }
}

TEST_SUITE("campaign::load_campaign messaging limit") {
    TEST_CASE("a numeric messaging_limit is kept and becomes rate.per_day") {
        Folder folder;
        auto c = folder.load(k_minimal + "account: {messaging_limit: 2000}\n");
        REQUIRE(c);
        CHECK(c->account.messaging_limit_given);
        CHECK(c->account.messaging_limit == 2000);
        CHECK(c->rate.per_day == 2000);
    }

    TEST_CASE("rate.per_day given wins over messaging_limit") {
        Folder folder;
        auto c = folder.load(k_minimal + "rate: {per_day: 500}\naccount: {messaging_limit: 10000}\n");
        REQUIRE(c);
        CHECK(c->account.messaging_limit == 10000);
        CHECK(c->rate.per_day == 500);
    }

    TEST_CASE("unlimited is given but sets no number; absent is neither") {
        Folder folder;
        auto unlimited = folder.load(k_minimal + "account: {messaging_limit: unlimited}\n");
        REQUIRE(unlimited);
        CHECK(unlimited->account.messaging_limit_given);
        CHECK_FALSE(unlimited->account.messaging_limit.has_value());
        CHECK_FALSE(unlimited->rate.per_day.has_value());
        auto absent = folder.load(k_minimal);
        REQUIRE(absent);
        CHECK_FALSE(absent->account.messaging_limit_given);
        CHECK_FALSE(absent->account.messaging_limit.has_value());
    }

    TEST_CASE("a value that is no tier names the key and the allowed values") {
        Folder folder;
        for (const std::string value : {"3000", "1000000", "2,000", "-250", "250.5", "lots"}) {
            CHECK_PROBLEM(folder.problems(k_minimal + "account:\n  messaging_limit: \"" + value + "\"\n"),
                          "12: account.messaging_limit: expected one of Meta's tiers: 250, 2000, 10000, 100000 or "
                          "unlimited, got \"" +
                              value + "\"");
        }
    }
}
