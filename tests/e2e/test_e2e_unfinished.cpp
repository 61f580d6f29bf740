// Reports of a campaign that has not reached the end of its list tell the truth: the list's
// size and what is not attempted yet, whether the CSV changed since, the runs and their
// sending time, invalid rows by reason, and the next step as an exact command.
#include <doctest/doctest.h>

#include <sys/stat.h>

#include <chrono>
#include <ctime>
#include <fstream>
#include <sstream>
#include <thread>

#include "fixtures.hpp"

using namespace e2e;

namespace {

nlohmann::json json_report(const CampaignFixture& f) {
    auto r = f.wacamp({"report", f.log.string(), "--format", "json"});
    REQUIRE(r.exit_code == 0);
    return nlohmann::json::parse(r.out);
}

std::string text_report(const CampaignFixture& f) {
    auto r = f.wacamp({"report", f.log.string()});
    REQUIRE(r.exit_code == 0);
    return r.out;
}

// "2026-11-27T13:00:05Z".
std::string utc_stamp(std::chrono::system_clock::time_point t) {
    const std::time_t seconds = std::chrono::system_clock::to_time_t(t);
    std::tm utc{};
    gmtime_r(&seconds, &utc);
    char text[32];
    std::strftime(text, sizeof text, "%Y-%m-%dT%H:%M:%SZ", &utc);
    return text;
}

}  // namespace

