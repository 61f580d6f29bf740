#include <doctest/doctest.h>

#include <cstdlib>
#include <ctime>
#include <map>
#include <string>

#include "util/time.hpp"
#include "util/zone.hpp"

using namespace std::chrono_literals;

namespace {

util::TimePoint utc(int y, unsigned m, unsigned d, int h, int min, int s = 0) {
    return std::chrono::sys_days(std::chrono::year(y) / m / d) + std::chrono::hours(h) + std::chrono::minutes(min) +
           std::chrono::seconds(s);
}

util::TimeZone zone(std::string_view name) {
    auto z = util::TimeZone::locate(name);
    REQUIRE(z);
    return *z;
}

}  // namespace

TEST_SUITE("util::TimeZone") {
    TEST_CASE("a zone of the system's tzdata, with its offset at a moment") {
        const auto kolkata = zone("Asia/Kolkata");
        CHECK(kolkata.name() == "Asia/Kolkata");
        CHECK(kolkata.offset_at(utc(2026, 11, 28, 4, 30)) == 5h + 30min);
        const auto new_york = zone("America/New_York");
        CHECK(new_york.offset_at(utc(2026, 1, 15, 12, 0)) == -5h);
        CHECK(new_york.offset_at(utc(2026, 7, 15, 12, 0)) == -4h);
    }
    TEST_CASE("an offset span ends at the zone's next transition, or never") {
        const auto berlin = zone("Europe/Berlin");
        const auto winter = berlin.offset_span(utc(2026, 11, 27, 12, 0));
        CHECK(winter.offset == 1h);
        CHECK(winter.until == utc(2027, 3, 28, 1, 0));
        const auto summer = berlin.offset_span(winter.until);
        CHECK(summer.offset == 2h);
        CHECK(summer.until == utc(2027, 10, 31, 1, 0));
        const auto fixed = zone("Etc/GMT-5").offset_span(utc(2026, 11, 27, 12, 0));
        CHECK(fixed.offset == 5h);
        CHECK(fixed.until > utc(2200, 1, 1, 0, 0));
    }
    TEST_CASE("a name tzdata does not know fails, naming it") {
        auto z = util::TimeZone::locate("Mars/Olympus_Mons");
        REQUIRE_FALSE(z);
        CHECK(z.error().message.find("\"Mars/Olympus_Mons\"") != std::string::npos);
    }
}

TEST_SUITE("util::format_zoned_time") {
    TEST_CASE("on the zone's day of now: its clock, then UTC, without dates") {
        const auto kolkata = zone("Asia/Kolkata");
        CHECK(util::format_zoned_time(utc(2026, 11, 28, 4, 30), utc(2026, 11, 28, 1, 0), kolkata) ==
              "10:00 Asia/Kolkata (04:30 UTC)");
        CHECK(util::format_zone_clock(utc(2026, 11, 28, 4, 30), utc(2026, 11, 28, 1, 0), kolkata) ==
              "10:00 Asia/Kolkata");
    }
    TEST_CASE("on another day of the zone: with its date") {
        const auto kolkata = zone("Asia/Kolkata");
        // Tomorrow in Kolkata.
        CHECK(util::format_zoned_time(utc(2026, 11, 28, 4, 30), utc(2026, 11, 27, 4, 0), kolkata) ==
              "2026-11-28 10:00 Asia/Kolkata (04:30 UTC)");
    }
    TEST_CASE("the UTC part has a date of its own when it falls on another day than the zone's") {
        const auto kolkata = zone("Asia/Kolkata");
        CHECK(util::format_zoned_time(utc(2026, 11, 27, 19, 30), utc(2026, 11, 26, 0, 0), kolkata) ==
              "2026-11-28 01:00 Asia/Kolkata (2026-11-27 19:30 UTC)");
        // Today in Kolkata, yesterday in UTC.
        CHECK(util::format_zoned_time(utc(2026, 11, 27, 19, 30), utc(2026, 11, 27, 19, 0), kolkata) ==
              "01:00 Asia/Kolkata (2026-11-27 19:30 UTC)");
    }
    TEST_CASE("seconds only when the moment has some") {
        const auto kolkata = zone("Asia/Kolkata");
        CHECK(util::format_zoned_time(utc(2026, 11, 28, 4, 30, 7) + 400ms, utc(2026, 11, 28, 4, 0), kolkata) ==
              "10:00:07 Asia/Kolkata (04:30:07 UTC)");
    }
    TEST_CASE("a zone west of UTC, across its change of offset") {
        const auto new_york = zone("America/New_York");
        CHECK(util::format_zoned_time(utc(2026, 3, 9, 13, 0), utc(2026, 3, 6, 0, 0), new_york) ==
              "2026-03-09 09:00 America/New_York (13:00 UTC)");
        CHECK(util::format_zoned_time(utc(2026, 3, 6, 14, 0), utc(2026, 3, 6, 0, 0), new_york) ==
              "2026-03-06 09:00 America/New_York (14:00 UTC)");
    }
    TEST_CASE("in UTC itself, the time is said once") {
        CHECK(util::format_zoned_time(utc(2026, 11, 28, 4, 30), utc(2026, 11, 28, 1, 0), zone("Etc/UTC")) ==
              "04:30 UTC");
        CHECK(util::format_zoned_time(utc(2026, 11, 28, 4, 30), utc(2026, 11, 27, 1, 0), zone("UTC")) ==
              "2026-11-28 04:30 UTC");
    }
}

