#include <doctest/doctest.h>

#include <filesystem>

#include "cli/run_common.hpp"
#include "runner/account_book.hpp"
#include "runner/dry_run.hpp"
#include "runner/screened_rows.hpp"
#include "runner/survey.hpp"
#include "runner_fixture.hpp"

using runner_test::column;
using runner_test::read_log;

namespace {

// The three-recipient campaign with a list of one row of each kind: to send, invalid, duplicate.
campaign::Campaign one_of_each(const campaign_file_test::Folder& folder) {
    auto c = runner_test::three_recipients(folder);
    folder.put("samples/r.csv",
               "phone,name,user_id\n"
               "+919812345678,Asha,u-1\n"
               "12345,Vikram,u-2\n"
               "+919812345678,Asha again,u-3\n");
    return c;
}

}  // namespace

TEST_SUITE("runner::dry_run") {
    TEST_CASE("every row is read and logged as it would go, with no request and the clock's times") {
        campaign_file_test::Folder folder;
        auto c = one_of_each(folder);
        fakes::FakeClock clock;
        auto report = runner::dry_run(c, folder.str("results.jsonl"), 1, clock);
        REQUIRE(report);
        CHECK(report->results_path == folder.str("results.dry-run.jsonl"));
        CHECK(report->counts[results::Status::dry_run] == 1);
        CHECK(report->counts[results::Status::invalid] == 1);
        CHECK(report->counts[results::Status::skipped] == 1);
        REQUIRE(report->samples.size() == 1);
        CHECK(report->samples.front().row == 1);
        REQUIRE(report->problems.size() == 1);
        CHECK(report->problems.front().find("row 2") != std::string::npos);
        CHECK(report->duration == std::chrono::milliseconds(0));

        const auto log = read_log(report->results_path);
        CHECK(column(log, "event") ==
              std::vector<std::string>{R"("campaign")", R"("result")", R"("result")", R"("result")", R"("end")"});
        CHECK(column(log, "status") ==
              std::vector<std::string>{"", R"("dry_run")", R"("invalid")", R"("skipped")", ""});
        CHECK(log.front()["mode"] == "dry_run");
        CHECK(log.front()["started_at"].get<std::string>().starts_with("2026-03-01T00:00:00"));
    }

    TEST_CASE("a second dry run starts its log afresh") {
        campaign_file_test::Folder folder;
        auto c = runner_test::three_recipients(folder);
        fakes::FakeClock clock;
        REQUIRE(runner::dry_run(c, folder.str("results.jsonl"), 0, clock));
        auto again = runner::dry_run(c, folder.str("results.jsonl"), 0, clock);
        REQUIRE(again);
        CHECK(read_log(again->results_path).size() == 5);  // campaign, three results, end
    }

    TEST_CASE("rows the ledger holds back are skipped with its cause; the ledger is read, never written") {
        campaign_file_test::Folder folder;
        const std::string ledger_path = folder.str("ledger.sqlite");
        auto c = runner_test::three_recipients(
            folder, "account: {ledger: ledger.sqlite}\nrate: {per_recipient: {max: 1, per: 7d}}\n");
        fakes::FakeClock clock;
        {
            auto ledger = account::open_ledger(ledger_path, {.account = c.account.name});
            REQUIRE(ledger);
            REQUIRE((*ledger)->suppress({{"919812345678", "opted_out", clock.wall_now(), "campaign:old"}}));
            account::ResultBatch sent;
            sent.delivered.push_back({"919812345680", "old@2026", 1, clock.wall_now() - std::chrono::days(1)});
            sent.now = clock.wall_now();
            REQUIRE((*ledger)->record(sent));
        }
        const auto size_before = std::filesystem::file_size(ledger_path);
        auto book = cli::open_account_book(c, account::Access::read_only);
        REQUIRE(book);
        REQUIRE(*book != nullptr);
        auto report = runner::dry_run(c, folder.str("results.jsonl"), 3, clock, {.book = book->get()});
        REQUIRE(report);
        CHECK(report->counts[results::Status::dry_run] == 1);
        CHECK(report->counts[results::Status::skipped] == 2);
        CHECK(report->causes[results::Cause::suppressed] == 1);
        CHECK(report->causes[results::Cause::frequency_cap] == 1);
        REQUIRE(report->samples.size() == 1);
        CHECK(report->samples.front().wa_id == "919812345679");
        const auto log = read_log(report->results_path);
        CHECK(column(log, "cause") == std::vector<std::string>{"", R"("suppressed")", "", R"("frequency_cap")", ""});
        CHECK(std::filesystem::file_size(ledger_path) == size_before);
    }
}

TEST_SUITE("runner::survey") {
    TEST_CASE("each row is told with whether it is to be sent; those to send are counted and priced") {
        campaign_file_test::Folder folder;
        auto c = one_of_each(folder);
        fakes::FakeClock clock;
        auto stream = campaign::RecipientStream::open(c);
        REQUIRE(stream);
        runner::ScreenedRows rows(*stream, nullptr, "spring@1", clock, nullptr);
        std::vector<std::pair<long long, bool>> told;
        auto surveyed =
            runner::survey(c, rows, clock, [&](const campaign::Recipient& r, const runner::Screening&, bool to_send) {
                told.emplace_back(r.row, to_send);
                return util::Result<void>();
            });
        REQUIRE(surveyed);
        CHECK(told == std::vector<std::pair<long long, bool>>{{1, true}, {2, false}, {3, false}});
        CHECK(surveyed->to_send == 1);
        CHECK(surveyed->cost.messages == 1);
        CHECK_FALSE(surveyed->unread);
        CHECK(surveyed->plan_inputs(clock.wall_now(), nullptr).messages == 1);
    }

    TEST_CASE("a row its caller fails on ends the survey with that error") {
        campaign_file_test::Folder folder;
        auto c = runner_test::three_recipients(folder);
        fakes::FakeClock clock;
        auto stream = campaign::RecipientStream::open(c);
        REQUIRE(stream);
        runner::ScreenedRows rows(*stream, nullptr, "spring@1", clock, nullptr);
        int calls = 0;
        auto surveyed = runner::survey(c, rows, clock, [&](const campaign::Recipient&, const runner::Screening&, bool) {
            ++calls;
            return util::Result<void>(util::fail("the log is full"));
        });
        REQUIRE_FALSE(surveyed);
        CHECK(surveyed.error().message == "the log is full");
        CHECK(calls == 1);
    }
}
