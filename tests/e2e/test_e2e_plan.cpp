#include <doctest/doctest.h>

#include "fixtures.hpp"

using namespace e2e;

namespace {

// Seven rows, three a day, from a Monday's window opening: Monday, Tuesday, Wednesday.
const std::string k_three_days =
    "rate:\n  per_second: 2\n  per_day: 3\n"
    "schedule:\n  start_at: 2030-12-02T09:00:00+05:30\n"
    "  window: {days: [mon, tue, wed, thu, fri], from: \"09:00\", to: \"17:00\", timezone: Asia/Kolkata}\n";

}  // namespace

TEST_SUITE("e2e: the campaign's plan") {
    TEST_CASE("validate prints the plan: first and last send, days, and a campaign larger than a day") {
        Sandbox sandbox;
        CampaignFixture f(sandbox, numbers_csv(7), k_three_days);
        auto r = f.wacamp({"validate", f.campaign.string()});
        CAPTURE(r.out);
        CAPTURE(r.err);
        CHECK(r.exit_code == 0);
        CHECK(contains(r.out,
                       "plan: 7 messages from Mon 2030-12-02 09:00 Asia/Kolkata (03:30 UTC) to Wed 2030-12-04 "
                       "09:00 Asia/Kolkata (03:30 UTC) (3 days) at 2/s, 3 a day (rate.per_day), in mon-fri "
                       "09:00-17:00 Asia/Kolkata\n"));
        CHECK(contains(r.out, "larger than a day of per_day (3): it spans 3 days"));
        CHECK(sandbox.journal().empty());
    }
    TEST_CASE("the dry run prints the plan and carries it in its JSON") {
        Sandbox sandbox;
        CampaignFixture f(sandbox, numbers_csv(7), k_three_days);
        auto text = f.wacamp({"run", "--dry-run", f.campaign.string()});
        CAPTURE(text.out);
        CHECK(text.exit_code == 0);
        CHECK(contains(text.out,
                       "  plan: 7 messages from Mon 2030-12-02 09:00 Asia/Kolkata (03:30 UTC) to Wed 2030-12-04"));
        auto json = f.wacamp({"run", "--dry-run", f.campaign.string(), "--log-format", "json"});
        CAPTURE(json.out);
        REQUIRE(json.exit_code == 0);
        const auto lines = of_event(json_lines(json.out), "dry_run");
        REQUIRE(lines.size() == 1);
        const auto& plan = lines[0]["plan"];
        CHECK(plan["kind"] == "timed");
        CHECK(plan["messages"] == 7);
        CHECK(plan["first"] == "2030-12-02T03:30:00.000Z");
        // The day's count keeps a second's sends together, counted at the latest of them (03:30:00.5
        // on Monday, two at 2/s): Wednesday's room opens half a second after the window does.
        CHECK(plan["last"] == "2030-12-04T03:30:00.500Z");
        CHECK(plan["days"] == 3);
        CHECK(plan["per_day"] == 3);
        CHECK(plan["room_today"] == 3);
        CHECK(plan["larger_than_a_day"] == true);
        CHECK(sandbox.journal().empty());
        // The dry run's log keeps it in its end record, messages per hour from the first send's.
        const auto records = read_jsonl(f.dir.path() / "results" / "e2e.dry-run.jsonl");
        REQUIRE(!records.empty());
        const auto& kept = records.back()["plan"];
        CHECK(kept["first"] == "2030-12-02T03:30:00.000Z");
        CHECK(kept["days"] == 3);
        REQUIRE(kept["per_hour"].size() == 49);
        CHECK(kept["per_hour"][0] == 3);
        CHECK(kept["per_hour"][24] == 3);
        CHECK(kept["per_hour"][48] == 1);
    }
    TEST_CASE("report --format html of a dry-run log draws the plan's messages per hour") {
        Sandbox sandbox;
        CampaignFixture f(sandbox, numbers_csv(7), k_three_days);
        REQUIRE(f.wacamp({"run", "--dry-run", f.campaign.string()}).exit_code == 0);
        const auto log = f.dir.path() / "results" / "e2e.dry-run.jsonl";
        auto report = f.wacamp({"report", log.string(), "--format", "html"});
        CAPTURE(report.err);
        REQUIRE(report.exit_code == 0);
        CHECK(contains(report.out, R"(<section id="plan"><h2>The plan</h2>)"));
        CHECK(contains(report.out, R"(id="chart-plan")"));
        CHECK(contains(report.out,
                       "7 messages from Mon 2030-12-02 09:00 Asia/Kolkata (03:30 UTC) to Wed 2030-12-04 09:00 "
                       "Asia/Kolkata (03:30 UTC) (3 days)"));
    }
    TEST_CASE("an unlimited rate with no per_day or window has no finish time") {
        Sandbox sandbox;
        CampaignFixture f(sandbox, numbers_csv(3), "rate:\n  per_second: unlimited\n");
        auto r = f.wacamp({"validate", f.campaign.string()});
        CAPTURE(r.out);
        CHECK(r.exit_code == 0);
        CHECK(contains(r.out, "plan: 3 messages as fast as the service answers; no finish time"));
    }

    TEST_CASE("a second campaign to numbers messaged today: the plan counts them, and they cost no new room") {
        Sandbox sandbox;
        CampaignFixture f(sandbox, numbers_csv(3), "rate:\n  per_second: 20\n  per_day: 3\n");
        auto first = f.wacamp({"run", f.campaign.string(), "--yes"});
        REQUIRE(first.exit_code == 0);
        REQUIRE(total_delivered(sandbox) == 3);
        // The same list, another campaign: the day is full (3 of 3), but every number is in it.
        edit_campaign(f, "name: e2e", "name: e2e-second");
        edit_campaign(f, "results: results/e2e.jsonl", "results: results/e2e-second.jsonl");
        auto dry = f.wacamp({"run", "--dry-run", f.campaign.string()});
        CAPTURE(dry.out);
        CHECK(dry.exit_code == 0);
        CHECK(contains(dry.out,
                       "the account already messaged 3 of these numbers in the last 24 h, 3 in the last 7 days"));
        CHECK(contains(dry.out, "the account's room now: enough for all of them, of 3"));
        CHECK(contains(dry.out, "(1 day)"));
        auto json = f.wacamp({"validate", f.campaign.string(), "--log-format", "json"});
        CAPTURE(json.out);
        REQUIRE(json.exit_code == 0);
        const auto lines = of_event(json_lines(json.out), "validate");
        REQUIRE(lines.size() == 1);
        CHECK(lines[0]["plan"]["messaged_24h"] == 3);
        CHECK(lines[0]["plan"]["messaged_7d"] == 3);
        CHECK(lines[0]["plan"]["room_today"] == 3);
        // As the plan says, the run sends them at once.
        auto second = f.wacamp({"run", f.campaign.string(), "--yes"});
        CAPTURE(second.out);
        CHECK(second.exit_code == 0);
        CHECK(total_delivered(sandbox) == 6);
    }
}
