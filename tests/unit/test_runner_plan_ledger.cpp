#include <doctest/doctest.h>

#include "account_ledger_fixture.hpp"
#include "campaign_file_fixture.hpp"
#include "cli/run_common.hpp"
#include "runner/account_book.hpp"
#include "runner/plan.hpp"

using namespace std::chrono_literals;

TEST_SUITE("runner::plan with a ledger") {
    TEST_CASE("the account's sends in the trailing 24 h leave the plan today's room, and count until a day from now") {
        campaign_file_test::Folder folder;
        auto c =
            folder.load(campaign_file_test::k_minimal +
                        "account: {name: acme, ledger: state/ledger.sqlite}\nrate: {per_second: 100, per_day: 10}\n");
        REQUIRE_MESSAGE(c.ok(), (c.ok() ? "" : c.error().message));
        const auto now = account_fixture::k_t0;
        {
            auto writer = cli::open_account_book(*c, account::Access::read_write);
            REQUIRE(writer.ok());
            REQUIRE(*writer != nullptr);
            auto reserved = (*writer)->ledger().reserve(
                account_fixture::request(account_fixture::sends("other@1", {"911", "912", "913", "914"}),
                                         account_fixture::per_day(10), now - 1h));
            REQUIRE(reserved.ok());
        }
        auto book = cli::open_account_book(*c, account::Access::read_only);
        REQUIRE(book.ok());
        REQUIRE(*book != nullptr);
        auto plan = runner::make_plan(*c, {.messages = 20, .now = now, .book = book->get()});
        REQUIRE_MESSAGE(plan.ok(), (plan.ok() ? "" : plan.error().message));
        CHECK(plan->room_today == 6);
        CHECK(plan->planned == 20);
        REQUIRE(plan->per_hour.size() == 49);
        CHECK(plan->per_hour[0] == 6);
        CHECK(plan->per_hour[24] == 10);
        CHECK(plan->per_hour[48] == 4);
        CHECK(plan->days == 3);
        CHECK(runner::describe(*plan).find("the account's room now: 6 of 10") != std::string::npos);
        CHECK_FALSE(plan->room_for_all);
        // Asked for fewer than the room: only known to hold them all.
        auto small = runner::make_plan(*c, {.messages = 2, .now = now, .book = book->get()});
        REQUIRE(small.ok());
        CHECK(small->room_for_all);
        CHECK(small->room_today == 2);
        CHECK(runner::describe(*small).find("enough for all of them, of 10") != std::string::npos);
    }

    TEST_CASE("numbers the account messaged today cost no new room: the plan sends them now, as the run does") {
        // The day is full (10 of 10), and 4 of the 6 rows to send are numbers messaged an hour ago.
        campaign_file_test::Folder folder;
        auto c =
            folder.load(campaign_file_test::k_minimal +
                        "account: {name: acme, ledger: state/ledger.sqlite}\nrate: {per_second: 100, per_day: 10}\n");
        REQUIRE_MESSAGE(c.ok(), (c.ok() ? "" : c.error().message));
        const auto now = account_fixture::k_t0;
        std::vector<std::string> numbers;
        for (int i = 0; i < 10; ++i) {
            numbers.push_back(std::to_string(911 + i));
        }
        {
            auto writer = cli::open_account_book(*c, account::Access::read_write);
            REQUIRE(writer.ok());
            REQUIRE((*writer)
                        ->ledger()
                        .reserve(account_fixture::request(account_fixture::sends("other@1", numbers),
                                                          account_fixture::per_day(10), now - 1h))
                        .ok());
        }
        auto book = cli::open_account_book(*c, account::Access::read_only);
        REQUIRE(book.ok());
        REQUIRE(*book != nullptr);
        auto plan = runner::make_plan(
            *c, {.messages = 6, .messaged_day = 4, .messaged_week = 5, .now = now, .book = book->get()});
        REQUIRE_MESSAGE(plan.ok(), (plan.ok() ? "" : plan.error().message));
        CHECK(plan->room_today == 4);
        REQUIRE(plan->first);
        CHECK(*plan->first < now + 1min);  // not "from" when the oldest send ages out
        REQUIRE(plan->last);
        CHECK(*plan->last >= now + 23h);  // the two new numbers wait for room
        const std::string text = runner::describe(*plan);
        CAPTURE(text);
        CHECK(text.find("the account's room now: 4 of 10") != std::string::npos);
        CHECK(text.find("the account already messaged 4 of these numbers in the last 24 h, 5 in the last 7 days") !=
              std::string::npos);
        CHECK(text.find("cost no new room of per_day") != std::string::npos);
    }

    TEST_CASE("the day's room is exact at its edges, and a per_day of a billion costs no more than one of ten") {
        campaign_file_test::Folder folder;
        const auto now = account_fixture::k_t0;
        const auto plan_at = [&](long long per_day, std::int64_t messages) {
            auto c =
                folder.load(campaign_file_test::k_minimal +
                            "account: {name: acme, ledger: state/ledger.sqlite}\nrate: {per_second: 100, per_day: " +
                            std::to_string(per_day) + "}\n");
            REQUIRE_MESSAGE(c.ok(), (c.ok() ? "" : c.error().message));
            auto book = cli::open_account_book(*c, account::Access::read_only);
            REQUIRE(book.ok());
            REQUIRE(*book != nullptr);
            auto plan = runner::make_plan(*c, {.messages = messages, .now = now, .book = book->get()});
            REQUIRE_MESSAGE(plan.ok(), (plan.ok() ? "" : plan.error().message));
            return *plan;
        };
        {
            auto c =
                folder.load(campaign_file_test::k_minimal + "account: {name: acme, ledger: state/ledger.sqlite}\n");
            REQUIRE(c.ok());
            auto writer = cli::open_account_book(*c, account::Access::read_write);
            REQUIRE(writer.ok());
            REQUIRE(*writer != nullptr);
            REQUIRE(
                (*writer)
                    ->ledger()
                    .reserve(account_fixture::request(account_fixture::sends("other@1", {"911", "912", "913", "914"}),
                                                      account_fixture::per_day(10), now - 1h))
                    .ok());
        }
        const auto full = plan_at(4, 3);
        CHECK(full.room_today == 0);  // at the cap: nothing until the account's sends age out
        CHECK(*full.first >= now + 24h);
        CHECK(plan_at(5, 3).room_today == 1);
        CHECK(plan_at(6, 3).room_today == 2);
        CHECK_FALSE(plan_at(6, 3).room_for_all);
        CHECK(plan_at(7, 3).room_for_all);
        const auto huge = plan_at(1'000'000'000, 3'000);
        CHECK(huge.room_for_all);
        CHECK(huge.room_today == 3'000);
        CHECK(huge.days == 1);
    }
}
