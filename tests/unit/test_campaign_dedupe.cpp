#include <doctest/doctest.h>

#include <optional>
#include <string>

#include "campaign/dedupe.hpp"

using campaign::DuplicateFilter;

TEST_SUITE("campaign::DuplicateFilter") {
    TEST_CASE("a first sighting is recorded, a repeat names the first row") {
        DuplicateFilter filter;
        CHECK_FALSE(filter.seen_before("919812345678", 1).has_value());
        CHECK_FALSE(filter.seen_before("14155550123", 2).has_value());
        CHECK(filter.seen_before("919812345678", 3) == std::optional<long long>(1));
        CHECK(filter.seen_before("919812345678", 4) == std::optional<long long>(1));
        CHECK(filter.size() == 2);
    }
    TEST_CASE("leading zeros make a different key") {
        DuplicateFilter filter;
        CHECK_FALSE(filter.seen_before("91", 1).has_value());
        CHECK_FALSE(filter.seen_before("091", 2).has_value());
        CHECK(filter.seen_before("091", 3) == std::optional<long long>(2));
    }
    TEST_CASE("keys that are not 1 to 15 digits still work") {
        DuplicateFilter filter;
        CHECK_FALSE(filter.seen_before("1234567890123456", 1).has_value());
        CHECK_FALSE(filter.seen_before("abc", 2).has_value());
        CHECK_FALSE(filter.seen_before("", 3).has_value());
        CHECK(filter.seen_before("1234567890123456", 4) == std::optional<long long>(1));
        CHECK(filter.seen_before("abc", 5) == std::optional<long long>(2));
        CHECK(filter.seen_before("", 6) == std::optional<long long>(3));
    }
    TEST_CASE("grows past its first table and forgets nothing") {
        DuplicateFilter filter;
        const long long n = 100'000;
        for (long long i = 0; i < n; ++i) {
            REQUIRE_FALSE(filter.seen_before(std::to_string(919800000000LL + i), i + 1).has_value());
        }
        CHECK(filter.size() == static_cast<std::size_t>(n));
        for (long long i = 0; i < n; i += 997) {
            CHECK(filter.seen_before(std::to_string(919800000000LL + i), n + 1) ==
                  std::optional<long long>(i + 1));
        }
        CHECK(filter.memory_bytes() <= 262'144 * 16);
    }
}
