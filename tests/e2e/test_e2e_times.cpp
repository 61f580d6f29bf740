// Times a person reads — the plan, the zones' openings, the summary, the text report — on the
// campaign's clock (its window's zone; without one, the machine's: TZ) with UTC beside them;
// JSON keeps UTC.
#include <doctest/doctest.h>

#include <ctime>
#include <string>

#include "fixtures.hpp"

using namespace e2e;

namespace {

// Seven rows, three a day, from a Monday's window opening in Kolkata (03:30 UTC).
const std::string k_kolkata_window =
    "rate:\n  per_second: 2\n  per_day: 3\n"
    "schedule:\n  start_at: 2030-12-02T09:00:00+05:30\n"
    "  window: {days: [mon, tue, wed, thu, fri], from: \"09:00\", to: \"17:00\", timezone: Asia/Kolkata}\n";

// The Etc/GMT zone (POSIX signs: Etc/GMT-5 is UTC+5) whose clock reads `hour` about now, and its
// offset east of UTC in hours.
std::pair<std::string, int> zone_at_hour(int hour) {
    const std::time_t now = std::time(nullptr);
    std::tm utc{};
    gmtime_r(&now, &utc);
    int offset = ((hour - utc.tm_hour) % 24 + 24) % 24;
    if (offset > 12) {
        offset -= 24;  // Etc/GMT covers UTC-12 … UTC+14
    }
    if (offset == 0) {
        return {"Etc/GMT", 0};
    }
    return {offset > 0 ? "Etc/GMT-" + std::to_string(offset) : "Etc/GMT+" + std::to_string(-offset), offset};
}

}  // namespace

TEST_SUITE("e2e: times on the campaign's clock") {
    TEST_CASE("the plan is on the window's clock with UTC beside, whatever the machine's zone") {
        Sandbox sandbox;
        CampaignFixture f(sandbox, numbers_csv(7), k_kolkata_window);
        f.env["TZ"] = "America/New_York";
        auto r = f.wacamp({"validate", f.campaign.string()});
        CAPTURE(r.out);
        CHECK(r.exit_code == 0);
        CHECK(contains(r.out,
                       "plan: 7 messages from Mon 2030-12-02 09:00 Asia/Kolkata (03:30 UTC) to Wed 2030-12-04 09:00 "
                       "Asia/Kolkata (03:30 UTC) (3 days)"));
    }
    TEST_CASE("without a window, the plan is on the machine's clock (TZ) with UTC beside; its JSON in UTC") {
        Sandbox sandbox;
        CampaignFixture f(sandbox, numbers_csv(3),
                          "rate:\n  per_second: 1\nschedule:\n  start_at: 2030-12-02T09:00:00Z\n");
        f.env["TZ"] = "Asia/Kolkata";
        auto r = f.wacamp({"run", "--dry-run", f.campaign.string()});
        CAPTURE(r.out);
        CHECK(r.exit_code == 0);
        CHECK(contains(r.out,
                       "plan: 3 messages from Mon 2030-12-02 14:30 Asia/Kolkata (09:00 UTC) to Mon 2030-12-02 "
                       "14:30 Asia/Kolkata (09:00 UTC) (1 day)"));
        f.env["TZ"] = "UTC";
        auto utc = f.wacamp({"validate", f.campaign.string()});
        CAPTURE(utc.out);
        CHECK(contains(utc.out, "plan: 3 messages from Mon 2030-12-02 09:00 UTC to Mon 2030-12-02 09:00 UTC (1 day)"));
        auto json = f.wacamp({"run", "--dry-run", f.campaign.string(), "--log-format", "json"});
        const auto lines = of_event(json_lines(json.out), "dry_run");
        REQUIRE(lines.size() == 1);
        CHECK(lines[0]["plan"]["first"] == "2030-12-02T09:00:00.000Z");
    }
    TEST_CASE("the dry run gives each zone's opening on that zone's own clock, with UTC beside") {
        Sandbox sandbox;
        // 06:00 there now: its 12:00-13:00 window opens in about six hours, at its own 12:00.
        const auto [zone, east] = zone_at_hour(6);
        CampaignFixture f(sandbox, "phone,name,user_id,tz\n+" + numbers_wa_id(0) + ",Asha,u0," + zone + "\n",
                          "schedule:\n  window: {timezone: recipient, fallback_timezone: UTC, from: \"12:00\", to: "
                          "\"13:00\"}\n");
        std::string yaml = read_file(f.campaign);
        const std::string columns = "columns: {wa_id: phone, user_name: name, user_id: user_id}";
        REQUIRE(yaml.find(columns) != std::string::npos);
        yaml.replace(yaml.find(columns), columns.size(),
                     "columns: {wa_id: phone, user_name: name, user_id: user_id, time_zone: tz}");
        f.dir.write("campaign.yaml", yaml);
        f.env["TZ"] = "America/New_York";
        auto r = f.wacamp({"run", "--dry-run", f.campaign.string()});
        CAPTURE(r.out);
        CHECK(r.exit_code == 0);
        const int utc_hour = ((12 - east) % 24 + 24) % 24;
        const std::string utc_time = (utc_hour < 10 ? "0" : "") + std::to_string(utc_hour) + ":00";
        CHECK(contains(r.out, zone + ": 1 row(s), its window opens "));
        CHECK(contains(r.out, " 12:00 " + zone + " ("));
        CHECK(contains(r.out, utc_time + " UTC)\n"));
    }
    TEST_CASE("the text report shows its times on the campaign's clock with UTC beside") {
        Sandbox sandbox;
        CampaignFixture f(sandbox, numbers_csv(2));
        f.env["TZ"] = "Asia/Kolkata";
        REQUIRE(f.wacamp({"run", f.campaign.string(), "--yes"}).exit_code == 0);
        auto r = f.wacamp({"report", f.log.string()});
        CAPTURE(r.out);
        CHECK(r.exit_code == 0);
        CHECK(contains(r.out, " Asia/Kolkata ("));
        CHECK(contains(r.out, " UTC) by wacamp "));
        CHECK(!contains(r.out, "Z by wacamp"));
        // The window's zone wins over the machine's; a dry run's log of a Kolkata window.
        CampaignFixture windowed(sandbox, numbers_csv(7), k_kolkata_window);
        windowed.env["TZ"] = "America/New_York";
        REQUIRE(windowed.wacamp({"run", "--dry-run", windowed.campaign.string()}).exit_code == 0);
        const auto log = windowed.dir.path() / "results" / "e2e.dry-run.jsonl";
        auto text = windowed.wacamp({"report", log.string()});
        CAPTURE(text.out);
        CHECK(contains(text.out, " Asia/Kolkata ("));
        CHECK(!contains(text.out, "America/New_York"));
        auto html = windowed.wacamp({"report", log.string(), "--format", "html"});
        CHECK(contains(html.out,
                       "7 messages from Mon 2030-12-02 09:00 Asia/Kolkata (03:30 UTC) to Wed 2030-12-04 "
                       "09:00 Asia/Kolkata (03:30 UTC) (3 days)"));
        auto json = windowed.wacamp({"report", log.string(), "--format", "json"});
        CHECK(!contains(json.out, "Asia/Kolkata ("));
    }
}
