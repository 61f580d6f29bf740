// The window in each recipient's zone (schedule.window.timezone: recipient): the rows whose zone
// is in its window are sent while the others wait, set aside, for theirs.
#include <doctest/doctest.h>

#include <chrono>
#include <csignal>
#include <ctime>
#include <string>

#include "fixtures.hpp"

using namespace e2e;

namespace {

// The Etc/GMT zone (POSIX signs: Etc/GMT-5 is UTC+5) whose clock reads `hour` about now.
std::string zone_at_hour(int hour) {
    const std::time_t now = std::time(nullptr);
    std::tm utc{};
    gmtime_r(&now, &utc);
    int offset = ((hour - utc.tm_hour) % 24 + 24) % 24;  // 0..23 hours east
    if (offset > 12) {
        offset -= 24;  // Etc/GMT covers UTC-12 … UTC+14
    }
    if (offset == 0) {
        return "Etc/GMT";
    }
    return offset > 0 ? "Etc/GMT-" + std::to_string(offset) : "Etc/GMT+" + std::to_string(-offset);
}

// The window of both tests: 00:00-12:00 in each recipient's zone, UTC for the rest.
const std::string k_zoned_window =
    "schedule:\n  window: {timezone: recipient, fallback_timezone: UTC, from: \"00:00\", to: \"12:00\"}\n";

// Maps the CSV's `tz` column as recipients.columns.time_zone in `f`'s campaign file (the
// fixture writes its columns in one flow mapping).
void map_time_zone_column(const CampaignFixture& f) {
    std::string yaml = read_file(f.campaign);
    const std::string columns = "columns: {wa_id: phone, user_name: name, user_id: user_id}";
    REQUIRE(yaml.find(columns) != std::string::npos);
    yaml.replace(yaml.find(columns), columns.size(),
                 "columns: {wa_id: phone, user_name: name, user_id: user_id, time_zone: tz}");
    f.dir.write("campaign.yaml", yaml);
}

}  // namespace

