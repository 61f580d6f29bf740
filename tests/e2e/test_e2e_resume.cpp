#include <doctest/doctest.h>
#include <csignal>
#include <thread>

#include "fixtures.hpp"

using namespace e2e;

namespace {

// Waits until the log holds at least `results` result lines (or a few seconds pass).
void wait_for_results(const CampaignFixture& f, int results) {
    for (int i = 0; i < 200; ++i) {
        int n = 0;
        for (const auto& r : f.records()) {
            n += r.value("event", "") == "result" ? 1 : 0;
        }
        if (n >= results) {
            return;
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(25));
    }
}

}  // namespace

TEST_SUITE("e2e: resume") {
    TEST_CASE("after SIGKILL mid-campaign, resume delivers the rest and no one twice") {
        Sandbox sandbox({"--latency", "40"});
        const int n = 120;
        CampaignFixture f(sandbox, numbers_csv(n), "rate: {per_second: 100, concurrency: 4}\n");
        {
            Background run({"run", f.campaign.string(), "--no-progress"}, f.env);
            wait_for_results(f, 30);
            run.signal(SIGKILL);
            CHECK(run.wait() == 128 + SIGKILL);
        }
        auto interim = f.final_status();
        CHECK(interim.size() < static_cast<size_t>(n));
        auto resumed = f.wacamp({"resume", f.log.string(), "--no-progress"});
        CHECK((resumed.exit_code == 0 || resumed.exit_code == 1));
        auto sent = delivered(sandbox);
        for (const auto& [wa_id, times] : sent) {
            CAPTURE(wa_id);
            CHECK(times == 1);
        }
        // Every recipient is accounted for: sent, or unknown (killed in flight; at most `concurrency`).
        // At most `concurrency` in flight, and the 50 ms of the rate the ledger reserved ahead
        // (docs/ledger.md "Reserved ahead at a paced rate": 5 at 100/s), whose requests never
        // left but which the next run cannot tell from requests whose attempt lines were lost.
        const int unknown = sent_or_unknown(f, n);
        CHECK(unknown <= 4 + 5);
        CHECK(sent.size() + static_cast<size_t>(unknown) >= static_cast<size_t>(n));
    }
    TEST_CASE("resume finds the campaign from the log and says what it found") {
        Sandbox sandbox;
        CampaignFixture f(sandbox, numbers_csv(5));
        REQUIRE(f.wacamp({"run", f.campaign.string(), "--limit", "2"}).exit_code == 0);
        auto r = f.wacamp({"resume", f.log.string()});
        CHECK(r.exit_code == 0);
        CHECK(r.err.find("2 sent") != std::string::npos);
        CHECK(delivered(sandbox).size() == 5);
    }
    TEST_CASE("resume of something that is not a result log exits 2") {
        TempDir dir;
        auto bogus = dir.write("x.jsonl", "{\"event\":\"attempt\"}\n");
        CHECK(run_wacamp({"resume", bogus.string()}).exit_code == 2);
        CHECK(run_wacamp({"resume", (dir.path() / "missing.jsonl").string()}).exit_code == 2);
    }
}
