#include <doctest/doctest.h>

#include "runner/shown_zone.hpp"

namespace {

util::TimeZone zone(std::string_view name) {
    auto z = util::TimeZone::locate(name);
    REQUIRE(z);
    return *z;
}

campaign::Window weekdays_in(std::string timezone) {
    return {.timezone = std::move(timezone), .days = {1, 2, 3, 4, 5}, .from_minute = 9 * 60, .to_minute = 17 * 60};
}

}  // namespace

TEST_SUITE("runner::shown_zone") {
    TEST_CASE("a send window in one zone: that zone") {
        campaign::Campaign c;
        c.schedule.window = weekdays_in("Asia/Kolkata");
        CHECK(runner::shown_zone(c, zone("America/New_York")).name() == "Asia/Kolkata");
    }
    TEST_CASE("no window: the machine's zone") {
        const campaign::Campaign c;
        CHECK(runner::shown_zone(c, zone("America/New_York")).name() == "America/New_York");
    }
    TEST_CASE("a window in each recipient's zone: the machine's zone, not the fallback's") {
        campaign::Campaign c;
        c.schedule.window = weekdays_in("");
        c.schedule.window->per_recipient = true;
        c.schedule.window->fallback_timezone = "Asia/Dubai";
        CHECK(runner::shown_zone(c, zone("Europe/Berlin")).name() == "Europe/Berlin");
    }
}
