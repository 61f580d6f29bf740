#include <doctest/doctest.h>

#include "runner/dry_run.hpp"
#include "runner_fixture.hpp"

using runner_test::column;
using runner_test::read_log;

TEST_SUITE("runner::dry_run") {
    TEST_CASE("every row is read and logged as it would go, with no request and the clock's times") {
        campaign_file_test::Folder folder;
        auto c = runner_test::three_recipients(folder);
        folder.put("samples/r.csv",
                   "phone,name,user_id\n"
                   "+919812345678,Asha,u-1\n"
                   "12345,Vikram,u-2\n"
                   "+919812345678,Asha again,u-3\n");
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
}
