#include <doctest/doctest.h>
#include <fmt/format.h>

#include <string>
#include <vector>

#include "campaign/reason_groups.hpp"

using campaign::ReasonGroups;

TEST_SUITE("campaign::ReasonGroups") {
    TEST_CASE("reasons of one kind count together: the row's own values left out, a column's name kept") {
        CHECK(campaign::reason_kind("column \"phone\": \"12345\" is not a valid number for IN") ==
              "column \"phone\": \"…\" is not a valid number for IN");
        CHECK(campaign::reason_kind("image https://cdn.example.com:8443/a.gif: status 404") ==
              "image https://cdn.example.com:…/a.gif: status 404");
        CHECK(campaign::reason_kind("the row has 5 fields, the header has 4") ==
              "the row has 5 fields, the header has 4");
    }

    TEST_CASE("each kind has its count and its first five rows, most rows first, ties in the order first seen") {
        ReasonGroups groups;
        groups.add("column \"name\" is empty", 2);
        for (int row = 3; row <= 10; ++row) {
            groups.add(fmt::format("column \"phone\": \"1234{}\" is not a valid number for IN", row), row);
        }
        groups.add("the row has 5 fields, the header has 4", 11);
        CHECK(groups.total() == 10);
        const auto most = groups.most_common();
        REQUIRE(most.size() == 3);
        CHECK(most[0].reason == "column \"phone\": \"…\" is not a valid number for IN");
        CHECK(most[0].count == 8);
        CHECK(most[0].rows == std::vector<long long>{3, 4, 5, 6, 7});
        CHECK(campaign::rows_of(most[0]) == "rows 3, 4, 5, 6, 7 and 3 more");
        CHECK(most[1].reason == "column \"name\" is empty");
        CHECK(campaign::rows_of(most[1]) == "row 2");
        CHECK(most[2].rows == std::vector<long long>{11});
    }

    TEST_CASE("past the kinds kept, the rest count together as other reasons: memory stays flat") {
        ReasonGroups groups;
        const auto kinds = static_cast<int>(ReasonGroups::k_max_kinds);
        for (int i = 0; i < kinds + 50; ++i) {
            groups.add(fmt::format("reason {}", i % 1000), i + 1);  // three digits: each its own kind
        }
        const auto most = groups.most_common();
        CHECK(most.size() == ReasonGroups::k_max_kinds + 1);
        CHECK(most.front().reason == "other reasons");
        CHECK(most.front().count == 50);
        CHECK(groups.total() == kinds + 50);
    }
}
