#include <doctest/doctest.h>

#include <optional>
#include <string>

#include "campaign/duplicates.hpp"
#include "fakes.hpp"

using campaign::DuplicateFinder;

TEST_SUITE("campaign::DuplicateFinder") {
    TEST_CASE("a repeat names the first row that had the number; first sightings are not repeats") {
        DuplicateFinder finder;
        REQUIRE(finder.add("919812345678", 1));
        REQUIRE(finder.add("14155550123", 2));
        REQUIRE(finder.add("919812345678", 3));
        REQUIRE(finder.add("919812345678", 5));
        auto rows = finder.finish();
        REQUIRE(rows);
        CHECK_FALSE(rows->first_row_of(1).has_value());
        CHECK_FALSE(rows->first_row_of(2).has_value());
        CHECK(rows->first_row_of(3) == std::optional<long long>(1));
        CHECK_FALSE(rows->first_row_of(4).has_value());
        CHECK(rows->first_row_of(5) == std::optional<long long>(1));
        CHECK_FALSE(rows->first_row_of(6).has_value());
    }

    TEST_CASE("leading zeros make a different number") {
        DuplicateFinder finder;
        REQUIRE(finder.add("91", 1));
        REQUIRE(finder.add("091", 2));
        REQUIRE(finder.add("091", 3));
        auto rows = finder.finish();
        REQUIRE(rows);
        CHECK_FALSE(rows->first_row_of(2).has_value());
        CHECK(rows->first_row_of(3) == std::optional<long long>(2));
    }

    TEST_CASE("strings that are not 1 to 17 digits are compared exactly too") {
        DuplicateFinder finder;
        REQUIRE(finder.add("123456789012345678", 1));
        REQUIRE(finder.add("abc", 2));
        REQUIRE(finder.add("123456789012345678", 3));
        REQUIRE(finder.add("abc", 4));
        REQUIRE(finder.add("abd", 5));
        auto rows = finder.finish();
        REQUIRE(rows);
        CHECK(rows->first_row_of(3) == std::optional<long long>(1));
        CHECK(rows->first_row_of(4) == std::optional<long long>(2));
        CHECK_FALSE(rows->first_row_of(5).has_value());
    }

    TEST_CASE("spilled to disk, every repeat of a long list is found in row order") {
        fakes::TempDir dir;
        DuplicateFinder finder({.buffer_pairs = 1000, .max_fan_in = 8, .temp_dir = dir.path.string()});
        // Row r has number 919800000000 + r % 7000: rows 7001.. repeat rows 1..7000.
        const long long n = 20'000;
        for (long long r = 1; r <= n; ++r) {
            REQUIRE(finder.add(std::to_string(919800000000LL + r % 7000), r));
        }
        auto rows = finder.finish();
        REQUIRE(rows);
        long long repeats = 0;
        bool all_right = true;
        for (long long r = 1; r <= n; ++r) {
            auto first = rows->first_row_of(r);
            long long expected_first = r % 7000 == 0 ? 7000 : r % 7000;
            if (r <= 7000) {
                all_right = all_right && !first.has_value();
            } else {
                ++repeats;
                all_right = all_right && first == std::optional<long long>(expected_first);
            }
        }
        CHECK(all_right);
        CHECK(repeats == n - 7000);
        CHECK(rows->error().empty());
    }
}
