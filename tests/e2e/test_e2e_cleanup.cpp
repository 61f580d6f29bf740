#include <doctest/doctest.h>
#include <csignal>
#include <thread>

#include "../support/scripted_server.hpp"
#include "fixtures.hpp"

using namespace e2e;

namespace {

std::vector<nlohmann::json> status_updates(const Sandbox& sandbox) {
    std::vector<nlohmann::json> out;
    for (const auto& j : sandbox.journal()) {
        if (j.value("path", "") == "/inbox/users/status-update") {
            out.push_back(j);
        }
    }
    return out;
}

}  // namespace

TEST_SUITE("e2e: cleanup") {
    TEST_CASE("after the sends, the contacts reached are deleted in batches, once") {
        Sandbox sandbox({"--reject-number", numbers_wa_id(2)});
        CampaignFixture f(sandbox, numbers_csv(5), "cleanup: {delete_contacts: true, batch_size: 2}\n");
        auto r = f.wacamp({"run", f.campaign.string()});
        CHECK(r.exit_code == 1);  // one rejected
        auto puts = status_updates(sandbox);
        REQUIRE(puts.size() == 2);
        CHECK(puts[0]["body"]["ids"] == nlohmann::json::parse(R"(["u-0","u-1"])"));
        CHECK(puts[0]["body"]["status"] == "DELETED");
        CHECK(puts[1]["body"]["ids"] == nlohmann::json::parse(R"(["u-3","u-4"])"));
        CHECK(puts[0]["status"] == 200);
        int deletes = 0;
        for (const auto& rec : f.records()) {
            deletes += rec.value("event", "") == "delete" ? 1 : 0;
        }
        CHECK(deletes == 2);
        auto again = f.wacamp({"delete-contacts", f.log.string()});
        CHECK(again.exit_code == 0);
        CHECK(status_updates(sandbox).size() == 2);
    }
    TEST_CASE("a refused token leaves the batch failed; delete-contacts finishes it later") {
        Sandbox wrong({"--access-token", "another-token-123"});
        CampaignFixture f(wrong, numbers_csv(3), "cleanup: {delete_contacts: true, batch_size: 10}\n");
        auto r = f.wacamp({"run", f.campaign.string()});
        CHECK(r.exit_code == 1);
        CHECK(r.out.find("failed") != std::string::npos);
        // Asked again with the same wrong token: refused credentials stop it, exit 3.
        CHECK(f.wacamp({"delete-contacts", f.log.string()}).exit_code == 3);
        f.env["WACAMP_ACCESS_TOKEN"] = "another-token-123";
        auto finished = f.wacamp({"delete-contacts", f.log.string()});
        CHECK(finished.exit_code == 0);
        auto puts = status_updates(wrong);
        REQUIRE(puts.size() == 3);
        CHECK(puts[1]["status"] == 401);
        CHECK(puts[2]["status"] == 200);
        CHECK(puts[2]["body"]["ids"].size() == 3);
    }
    TEST_CASE("delete-contacts against a wrong path in base_url stops at the first batch (exit 3), naming the URL") {
        Sandbox sandbox({"--access-token", "another-token-123"});
        CampaignFixture f(sandbox, numbers_csv(3), "cleanup: {delete_contacts: true, batch_size: 1}\n");
        CHECK(f.wacamp({"run", f.campaign.string()}).exit_code == 1);  // the token refused: left to finish
        f.env["WACAMP_BASE_URL"] = sandbox.url() + "/api/v1";
        auto r = f.wacamp({"delete-contacts", f.log.string()});
        CAPTURE(r.out);
        CAPTURE(r.err);
        CHECK(r.exit_code == 3);
        CHECK(contains(r.out + r.err, "PUT " + sandbox.url() + "/api/v1/inbox/users/status-update answered HTTP 404"));
        int wrong = 0;
        for (const auto& j : sandbox.journal()) {
            wrong += j.value("path", "") == "/api/v1/inbox/users/status-update" ? 1 : 0;
        }
        CHECK(wrong == 1);  // the first batch only
    }
    TEST_CASE("a batch the service rejects is a failure (exit 1) whatever its text says") {
        Sandbox sandbox;
        CampaignFixture f(sandbox, numbers_csv(3), "cleanup: {delete_contacts: true, batch_size: 10}\n");
        REQUIRE(f.wacamp({"run", f.campaign.string(), "--limit", "2"}).exit_code == 0);  // no cleanup after --limit
        // The text names an HTTP 403 it passed on; the answer itself is a 400, not a refusal.
        test_support::ScriptedServer server([](const test_support::ReceivedRequest&) {
            return test_support::answer(400, R"({"success":false,"message":"upstream said HTTP 403"})");
        });
        f.env["WACAMP_BASE_URL"] = server.url();
        auto r = f.wacamp({"delete-contacts", f.log.string()});
        CAPTURE(r.out);
        CAPTURE(r.err);
        CHECK(contains(r.out + r.err, "upstream said HTTP 403"));
        CHECK(r.exit_code == 1);
    }
    TEST_CASE("an interrupted delete-contacts exits 3 and says how to finish; a second call does") {
        Sandbox sandbox({"--latency", "300"});
        CampaignFixture f(sandbox, numbers_csv(6), "cleanup: {delete_contacts: true, batch_size: 1}\n");
        REQUIRE(f.wacamp({"run", f.campaign.string(), "--limit", "4"}).exit_code == 0);  // no cleanup after --limit
        CHECK(status_updates(sandbox).empty());
        Background cleanup({"delete-contacts", f.log.string()}, f.env);
        for (int i = 0; i < 300 && status_updates(sandbox).empty(); ++i) {
            std::this_thread::sleep_for(std::chrono::milliseconds(10));
        }
        cleanup.signal(SIGINT);
        CHECK(cleanup.wait() == 3);
        CHECK(cleanup.out().find("to finish: wacamp delete-contacts") != std::string::npos);
        CHECK(status_updates(sandbox).size() < 4);
        CHECK(f.wacamp({"delete-contacts", f.log.string()}).exit_code == 0);
        std::set<std::string> ids;
        for (const auto& put : status_updates(sandbox)) {
            if (put["status"] == 200) {
                ids.insert(put["body"]["ids"][0].get<std::string>());
            }
        }
        CHECK(ids == std::set<std::string>{"u-0", "u-1", "u-2", "u-3"});
    }
    TEST_CASE(
        "a finished campaign with a deletion step reports ended; a later resume says nothing was left to delete") {
        Sandbox sandbox;
        CampaignFixture f(sandbox, numbers_csv(3), "cleanup: {delete_contacts: true, batch_size: 10}\n");
        auto r = f.wacamp({"run", f.campaign.string(), "--no-progress"});
        CAPTURE(r.err);
        REQUIRE(r.exit_code == 0);
        REQUIRE(status_updates(sandbox).size() == 1);
        CHECK(f.records().back().value("event", "") == "delete");  // the step's records follow the `end`
        auto json = f.wacamp({"report", f.log.string(), "--format", "json"});
        CAPTURE(json.out);
        CHECK(contains(json.out, "\"ended\": true"));
        auto text = f.wacamp({"report", f.log.string()});
        CAPTURE(text.out);
        CHECK_FALSE(contains(text.out, "no end record"));
        CHECK_FALSE(contains(text.out, "Next step: resume"));
        auto again = f.wacamp({"resume", f.log.string(), "--no-progress"});
        CAPTURE(again.out);
        CAPTURE(again.err);
        CHECK(again.exit_code == 0);
        CHECK_FALSE(contains(again.out + again.err, "contacts deleted: 0 in 0 batches"));
        CHECK(status_updates(sandbox).size() == 1);
    }
    TEST_CASE("rows to delete without a user_id are counted and named in the summary, not passed over in silence") {
        Sandbox sandbox;
        std::string csv = numbers_csv(4);
        // Row 2's user_id cell emptied: "+WA,Person 1,u-1" -> "+WA,Person 1,".
        const std::string cell = ",u-1\n";
        csv.replace(csv.find(cell), cell.size(), ",\n");
        CampaignFixture f(sandbox, csv, "cleanup: {delete_contacts: true, batch_size: 10}\n");
        auto r = f.wacamp({"run", f.campaign.string(), "--no-progress"});
        CAPTURE(r.out);
        CAPTURE(r.err);
        CHECK(r.exit_code == 0);
        REQUIRE(status_updates(sandbox).size() == 1);
        CHECK(status_updates(sandbox)[0]["body"]["ids"].size() == 3);
        CHECK(contains(r.out + r.err, "1 row(s) to delete have an empty user_id (row 2)"));
        auto json = f.wacamp({"resume", f.log.string(), "--no-progress", "--log-format", "json"});
        CAPTURE(json.out);
        CHECK(contains(json.out + json.err, "\"without_user_id\":1"));
    }
}
