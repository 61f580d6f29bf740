// `wacamp run` as a person at a terminal sees it: the confirmation and the live progress
// line, through a pseudo-terminal made by script(1) from util-linux; and without one.
#include <doctest/doctest.h>

#include "fixtures.hpp"

using namespace e2e;

namespace {

// The live line is redrawn in place: carriage return, erase the line, then the figures.
constexpr std::string_view k_live_line = "\r\x1b[Ksent ";

}  // namespace

TEST_SUITE("e2e: terminal") {
    TEST_CASE("on a terminal, run shows the campaign and first message and asks; n sends nothing") {
        Sandbox sandbox;
        CampaignFixture f(sandbox, numbers_csv(3));
        auto r = on_terminal(f, {"run", f.campaign.string()}, "n\n");
        CAPTURE(r.out);
        CHECK(r.exit_code == 3);  // declined: stopped before sending, resumable
        CHECK(contains(r.out, "e2e"));
        CHECK(contains(r.out, "3 to send now"));
        CHECK(contains(r.out, numbers_wa_id(0)));
        CHECK(contains(r.out, "Hi Person 0"));
        CHECK(contains(r.out, "Send 3 messages? [y/N]"));
        CHECK(contains(r.out, "Not sent."));
        CHECK(sandbox.journal().empty());
    }

    TEST_CASE("on a terminal, answering y sends") {
        Sandbox sandbox;
        CampaignFixture f(sandbox, numbers_csv(3));
        auto r = on_terminal(f, {"run", f.campaign.string()}, "y\n");
        CAPTURE(r.out);
        CHECK(r.exit_code == 0);
        CHECK(contains(r.out, "Send 3 messages? [y/N]"));
        CHECK(delivered(sandbox).size() == 3);
    }

    TEST_CASE("on a terminal, an empty answer is no") {
        Sandbox sandbox;
        CampaignFixture f(sandbox, numbers_csv(2));
        auto r = on_terminal(f, {"run", f.campaign.string()}, "\n");
        CAPTURE(r.out);
        CHECK(r.exit_code == 3);
        CHECK(contains(r.out, "Send 2 messages? [y/N]"));
        CHECK(send_requests(sandbox) == 0);
    }

    TEST_CASE("--yes does not ask") {
        Sandbox sandbox;
        CampaignFixture f(sandbox, numbers_csv(3));
        auto r = on_terminal(f, {"run", f.campaign.string(), "--yes"}, "");
        CAPTURE(r.out);
        CHECK(r.exit_code == 0);
        CHECK_FALSE(contains(r.out, "[y/N]"));
        CHECK(delivered(sandbox).size() == 3);
    }

    TEST_CASE("on a terminal, a live progress line is drawn and cleared before the summary") {
        Sandbox sandbox;
        CampaignFixture f(sandbox, numbers_csv(4));
        auto r = on_terminal(f, {"run", f.campaign.string(), "--yes"}, "");
        CAPTURE(r.out);
        REQUIRE(r.exit_code == 0);
        const auto live = r.out.find(k_live_line);
        REQUIRE(live != std::string::npos);
        CHECK(contains(r.out.substr(live), " · in flight "));
        // The summary starts on a clean line, after the last redraw.
        const auto summary = r.out.find("e2e: completed");
        REQUIRE(summary != std::string::npos);
        const auto last_live = r.out.rfind(k_live_line);
        CHECK(last_live < summary);
        CHECK(r.out.find("\r\x1b[K", last_live + 1) < summary);  // the line was cleared
    }

    // Failed before runner::send_campaign passed the number of jobs to the progress line.
    TEST_CASE("on a terminal, the live line says how many remain") {
        Sandbox sandbox;
        CampaignFixture f(sandbox, numbers_csv(4));
        auto r = on_terminal(f, {"run", f.campaign.string(), "--yes"}, "");
        CAPTURE(r.out);
        REQUIRE(r.exit_code == 0);
        CHECK(contains(r.out, " · remaining 4"));  // the first line, before any answer
    }

    TEST_CASE("--no-progress draws no progress line, even on a terminal") {
        Sandbox sandbox;
        CampaignFixture f(sandbox, numbers_csv(4));
        auto r = on_terminal(f, {"run", f.campaign.string(), "--yes", "--no-progress"}, "");
        CAPTURE(r.out);
        REQUIRE(r.exit_code == 0);
        CHECK_FALSE(contains(r.out, "\x1b["));
        CHECK_FALSE(contains(r.out, " · in flight "));
        CHECK(contains(r.out, "e2e: completed"));
    }

    TEST_CASE("without a terminal, progress comes as plain lines and nothing asks") {
        // The plain line comes every 10 s: the campaign is paced to last a little longer.
        Sandbox sandbox;
        CampaignFixture f(sandbox, numbers_csv(13), "rate: {per_second: 1, burst: 1}\n");
        auto r = f.wacamp({"run", f.campaign.string()});
        CAPTURE(r.err);
        REQUIRE(r.exit_code == 0);
        CHECK_FALSE(contains(r.err, "[y/N]"));
        CHECK_FALSE(contains(r.err, "\r"));
        CHECK_FALSE(contains(r.err, "\x1b"));
        const auto line = r.err.find("wacamp: progress: sent ");
        REQUIRE(line != std::string::npos);
        CHECK((line == 0 || r.err[line - 1] == '\n'));
        CHECK(r.err.find('\n', line) != std::string::npos);
        CHECK(delivered(sandbox).size() == 13);
    }
}
