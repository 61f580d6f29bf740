// Too late is not on time: a campaign past schedule.not_after, or not started by
// schedule.start_at + schedule.max_delay, sends nothing more and stops (exit 3, too_late); its
// rows stay for `resume --late-ok`.
#include <doctest/doctest.h>

#include <chrono>
#include <ctime>

#include "fixtures.hpp"

using namespace e2e;

namespace {

// "2026-11-27T13:00:05Z".
std::string utc_stamp(std::chrono::system_clock::time_point t) {
    const std::time_t seconds = std::chrono::system_clock::to_time_t(t);
    std::tm utc{};
    gmtime_r(&seconds, &utc);
    char text[32];
    std::strftime(text, sizeof text, "%Y-%m-%dT%H:%M:%SZ", &utc);
    return text;
}

int attempts_in(const CampaignFixture& f) {
    return static_cast<int>(of_event(f.records(), "attempt").size());
}

}  // namespace

TEST_SUITE("e2e: too late") {
    TEST_CASE("a run past start_at + max_delay sends nothing and exits 3 too_late; resume --late-ok sends the rows") {
        Sandbox sandbox;
        const auto start_at = std::chrono::system_clock::now() - std::chrono::hours(3);
        CampaignFixture f(sandbox, numbers_csv(4),
                          "schedule:\n  start_at: \"" + utc_stamp(start_at) + "\"\n  max_delay: 1h\n");
        f.env["TZ"] = "Asia/Kolkata";  // no window: times for people on the machine's clock
        auto r = f.wacamp({"run", f.campaign.string(), "--no-progress"});
        CAPTURE(r.out);
        CAPTURE(r.err);
        CHECK(r.exit_code == 3);
        // The summary's why names the deadline on the machine's clock with UTC beside, not in ISO.
        CHECK(contains(r.out, "schedule.max_delay ("));
        CHECK(contains(r.out, " Asia/Kolkata ("));
        CHECK_FALSE(contains(r.out, utc_stamp(start_at + std::chrono::hours(1)).substr(0, 16)));
        CHECK(contains(r.err, "too_late"));
        CHECK(contains(r.err, "schedule.max_delay"));
        CHECK(contains(r.err, "wacamp resume " + f.log.string() + " --late-ok"));
        CHECK(send_requests(sandbox) == 0);
        CHECK(attempts_in(f) == 0);
        const auto ends = of_event(f.records(), "end");
        REQUIRE(ends.size() == 1);
        CHECK(ends[0]["reason"] == "too_late");
        auto report = f.wacamp({"report", f.log.string()});
        CAPTURE(report.out);
        CHECK(contains(report.out, "wacamp resume " + f.log.string() + " --late-ok"));

        // Without the flag a resume is as late.
        auto again = f.wacamp({"resume", f.log.string(), "--no-progress"});
        CAPTURE(again.err);
        CHECK(again.exit_code == 3);
        CHECK(contains(again.err, "too_late"));
        CHECK(send_requests(sandbox) == 0);

        auto late = f.wacamp({"resume", f.log.string(), "--late-ok", "--no-progress"});
        CAPTURE(late.out);
        CAPTURE(late.err);
        CHECK(late.exit_code == 0);
        CHECK(total_delivered(sandbox) == 4);
        for (const auto& [row, status] : f.final_status()) {
            CHECK_MESSAGE(status == "sent", "row " << row);
        }
    }

    TEST_CASE("a run past not_after sends nothing and exits 3 too_late; run --late-ok sends") {
        Sandbox sandbox;
        const auto not_after = std::chrono::system_clock::now() - std::chrono::minutes(5);
        CampaignFixture f(sandbox, numbers_csv(2), "schedule:\n  not_after: \"" + utc_stamp(not_after) + "\"\n");
        auto r = f.wacamp({"run", f.campaign.string(), "--no-progress"});
        CAPTURE(r.err);
        CHECK(r.exit_code == 3);
        CHECK(contains(r.err, "schedule.not_after"));
        CHECK(send_requests(sandbox) == 0);
        auto late = f.wacamp({"run", f.campaign.string(), "--late-ok", "--no-progress"});
        CAPTURE(late.err);
        CHECK(late.exit_code == 0);
        CHECK(total_delivered(sandbox) == 2);
    }

    TEST_CASE("max_delay without start_at is refused: exit 2, the file and line named, nothing sent") {
        Sandbox sandbox;
        CampaignFixture f(sandbox, numbers_csv(2), "schedule:\n  max_delay: 1h\n");
        auto r = f.wacamp({"run", f.campaign.string(), "--no-progress"});
        CAPTURE(r.err);
        CHECK(r.exit_code == 2);
        CHECK(contains(r.err, f.campaign.string() + ":"));
        CHECK(contains(r.err, "schedule.max_delay: needs schedule.start_at"));
        CHECK(send_requests(sandbox) == 0);
    }
}
