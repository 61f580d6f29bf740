#include <doctest/doctest.h>

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

} // namespace

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
        f.env["WACAMP_ACCESS_TOKEN"] = "another-token-123";
        auto finished = f.wacamp({"delete-contacts", f.log.string()});
        CHECK(finished.exit_code == 0);
        auto puts = status_updates(wrong);
        REQUIRE(puts.size() == 2);
        CHECK(puts[1]["status"] == 200);
        CHECK(puts[1]["body"]["ids"].size() == 3);
    }
}
