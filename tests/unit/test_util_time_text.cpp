#include <doctest/doctest.h>

#include "util/time_text.hpp"

using namespace std::chrono_literals;

namespace {

util::TimePoint utc(int y, unsigned m, unsigned d, int h, int min, int s) {
    return std::chrono::sys_days(std::chrono::year(y) / m / d) + std::chrono::hours(h) + std::chrono::minutes(min) +
           std::chrono::seconds(s);
}

}  // namespace

TEST_SUITE("util::format_wall_time") {
    TEST_CASE("a time on the same UTC day is shown without its date") {
        CHECK(util::format_wall_time(utc(2026, 11, 24, 20, 20, 53), utc(2026, 11, 24, 9, 0, 0)) == "20:20:53 UTC");
        CHECK(util::format_wall_time(utc(2026, 11, 24, 20, 20, 53) + 900ms, utc(2026, 11, 24, 0, 0, 0)) ==
              "20:20:53 UTC");
    }
    TEST_CASE("a time on another UTC day is shown with its date") {
        CHECK(util::format_wall_time(utc(2026, 11, 25, 20, 20, 53), utc(2026, 11, 24, 21, 0, 0)) ==
              "2026-11-25 20:20:53 UTC");
        // Earlier than now in the day, yet tomorrow: never read as already past.
        CHECK(util::format_wall_time(utc(2026, 11, 25, 0, 0, 1), utc(2026, 11, 24, 23, 59, 59)) ==
              "2026-11-25 00:00:01 UTC");
        CHECK(util::format_wall_time(utc(2026, 12, 3, 8, 0, 0), utc(2026, 11, 24, 8, 0, 0)) ==
              "2026-12-03 08:00:00 UTC");
    }
}