TEST_SUITE("e2e: a window per recipient") {
    TEST_CASE("the open zone's rows are sent while the closed zone's wait; a stop leaves them for a resume") {
        Sandbox sandbox;
        // Six in the morning in one zone, six in the evening in the other; the window is
        // 00:00-12:00 in each recipient's zone: open for the first, closed for about six hours
        // for the second.
        const std::string morning = zone_at_hour(6);
        const std::string evening = zone_at_hour(18);
        std::string csv = "phone,name,user_id,tz\n";
        constexpr int k_rows = 6;
        for (int i = 0; i < k_rows; ++i) {
            csv += "+" + numbers_wa_id(i) + ",Person " + std::to_string(i) + ",u" + std::to_string(i) + "," +
                   (i % 2 == 0 ? morning : evening) + "\n";
        }
        CampaignFixture f(sandbox, csv, k_zoned_window);
        map_time_zone_column(f);

        Background run({"run", f.campaign.string(), "--yes"}, f.env);
        wait_for_delivered(sandbox, k_rows / 2);
        // The evening rows wait: the live line says how many, and for which zone's opening.
        CHECK(wait_until(
            [&] { return run.err().find("3 rows wait for their recipients' send windows") != std::string::npos; }));
        run.signal(SIGINT);
        CHECK(run.wait() == 3);
        CAPTURE(run.err());
        CHECK(run.err().find("outside the send window in " + evening) != std::string::npos);
        // The summary counts them by zone, with the opening; a resume sends them.
        CAPTURE(run.out());
        CHECK(run.out().find("3 row(s) were waiting for their recipients' send windows") != std::string::npos);
        CHECK(run.out().find("outside the send window in " + evening + ": 3 row(s), opens ") != std::string::npos);
        // On the zone's own clock (its window opens at its midnight), UTC beside.
        CHECK(run.out().find(" 00:00 " + evening + " (") != std::string::npos);
        const auto sent = delivered(sandbox);
        CHECK(sent.size() == k_rows / 2);
        for (int i = 0; i < k_rows; ++i) {
            CAPTURE(i);
            CHECK(sent.count(numbers_wa_id(i)) == (i % 2 == 0 ? 1u : 0u));
            CHECK(requests_for(sandbox, numbers_wa_id(i)) == (i % 2 == 0 ? 1 : 0));
        }
        // The waiting rows have no record: a resume finds them unsent.
        const auto status = f.final_status();
        for (const auto& [row, state] : status) {
            CAPTURE(row);
            CHECK(state == "sent");
            CHECK(row % 2 == 1);  // rows count from 1: the even indexes
        }
        CHECK(status.size() == k_rows / 2);
        const auto ends = of_event(f.records(), "end");
        REQUIRE(ends.size() == 1);
        CHECK(ends[0]["reason"] == "interrupted");
    }

    TEST_CASE("the dry run counts the rows per zone, says when each window opens, and how many took the fallback") {
        Sandbox sandbox;
        const std::string morning = zone_at_hour(6);
        const std::string evening = zone_at_hour(18);
        std::string csv = "phone,name,user_id,tz\n";
        for (int i = 0; i < 5; ++i) {
            csv += "+" + numbers_wa_id(i) + ",Person " + std::to_string(i) + ",u" + std::to_string(i) + "," +
                   (i < 3 ? morning : evening) + "\n";
        }
        // Blank: India has one civil time, the United States several (the fallback).
        csv += "+" + numbers_wa_id(5) + ",Person 5,u5,\n";
        csv += "+12125550123,Person 6,u6,\n";
        CampaignFixture f(sandbox, csv, k_zoned_window);
        map_time_zone_column(f);

        auto r = f.wacamp({"run", f.campaign.string(), "--dry-run", "--yes"});
        CAPTURE(r.out);
        CAPTURE(r.err);
        REQUIRE(r.exit_code == 0);
        CHECK(contains(r.out, "zones (4, rows that would be sent):"));
        CHECK(contains(r.out, morning + ": 3 row(s), its window is open now"));
        CHECK(contains(r.out, evening + ": 2 row(s), its window opens "));
        CHECK(contains(r.out, "Asia/Kolkata: 1 row(s)"));
        CHECK(contains(r.out, "UTC: 1 row(s)"));
        CHECK(contains(r.out, "1 row(s) on the fallback zone"));
        // The plan keeps each row's window on its own zone's clock: the morning zone's go now.
        CHECK(contains(r.out, "plan: 7 messages from "));
        CHECK_FALSE(contains(r.out, "fallback_timezone's clock"));
        CHECK(send_requests(sandbox) == 0);

        auto json = f.wacamp({"run", f.campaign.string(), "--dry-run", "--yes", "--log-format", "json"});
        CAPTURE(json.out);
        CHECK(contains(json.out, "\"fallback_rows\":1"));
        CHECK(contains(json.out, "{\"zone\":\"" + morning + "\",\"rows\":3,\"opens\":\""));
    }

    TEST_CASE("rows set aside that no temporary file can hold stop the run as temp_file_error, naming TMPDIR") {
        Sandbox sandbox;
        // Enough rows in a closed zone that they pass what is kept in memory and go to a file.
        const std::string evening = zone_at_hour(18);
        std::string csv = "phone,name,user_id,tz\n";
        constexpr int k_rows = 600;
        for (int i = 0; i < k_rows; ++i) {
            csv += "+" + numbers_wa_id(i) + ",Person " + std::to_string(i) + ",u" + std::to_string(i) + "," + evening +
                   "\n";
        }
        // No duplicate index (its sort would meet TMPDIR first, at the start) and no ledger.
        CampaignFixture f(sandbox, csv, k_zoned_window + "account: {ledger: off}\n");
        map_time_zone_column(f);
        std::string yaml = read_file(f.campaign);
        yaml.replace(yaml.find("  default_country: IN\n"), 0, "  dedupe: false\n");
        f.dir.write("campaign.yaml", yaml);
        const auto tmpdir = f.dir.path() / "no-such-folder";
        auto env = f.env;
        env["TMPDIR"] = tmpdir.string();

        // It stops by itself at the first spill; were the rows kept, it would wait for the window.
        Background run({"run", f.campaign.string(), "--yes", "--no-progress"}, env);
        auto code = run.wait_for(std::chrono::seconds(60));
        if (!code) {
            run.signal(SIGINT);
            code = run.wait();
        }
        const std::string said = run.out() + run.err();
        CAPTURE(said);
        CHECK(code == 3);
        CHECK(contains(
            said, "cannot create a temporary file in " + tmpdir.string() + " (TMPDIR): No such file or directory"));
        CHECK(contains(said, "the result log is fine"));
        CHECK_FALSE(contains(said, "the result log could not be written"));
        const auto ends = of_event(f.records(), "end");
        REQUIRE(ends.size() == 1);
        CHECK(ends[0]["reason"] == "temp_file_error");
        // Nothing was sent, and no row has a record: a resume finds them all to send.
        CHECK(send_requests(sandbox) == 0);
        CHECK(f.final_status().empty());
    }

    TEST_CASE("a test send (--limit) on a terminal passes over the closed zones' rows and ends") {
        Sandbox sandbox;
        const std::string morning = zone_at_hour(6);
        const std::string evening = zone_at_hour(18);
        // Rows 1 and 3 in the evening zone come first: a test send of 3 sends rows 2, 4, 5.
        std::string csv = "phone,name,user_id,tz\n";
        const std::vector<std::string> zones{evening, morning, evening, morning, morning, morning};
        for (std::size_t i = 0; i < zones.size(); ++i) {
            csv += "+" + numbers_wa_id(static_cast<int>(i)) + ",Person " + std::to_string(i) + ",u" +
                   std::to_string(i) + "," + zones[i] + "\n";
        }
        CampaignFixture f(sandbox, csv, k_zoned_window);
        map_time_zone_column(f);
        f.env["TZ"] = "Asia/Kolkata";
        auto r = on_terminal(f, {"run", f.campaign.string(), "--limit", "3"}, "y\n");
        CAPTURE(r.out);
        CHECK(r.exit_code == 0);
        const auto sent = delivered(sandbox);
        CHECK(sent.size() == 3);
        for (int i : {1, 3, 4}) {
            CHECK(sent.count(numbers_wa_id(i)) == 1u);
        }
        CHECK(contains(r.out, "stopped at --limit"));
        CHECK(contains(r.out, "passed over: 2 row(s) whose recipients' send windows are closed"));
        CHECK(contains(r.out, "the first opens "));
        CHECK(contains(r.out, " Asia/Kolkata ("));  // the machine's clock (TZ), UTC beside
        // The passed over have no record; the next test send passes them over again and sends
        // the last open row; a run without --limit would wait for them.
        CHECK(f.final_status().size() == 3);
        auto again = on_terminal(f, {"run", f.campaign.string(), "--limit", "3"}, "y\n");
        CAPTURE(again.out);
        CHECK(again.exit_code == 0);
        CHECK(delivered(sandbox).size() == 4);
        CHECK(delivered(sandbox).count(numbers_wa_id(5)) == 1u);
        CHECK(contains(again.out, "passed over: 2 row(s)"));
    }

    TEST_CASE("a test send (--limit) outside the campaign's send window sends nothing and says when it opens") {
        Sandbox sandbox;
        // A window of one hour that starts in about six hours, in a zone where it is 06:00 now.
        CampaignFixture f(
            sandbox, numbers_csv(3),
            "schedule:\n  window: {timezone: \"" + zone_at_hour(6) + "\", from: \"12:00\", to: \"13:00\"}\n");
        auto r = f.wacamp({"run", f.campaign.string(), "--limit", "2", "--yes"});
        CAPTURE(r.out);
        CAPTURE(r.err);
        CHECK(r.exit_code == 0);
        CHECK(total_delivered(sandbox) == 0);
        CHECK(contains(r.out, "outside the send window until "));
        CHECK(contains(r.out, "a test send (--limit) does not wait"));
        CHECK(of_event(f.records(), "attempt").empty());
    }
}
