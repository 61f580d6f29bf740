#include <doctest/doctest.h>

#include "campaign_file_fixture.hpp"

using namespace campaign_file_test;

TEST_SUITE("campaign::load_campaign rate") {
    TEST_CASE("concurrency defaults to auto, capped at 256") {
        Folder folder;
        auto c = folder.load(k_minimal);
        REQUIRE(c);
        CHECK_FALSE(c->rate.concurrency.has_value());
        CHECK(c->rate.max_concurrency == 256);
        CHECK_FALSE(c->rate.unlimited());
    }

    TEST_CASE("concurrency: auto takes a max_concurrency") {
        Folder folder;
        auto c = folder.load(k_minimal + "rate: {concurrency: auto, max_concurrency: 64}\n");
        REQUIRE(c);
        CHECK_FALSE(c->rate.concurrency.has_value());
        CHECK(c->rate.max_concurrency == 64);
        auto alone = folder.load(k_minimal + "rate: {max_concurrency: 1024}\n");
        REQUIRE(alone);
        CHECK(alone->rate.max_concurrency == 1024);
    }

    TEST_CASE("concurrency as a whole number fixes the requests in flight") {
        Folder folder;
        auto c = folder.load(k_minimal + "rate: {concurrency: 32}\n");
        REQUIRE(c);
        CHECK(c->rate.concurrency == 32);
    }

    TEST_CASE("per_second: unlimited is infinity; a number stays a number") {
        Folder folder;
        auto c = folder.load(k_minimal + "rate: {per_second: unlimited, concurrency: 32}\n");
        REQUIRE(c);
        CHECK(c->rate.unlimited());
        CHECK(c->rate.per_second == campaign::Rate::k_unlimited);
        auto n = folder.load(k_minimal + "rate: {per_second: 1000}\n");
        REQUIRE(n);
        CHECK_FALSE(n->rate.unlimited());
        CHECK(n->rate.per_second == 1000);
    }

    TEST_CASE("a word that is not auto or unlimited is refused, with a suggestion") {
        Folder folder;
        const auto p = folder.problems(k_minimal + "rate:\n  per_second: unlimted\n  concurrency: Auto\n");
        CHECK_PROBLEM(p,
                      "12: rate.per_second: expected unlimited or a number, got \"unlimted\" "
                      "(did you mean \"unlimited\"?)");
        CHECK_PROBLEM(p,
                      "13: rate.concurrency: expected auto or a whole number, got \"Auto\" "
                      "(did you mean \"auto\"?)");
        CHECK_PROBLEM(folder.problems(k_minimal + "rate: {per_second: inf}\n"),
                      "11: rate.per_second: expected unlimited or a number, got \"inf\"");
    }

    TEST_CASE("bad numbers keep the number readers' messages") {
        Folder folder;
        const auto p = folder.problems(k_minimal +
                                       "rate:\n  per_second: -.inf\n  concurrency: 2.5\n"
                                       "  max_concurrency: 0\n");
        CHECK_PROBLEM(p, "12: rate.per_second: expected a number, got \"-.inf\"");
        CHECK_PROBLEM(p, "13: rate.concurrency: expected a whole number, got \"2.5\"");
        CHECK_PROBLEM(p, "14: rate.max_concurrency: must be between 1 and 1024, got 0");
        CHECK_PROBLEM(folder.problems(k_minimal + "rate: {concurrency: [auto]}\n"),
                      "11: rate.concurrency: expected a string, got a list");
    }

    TEST_CASE("max_concurrency with a fixed concurrency is refused on its line") {
        Folder folder;
        const auto p = folder.problems(k_minimal + "rate:\n  concurrency: 8\n  max_concurrency: 64\n");
        CHECK(p ==
              "\n13: rate.max_concurrency: only applies to concurrency: auto "
              "(a fixed concurrency is its own cap)\n");
    }

    TEST_CASE("the words come through ${ENV} like numbers do") {
        Folder folder;
        util::MapEnvironment env(
            {{"WACAMP_API_KEY", "key-0123456789"}, {"RATE", "unlimited"}, {"CONC", "auto"}, {"HOME", "/home/tester"}});
        folder.put("campaign.yaml", k_minimal + "rate: {per_second: \"${RATE}\", concurrency: \"${CONC}\"}\n");
        auto c = campaign::load_campaign(folder.campaign_path(), env);
        REQUIRE(c);
        CHECK(c->rate.unlimited());
        CHECK_FALSE(c->rate.concurrency.has_value());
    }
}
