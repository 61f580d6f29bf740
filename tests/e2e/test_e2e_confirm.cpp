// The question `run` asks on a terminal tells the truth: it counts what the account's ledger
// will hold back, previews a message that will really be sent, says when sending starts and
// about how long it takes; and declining leaves the folder as it was.
#include <doctest/doctest.h>

#include "fixtures.hpp"

using namespace e2e;

namespace {

// The lock file a run of `f` takes beside its result log.
std::filesystem::path lock_of(const CampaignFixture& f) {
    return f.log.string() + ".lock";
}

}  // namespace

TEST_SUITE("e2e: confirm") {
    TEST_CASE("the question counts the rows the ledger holds back and previews a row that will be sent") {
        Sandbox sandbox;
        CampaignFixture f(sandbox, numbers_csv(4));
        auto added = f.wacamp({"suppress", "add", "--campaign", f.campaign.string(), "+" + numbers_wa_id(0)});
        REQUIRE(added.exit_code == 0);
        auto r = on_terminal(f, {"run", f.campaign.string()}, "n\n");
        CAPTURE(r.out);
        CHECK(r.exit_code == 3);
        CHECK(contains(r.out, "4 rows in the CSV — 3 to send now, 1 held back by the account's ledger (suppressed 1)"));
        CHECK(contains(r.out, "0 duplicates"));
        CHECK(contains(r.out, "First message to be sent (to " + numbers_wa_id(1) + ")"));
        CHECK_FALSE(contains(r.out, "to " + numbers_wa_id(0)));
        CHECK(contains(r.out, "Starts now; takes about"));
        CHECK(contains(r.out, "Send 3 messages? [y/N]"));
        CHECK(sandbox.journal().empty());
    }

    TEST_CASE("declining leaves no lock file and no log behind, and a later run goes ahead") {
        Sandbox sandbox;
        CampaignFixture f(sandbox, numbers_csv(2));
        auto declined = on_terminal(f, {"run", f.campaign.string()}, "n\n");
        CAPTURE(declined.out);
        CHECK(declined.exit_code == 3);
        CHECK_FALSE(std::filesystem::exists(lock_of(f)));
        CHECK_FALSE(std::filesystem::exists(f.log));
        auto sent = on_terminal(f, {"run", f.campaign.string()}, "y\n");
        CAPTURE(sent.out);
        CHECK(sent.exit_code == 0);
        CHECK(delivered(sandbox).size() == 2);
        CHECK(std::filesystem::exists(lock_of(f)));  // a campaign ran with this log: its lock stays
    }

    TEST_CASE("declining to continue a campaign keeps its lock file") {
        Sandbox sandbox;
        CampaignFixture f(sandbox, numbers_csv(3));
        REQUIRE(f.wacamp({"run", f.campaign.string(), "--no-progress", "--limit", "1"}).exit_code == 0);
        REQUIRE(std::filesystem::exists(lock_of(f)));
        auto r = on_terminal(f, {"run", f.campaign.string()}, "n\n");
        CAPTURE(r.out);
        CHECK(contains(r.out, "2 to send now"));
        CHECK(contains(r.out, "1 already recorded"));
        CHECK(std::filesystem::exists(lock_of(f)));
    }

    TEST_CASE("the question says when a scheduled campaign starts") {
        Sandbox sandbox;
        CampaignFixture f(sandbox, numbers_csv(2), "schedule:\n  start_at: \"2099-01-02T03:04:00Z\"\n");
        f.env["TZ"] = "Asia/Kolkata";  // no window: on the machine's clock, UTC beside
        auto r = on_terminal(f, {"run", f.campaign.string()}, "n\n");
        CAPTURE(r.out);
        CHECK(contains(r.out, "Starts at 2099-01-02 08:34 Asia/Kolkata (03:04 UTC) (schedule.start_at)"));
        CHECK_FALSE(std::filesystem::exists(lock_of(f)));
    }

    TEST_CASE("with --limit, the question counts what this run sends and what is left for later") {
        Sandbox sandbox;
        CampaignFixture f(sandbox, numbers_csv(5));
        auto r = on_terminal(f, {"run", f.campaign.string(), "--limit", "2"}, "n\n");
        CAPTURE(r.out);
        CHECK(contains(r.out, "2 to send now"));
        CHECK(contains(r.out, "3 left for a later run (--limit)"));
        CHECK(contains(r.out, "Send 2 messages? [y/N]"));
    }

    TEST_CASE(
        "standard error redirected to a file: the question still goes to the terminal, and no means nothing sent") {
        Sandbox sandbox;
        CampaignFixture f(sandbox, numbers_csv(3));
        auto r = on_terminal(f, {"run", f.campaign.string()}, "n\n", "2>run.err");
        CAPTURE(r.out);
        CHECK(r.exit_code == 3);
        CHECK(contains(r.out, "Send 3 messages? [y/N]"));
        CHECK_FALSE(contains(read_file(f.dir.path() / "run.err"), "[y/N]"));
        CHECK(sandbox.journal().empty());
    }

    TEST_CASE("standard output and error both redirected: asked on the terminal, yes sends") {
        Sandbox sandbox;
        CampaignFixture f(sandbox, numbers_csv(3));
        auto r = on_terminal(f, {"run", f.campaign.string()}, "y\n", ">run.out 2>&1");
        CAPTURE(r.out);
        CHECK(r.exit_code == 0);
        CHECK(contains(r.out, "Send 3 messages? [y/N]"));
        CHECK(total_delivered(sandbox) == 3);
        CHECK(contains(read_file(f.dir.path() / "run.out"), "sent"));
    }

    TEST_CASE("--log-format json with standard error redirected, on a terminal: refused without --yes") {
        Sandbox sandbox;
        CampaignFixture f(sandbox, numbers_csv(3));
        auto r = on_terminal(f, {"run", f.campaign.string(), "--log-format", "json"}, "", "2>run.err");
        const std::string err = read_file(f.dir.path() / "run.err");
        CAPTURE(r.out);
        CAPTURE(err);
        CHECK(r.exit_code == 2);
        CHECK(contains(err, "add --yes"));
        CHECK(sandbox.journal().empty());
    }

    TEST_CASE("standard input not a terminal: never asked, whatever standard error is") {
        Sandbox sandbox;
        CampaignFixture f(sandbox, numbers_csv(2));
        auto r = on_terminal(f, {"run", f.campaign.string()}, "", "</dev/null");
        CAPTURE(r.out);
        CHECK(r.exit_code == 0);
        CHECK_FALSE(contains(r.out, "[y/N]"));
        CHECK(total_delivered(sandbox) == 2);
    }
}