TEST_SUITE("util::format_moment") {
    TEST_CASE("weekday, date and time on the zone's clock, then UTC") {
        CHECK(util::format_moment(utc(2026, 12, 7, 3, 30), zone("Asia/Kolkata")) ==
              "Mon 2026-12-07 09:00 Asia/Kolkata (03:30 UTC)");
        CHECK(util::format_moment(utc(2026, 12, 7, 3, 30, 7) + 900ms, zone("Asia/Kolkata")) ==
              "Mon 2026-12-07 09:00:07 Asia/Kolkata (03:30:07 UTC)");
    }
    TEST_CASE("UTC has a weekday and date of its own when its day is another") {
        CHECK(util::format_moment(utc(2026, 12, 6, 19, 30), zone("Asia/Kolkata")) ==
              "Mon 2026-12-07 01:00 Asia/Kolkata (Sun 2026-12-06 19:30 UTC)");
        CHECK(util::format_moment(utc(2026, 12, 8, 2, 0), zone("America/Los_Angeles")) ==
              "Mon 2026-12-07 18:00 America/Los_Angeles (Tue 2026-12-08 02:00 UTC)");
    }
    TEST_CASE("across a change of offset: each moment at the offset of its own day") {
        const auto berlin = zone("Europe/Berlin");
        CHECK(util::format_moment(utc(2027, 3, 27, 8, 0), berlin) == "Sat 2027-03-27 09:00 Europe/Berlin (08:00 UTC)");
        CHECK(util::format_moment(utc(2027, 3, 28, 8, 0), berlin) == "Sun 2027-03-28 10:00 Europe/Berlin (08:00 UTC)");
        // Offset 0 for the winter is not UTC: London keeps its name and UTC beside.
        CHECK(util::format_moment(utc(2026, 12, 7, 9, 0), zone("Europe/London")) ==
              "Mon 2026-12-07 09:00 Europe/London (09:00 UTC)");
    }
    TEST_CASE("a zone's opening on its own clock: Dubai's 09:00 is 05:00 UTC") {
        CHECK(util::format_moment(utc(2026, 12, 7, 5, 0), zone("Asia/Dubai")) ==
              "Mon 2026-12-07 09:00 Asia/Dubai (05:00 UTC)");
    }
    TEST_CASE("in UTC itself, the time is said once, whatever tzdata calls the zone") {
        CHECK(util::format_moment(utc(2026, 12, 7, 3, 30), zone("UTC")) == "Mon 2026-12-07 03:30 UTC");
        CHECK(util::format_moment(utc(2026, 12, 7, 3, 30), zone("Etc/UTC")) == "Mon 2026-12-07 03:30 UTC");
    }
}

TEST_SUITE("util: times for people whatever the process's TZ") {
    // fmt 9 formats a system_clock time point through localtime(): under TZ=Asia/Kolkata its
    // %H reads 5h30 ahead. The formatters must not depend on the process's zone.
    TEST_CASE("format_moment, format_zoned_time and format_wall_time under TZ=Asia/Kolkata") {
        const char* before = std::getenv("TZ");
        const std::string saved = before != nullptr ? before : "";
        ::setenv("TZ", "Asia/Kolkata", 1);
        ::tzset();
        const auto t = utc(2026, 12, 7, 3, 30);
        const std::string moment = util::format_moment(t, zone("Europe/Berlin"));
        const std::string zoned = util::format_zoned_time(t, t, zone("UTC"));
        const std::string wall = util::format_wall_time(t, t - std::chrono::hours(48));
        if (before != nullptr) {
            ::setenv("TZ", saved.c_str(), 1);
        } else {
            ::unsetenv("TZ");
        }
        ::tzset();
        CHECK(moment == "Mon 2026-12-07 04:30 Europe/Berlin (03:30 UTC)");
        CHECK(zoned == "03:30 UTC");
        CHECK(wall == "2026-12-07 03:30:00 UTC");
    }
}

TEST_SUITE("util::TimeZone::local") {
    TEST_CASE("TZ names the machine's zone, with or without its leading colon or zoneinfo path") {
        for (const char* tz : {"Asia/Kolkata", ":Asia/Kolkata", "/usr/share/zoneinfo/Asia/Kolkata"}) {
            CAPTURE(tz);
            CHECK(util::TimeZone::local(util::MapEnvironment(std::map<std::string, std::string>{{"TZ", tz}})).name() ==
                  "Asia/Kolkata");
        }
    }
    TEST_CASE("a TZ that names no zone of tzdata, or an empty one, is UTC") {
        for (const char* tz : {"", "IST-5:30", "Mars/Olympus_Mons"}) {
            CAPTURE(tz);
            const auto local =
                util::TimeZone::local(util::MapEnvironment(std::map<std::string, std::string>{{"TZ", tz}}));
            CHECK(local.is_utc_at(utc(2026, 12, 7, 0, 0)));
            CHECK(util::format_moment(utc(2026, 12, 7, 3, 30), local) == "Mon 2026-12-07 03:30 UTC");
        }
    }
    TEST_CASE("without TZ, the system's zone (/etc/localtime): some zone tzdata has") {
        const auto local = util::TimeZone::local(util::MapEnvironment(std::map<std::string, std::string>{}));
        CHECK(!local.name().empty());
        CHECK(static_cast<bool>(util::TimeZone::locate(local.name())));
    }
}

TEST_SUITE("util::format_zoned_timestamp") {
    TEST_CASE("RFC 3339 at the zone's offset then") {
        CHECK(util::format_zoned_timestamp(utc(2026, 11, 28, 4, 30) + 5ms, zone("Asia/Kolkata")) ==
              "2026-11-28T10:00:00.005+05:30");
        CHECK(util::format_zoned_timestamp(utc(2026, 1, 15, 2, 0), zone("America/New_York")) ==
              "2026-01-14T21:00:00.000-05:00");
        CHECK(util::format_zoned_timestamp(utc(2026, 1, 15, 2, 0), zone("UTC")) == "2026-01-15T02:00:00.000+00:00");
    }
}
