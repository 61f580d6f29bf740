// With --log-format json, every line names its campaign, and its account when the campaign
// keeps a ledger: progress, notices, warnings and errors as much as the summary, on stderr,
// stdout and in a --log-file alike, so that one log store can hold many campaigns.
#include <doctest/doctest.h>

#include <sstream>

#include "fixtures.hpp"

using namespace e2e;

namespace {

// The events of `lines`, and a check that each names the campaign and `account`.
std::set<std::string> check_named(const std::vector<nlohmann::json>& lines, const std::string& account) {
    std::set<std::string> events;
    for (const auto& line : lines) {
        CAPTURE(line.dump());
        events.insert(line.value("event", ""));
        CHECK(line.value("campaign", "") == "e2e");
        if (account.empty()) {
            CHECK((!line.contains("account") || line["account"].is_null()));
        } else {
            CHECK(line.value("account", "") == account);
        }
    }
    return events;
}

}  // namespace

TEST_SUITE("e2e: json lines") {
    TEST_CASE("every line of a run names the campaign and the account") {
        Sandbox sandbox({"--meta-error", numbers_wa_id(1) + "=131026"});
        CampaignFixture f(sandbox, numbers_csv(4));
        const auto file = f.dir.path() / "wacamp.log";
        auto r = f.wacamp({"run", f.campaign.string(), "--log-format", "json", "--log-file", file.string()});
        CAPTURE(r.out);
        CAPTURE(r.err);
        CHECK(r.exit_code == 1);
        const auto summary = of_event(json_lines(r.out), "summary");
        REQUIRE(summary.size() == 1);
        const std::string account = summary[0].value("account", "");
        CHECK(contains(account, std::to_string(sandbox.port())));
        const auto err_events = check_named(json_lines(r.err), account);
        CHECK(err_events.contains("progress"));
        CHECK(err_events.contains("error"));
        check_named(json_lines(r.out), account);
        const auto file_events = check_named(read_jsonl(file), account);
        CHECK(file_events.contains("summary"));
        // A resume's notices ("continuing from …") too.
        auto resumed = f.wacamp({"resume", f.log.string(), "--log-format", "json"});
        CHECK(of_event(json_lines(resumed.err), "notice").size() > 0);
        check_named(json_lines(resumed.err), account);
    }

    TEST_CASE("without a ledger the lines name the campaign and no account") {
        Sandbox sandbox;
        CampaignFixture f(sandbox, numbers_csv(2), "account: {ledger: off}\n");
        auto r = f.wacamp({"run", f.campaign.string(), "--log-format", "json"});
        CAPTURE(r.err);
        CHECK(r.exit_code == 0);
        check_named(json_lines(r.err), "");
        check_named(json_lines(r.out), "");
    }
}
