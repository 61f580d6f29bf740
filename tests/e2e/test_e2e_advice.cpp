// The advice at the end of a run is said once, in plain words, and never sends the person in
// a loop: a run that found nothing to send does not suggest running again.
#include <doctest/doctest.h>

#include "fixtures.hpp"

using namespace e2e;

namespace {

// How many times `part` appears in `text`.
int occurrences(const std::string& text, std::string_view part) {
    int n = 0;
    for (auto at = text.find(part); at != std::string::npos; at = text.find(part, at + part.size())) {
        ++n;
    }
    return n;
}

}  // namespace

TEST_SUITE("e2e: advice") {
    TEST_CASE("a campaign with nothing left to send does not advise resuming it, and says a hold once") {
        Sandbox sandbox({"--meta-error", numbers_wa_id(1) + "=131049"});
        CampaignFixture f(sandbox, numbers_csv(3));
        REQUIRE(f.wacamp({"run", f.campaign.string(), "--no-progress"}).exit_code == 1);

        auto again = f.wacamp({"run", f.campaign.string(), "--no-progress"});
        CAPTURE(again.out);
        CAPTURE(again.err);
        CHECK(contains(again.out, "already complete, nothing to send"));
        CHECK_FALSE(contains(again.out, "wacamp resume"));
        CHECK_FALSE(contains(again.err, "to continue"));
        // The hold, with its time, once; not the general note beside it.
        CHECK(occurrences(again.out, "held for WhatsApp's marketing limit until") == 1);
        CHECK_FALSE(contains(again.out, "a later run or resume retries them once 24 h have passed"));
        CHECK(requests_for(sandbox, numbers_wa_id(1)) == 1);
    }

    TEST_CASE("after --limit, the summary counts the rows not attempted yet") {
        Sandbox sandbox;
        CampaignFixture f(sandbox, numbers_csv(8));
        auto r = f.wacamp({"run", f.campaign.string(), "--no-progress", "--limit", "3"});
        CAPTURE(r.out);
        CHECK(r.exit_code == 0);
        CHECK(
            contains(r.out, "sent 3 · failed 0 · unknown 0 · invalid 0 · skipped 0 · remaining 5 (not yet attempted)"));
        auto json = f.wacamp({"run", f.campaign.string(), "--no-progress", "--limit", "2", "--log-format", "json"});
        CHECK(contains(json.out, R"("not_yet_attempted":3)"));
    }

    TEST_CASE("the question says \"1 duplicate\", not \"1 duplicates\"") {
        Sandbox sandbox;
        CampaignFixture f(sandbox, numbers_csv(3) + "+" + numbers_wa_id(0) + ",Again,u-again\n");
        auto r = on_terminal(f, {"run", f.campaign.string()}, "n\n");
        CAPTURE(r.out);
        CHECK(contains(r.out, ", 1 duplicate,"));
        CHECK_FALSE(contains(r.out, "1 duplicates"));
    }
    TEST_CASE(
        "unknown rows: the advice is a decision, saying they may have been delivered and how many, then the command") {
        Sandbox sandbox({"--latency", "3000"});
        CampaignFixture f(sandbox, numbers_csv(2));
        edit_campaign(f, "timeout: 5s", "timeout: 1s");  // each request times out: no answer
        auto r = f.wacamp({"run", f.campaign.string(), "--no-progress"});
        CAPTURE(r.out);
        CAPTURE(r.err);
        CHECK(r.exit_code == 1);
        CHECK(contains(r.out, "2 recipient(s) unknown: each request went out and got no answer"));
        CHECK(contains(r.out, "resending may deliver it twice"));
        CHECK(contains(r.out, "only to send them again: wacamp resume " + f.log.string() + " --resend-unknown"));
        auto json = f.wacamp({"resume", f.log.string(), "--no-progress", "--log-format", "json"});
        CHECK(
            contains(json.out, "\"resend_unknown_command\":\"wacamp resume " + f.log.string() + " --resend-unknown\""));
        auto report = f.wacamp({"report", f.log.string()});
        CAPTURE(report.out);
        CHECK(contains(report.out, "resending may deliver twice"));
        CHECK(contains(report.out, "Unknown: 2 requests went out and got no answer; each may have been delivered"));
        CHECK(contains(report.out, "  row 1 "));
        CHECK(contains(report.out, "  row 2 "));
    }
}