TEST_SUITE("e2e: unfinished") {
    TEST_CASE("a report of an interrupted campaign shows the list, what is not attempted yet and the next step") {
        Sandbox sandbox;
        CampaignFixture f(sandbox, numbers_csv(20));
        REQUIRE(f.wacamp({"run", f.campaign.string(), "--no-progress", "--limit", "5"}).exit_code == 0);

        const auto text = text_report(f);
        CAPTURE(text);
        CHECK(contains(text, "20 rows in " + std::filesystem::absolute(f.csv).lexically_normal().string() +
                                 ", unchanged since the log began"));
        CHECK(contains(text, "5 in the log · not yet attempted 15"));
        CHECK(contains(text, "Next step\n  to continue: wacamp resume " + f.log.string() + "\n"));

        const auto json = json_report(f);
        CHECK(json["list"]["rows"] == 20);
        CHECK(json["list"]["found"] == "same");
        CHECK(json["not_yet_attempted"] == 15);
        REQUIRE(json["next_steps"].size() == 1);
        CHECK(json["next_steps"][0]["command"] == "wacamp resume " + f.log.string());

        auto html = f.wacamp({"report", f.log.string(), "--format", "html"});
        CHECK(contains(html.out, R"(<div class="label">Not yet attempted</div><div class="value">15</div>)"));
        CHECK(contains(html.out, "<code>wacamp resume " + f.log.string() + "</code>"));

        // The list changed since: the report says so.
        {
            std::ofstream csv(f.csv, std::ios::app);
            csv << "+919812399999,Late,u-late\n";
        }
        const auto changed = json_report(f);
        CHECK(changed["list"]["found"] == "changed");
        CHECK(changed["list"]["rows"] == 21);
        CHECK(contains(text_report(f), "CHANGED since the log began"));
    }

    TEST_CASE("a report whose recipient list was replaced by a FIFO says so instead of waiting for a writer") {
        Sandbox sandbox;
        CampaignFixture f(sandbox, numbers_csv(3));
        REQUIRE(f.wacamp({"run", f.campaign.string(), "--no-progress", "--limit", "1"}).exit_code == 0);
        std::filesystem::remove(f.csv);
        REQUIRE(::mkfifo(f.csv.c_str(), 0600) == 0);
        auto r =
            run_program({"/usr/bin/timeout", "20", wacamp_path(), "report", f.log.string(), "--format", "json"}, f.env);
        REQUIRE(r.exit_code == 0);  // timeout(1) exits 124 when the report hangs
        const auto json = nlohmann::json::parse(r.out);
        CHECK(json["list"]["found"] == "missing");
        CHECK(contains(json["list"]["problem"].get<std::string>(), "not a regular file"));
    }

    TEST_CASE("each run is counted, and the send rate is over sending time, not the gaps between runs") {
        Sandbox sandbox;
        CampaignFixture f(sandbox, numbers_csv(6));
        constexpr auto k_gap = std::chrono::seconds(2);
        REQUIRE(f.wacamp({"run", f.campaign.string(), "--no-progress", "--limit", "2"}).exit_code == 0);
        std::this_thread::sleep_for(k_gap);
        REQUIRE(f.wacamp({"run", f.campaign.string(), "--no-progress", "--limit", "2"}).exit_code == 0);
        std::this_thread::sleep_for(k_gap);
        REQUIRE(f.wacamp({"run", f.campaign.string(), "--no-progress"}).exit_code == 0);
        // A run with nothing left to send adds nothing to the log.
        auto again = f.wacamp({"run", f.campaign.string(), "--no-progress"});
        CHECK(contains(again.out, "already complete"));

        const auto json = json_report(f);
        CHECK(json["runs"] == 3);
        CHECK(json["counts"]["sent"] == 6);
        // The two gaps are in the campaign's duration, never in its sending time.
        const double gaps = 2.0 * std::chrono::duration<double>(k_gap).count();
        CHECK(json["sending_s"].get<double>() <= json["duration_s"].get<double>() - gaps);
        CHECK(json["next_steps"].empty());
        CHECK(contains(text_report(f), "Next step\n  nothing left to do"));
    }

    TEST_CASE("invalid rows are grouped by reason in the text report and listed in the dry run's HTML") {
        Sandbox sandbox;
        const std::string csv =
            "phone,name,user_id\n"
            "not a number,A,u1\n"
            "+919812300001,B,u2\n"
            "call me,C,u3\n"
            "+91 12,D,u4\n"
            "+919812300002,E,u5\n"
            "+91 123,F,u6\n"
            "nope,G,u7\n";
        CampaignFixture f(sandbox, csv, "abort: {max_invalid_share: 1}\n");
        auto dry = f.wacamp({"run", f.campaign.string(), "--dry-run", "--no-progress"});
        CAPTURE(dry.out);
        CAPTURE(dry.err);
        REQUIRE(dry.exit_code == 0);
        const std::string dry_log = (f.log.parent_path() / f.log.stem()).string() + ".dry-run.jsonl";
        auto text = f.wacamp({"report", dry_log});
        CAPTURE(text.out);
        REQUIRE(text.exit_code == 0);
        // Two reasons, each its own group with its own count: three rows hold no number, two hold
        // a number too short for India.
        CHECK(contains(text.out, "3  invalid"));
        CHECK(contains(text.out, "2  invalid"));
        CHECK(contains(text.out, "is not a phone number"));
        CHECK(contains(text.out, "Next step\n  to send it: wacamp run "));

        auto html = f.wacamp({"report", dry_log, "--format", "html"});
        REQUIRE(html.exit_code == 0);
        CHECK(contains(html.out, R"(<section id="invalid"><h2>Invalid rows (5)</h2>)"));
        CHECK(contains(html.out, "not a number"));
        CHECK(contains(html.out, "call me"));
    }

    TEST_CASE("the summary's time does not count the wait for schedule.start_at") {
        Sandbox sandbox;
        const auto start_at =
            std::chrono::floor<std::chrono::seconds>(std::chrono::system_clock::now() + std::chrono::seconds(3));
        CampaignFixture f(sandbox, numbers_csv(2), "schedule:\n  start_at: \"" + utc_stamp(start_at) + "\"\n");
        auto r = f.wacamp({"run", f.campaign.string(), "--no-progress", "--log-format", "json"});
        const auto ended = std::chrono::system_clock::now();
        CAPTURE(r.out);
        CAPTURE(r.err);
        REQUIRE(r.exit_code == 0);
        const auto summaries = of_event(json_lines(r.out), "summary");
        REQUIRE(summaries.size() == 1);
        // However slow the machine, the run cannot have taken longer than the time since start_at.
        const auto since_start = std::chrono::duration_cast<std::chrono::milliseconds>(ended - start_at);
        CHECK(summaries[0]["duration_ms"].get<std::int64_t>() <= since_start.count());
    }
}
