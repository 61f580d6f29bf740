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
        CHECK_FALSE(rows->first_row_of(1)->has_value());
        CHECK_FALSE(rows->first_row_of(2)->has_value());
        CHECK(*rows->first_row_of(3) == std::optional<long long>(1));
        CHECK_FALSE(rows->first_row_of(4)->has_value());
        CHECK(*rows->first_row_of(5) == std::optional<long long>(1));
        CHECK_FALSE(rows->first_row_of(6)->has_value());
    }

    TEST_CASE("leading zeros make a different number") {
        DuplicateFinder finder;
        REQUIRE(finder.add("91", 1));
        REQUIRE(finder.add("091", 2));
        REQUIRE(finder.add("091", 3));
        auto rows = finder.finish();
        REQUIRE(rows);
        CHECK_FALSE(rows->first_row_of(2)->has_value());
        CHECK(*rows->first_row_of(3) == std::optional<long long>(2));
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
        CHECK(*rows->first_row_of(3) == std::optional<long long>(1));
        CHECK(*rows->first_row_of(4) == std::optional<long long>(2));
        CHECK_FALSE(rows->first_row_of(5)->has_value());
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
            auto found = rows->first_row_of(r);
            REQUIRE(found);
            const std::optional<long long> first = *found;
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
    }

    TEST_CASE("an index that cannot be read back is an error, not a first sighting") {
        fakes::TempDir dir;
        util::ExternalSortOptions failing{
            .buffer_pairs = 300, .temp_dir = dir.path.string(), .fail_reads_after_bytes = 8192};
        DuplicateFinder finder(campaign::DuplicateOptions{.numbers = {}, .repeats = failing});
        // Rows 2..600 repeat row 1: two runs of repeats, read back 256 pairs a run at a time.
        for (long long r = 1; r <= 600; ++r) {
            REQUIRE(finder.add("919812345678", r));
        }
        auto rows = finder.finish();
        REQUIRE(rows);
        for (long long r = 2; r <= 257; ++r) {
            auto first = rows->first_row_of(r);
            REQUIRE(first);
            REQUIRE(*first == std::optional<long long>(1));
        }
        auto failed = rows->first_row_of(258);
        REQUIRE_FALSE(failed);
        CHECK(failed.error().message == "cannot read back a temporary file: Input/output error");
    }

    TEST_CASE("no repeats at all: every row is a first sighting") {
        DuplicateFinder finder;
        REQUIRE(finder.add("919812345678", 1));
        auto rows = finder.finish();
        REQUIRE(rows);
        auto first = rows->first_row_of(1);
        REQUIRE(first);
        CHECK_FALSE(first->has_value());
    }
}
