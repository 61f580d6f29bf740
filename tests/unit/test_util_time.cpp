#include <doctest/doctest.h>

#include <optional>

#include "util/time.hpp"

using namespace std::chrono_literals;

namespace {

using util::DurationStyle;
using util::TimestampSyntax;

util::TimePoint utc(int y, unsigned m, unsigned d, int h, int min, int s) {
    return std::chrono::sys_days(std::chrono::year(y) / m / d) + std::chrono::hours(h) + std::chrono::minutes(min) +
           std::chrono::seconds(s);
}

const util::TimePoint k_t0 = util::TimePoint(1'795'253'400'123ms);  // 2026-11-21T09:30:00.123Z

std::optional<util::TimePoint> rfc3339(std::string_view text) {
    auto t = util::parse_timestamp(text, TimestampSyntax::rfc3339);
    return t ? std::optional(*t) : std::nullopt;
}

std::optional<util::TimePoint> relaxed(std::string_view text) {
    auto t = util::parse_timestamp(text, TimestampSyntax::relaxed);
    return t ? std::optional(*t) : std::nullopt;
}

std::string relaxed_error(std::string_view text) {
    auto t = util::parse_timestamp(text, TimestampSyntax::relaxed);
    return t ? "" : t.error().message;
}

}  // namespace

TEST_SUITE("util::format_timestamp") {
    TEST_CASE("formats UTC with milliseconds") {
        CHECK(util::format_timestamp(k_t0) == "2026-11-21T09:30:00.123Z");
        CHECK(util::format_timestamp(util::TimePoint{}) == "1970-01-01T00:00:00.000Z");
        CHECK(util::format_timestamp(util::TimePoint(-1ms)) == "1969-12-31T23:59:59.999Z");
        CHECK(util::format_timestamp(k_t0 + 999us) == "2026-11-21T09:30:00.123Z");
    }
    TEST_CASE("a leap day and the turn of a year") {
        CHECK(util::format_timestamp(utc(2024, 2, 29, 23, 59, 59) + 999ms) == "2024-02-29T23:59:59.999Z");
        CHECK(util::format_timestamp(utc(2024, 2, 29, 23, 59, 59) + 1s) == "2024-03-01T00:00:00.000Z");
        CHECK(util::format_timestamp(utc(2000, 2, 29, 0, 0, 0)) == "2000-02-29T00:00:00.000Z");
        CHECK(util::format_timestamp(utc(2026, 12, 31, 23, 59, 59)) == "2026-12-31T23:59:59.000Z");
    }
    TEST_CASE("the earliest and the latest TimePoint") {
        CHECK(util::format_timestamp(util::TimePoint::min()) == "1677-09-21T00:12:43.145Z");
        CHECK(util::format_timestamp(util::TimePoint::max()) == "2262-04-11T23:47:16.854Z");
    }
}

TEST_SUITE("util::parse_timestamp") {
    TEST_CASE("parses what it formats, and other zones") {
        CHECK(rfc3339("2026-11-21T09:30:00.123Z") == k_t0);
        CHECK(rfc3339("2026-11-21T15:00:00.123+05:30") == k_t0);
        CHECK(rfc3339("2026-11-21T09:30:00Z") == k_t0 - 123ms);
        CHECK(rfc3339("2024-02-29T00:00:00.5Z").has_value());
        CHECK(rfc3339(util::format_timestamp(k_t0)) == k_t0);
    }
    TEST_CASE("rejects malformed times") {
        CHECK_FALSE(rfc3339("2026-11-21T09:30:00").has_value());  // no zone
        CHECK_FALSE(rfc3339("2026-11-21 09:30:00Z").has_value());
        CHECK_FALSE(rfc3339("2025-02-29T00:00:00Z").has_value());
        CHECK_FALSE(rfc3339("2026-13-01T00:00:00Z").has_value());
        CHECK_FALSE(rfc3339("2026-11-21T09:30:00.Z").has_value());
        CHECK_FALSE(rfc3339("2026-11-21T09:3").has_value());
        CHECK_FALSE(rfc3339("").has_value());
    }
    TEST_CASE("leap days: in leap years only") {
        CHECK(rfc3339("2024-02-29T12:00:00Z") == utc(2024, 2, 29, 12, 0, 0));
        CHECK(rfc3339("2000-02-29T12:00:00Z") == utc(2000, 2, 29, 12, 0, 0));
        CHECK_FALSE(rfc3339("1900-02-29T12:00:00Z").has_value());
        CHECK_FALSE(rfc3339("2024-02-30T12:00:00Z").has_value());
        CHECK_FALSE(rfc3339("2026-04-31T12:00:00Z").has_value());
    }
    TEST_CASE("offsets as far as ±14:00 and beyond, up to ±23:59") {
        const auto noon = utc(2026, 3, 5, 12, 0, 0);
        CHECK(rfc3339("2026-03-06T02:00:00+14:00") == noon);
        CHECK(rfc3339("2026-03-04T22:00:00-14:00") == noon);
        CHECK(rfc3339("2026-03-05T12:00:00-00:00") == noon);
        CHECK(rfc3339("2026-03-06T11:59:00+23:59") == noon);
        CHECK_FALSE(rfc3339("2026-03-06T12:00:00+24:00").has_value());
        CHECK_FALSE(rfc3339("2026-03-05T12:00:00+05:60").has_value());
        CHECK_FALSE(rfc3339("2026-03-05T12:00:00+0530").has_value());  // relaxed syntax only
    }
    TEST_CASE("fractions of a second to the nanosecond, further digits dropped") {
        const auto t = utc(2026, 3, 5, 12, 0, 0);
        CHECK(rfc3339("2026-03-05T12:00:00.5Z") == t + 500ms);
        CHECK(rfc3339("2026-03-05T12:00:00.000001Z") == t + 1us);
        CHECK(rfc3339("2026-03-05T12:00:00.123456789Z") == t + 123456789ns);
        CHECK(rfc3339("2026-03-05T12:00:00.1234567899Z") == t + 123456789ns);
        CHECK(rfc3339("2026-03-05T12:00:00.999999999+01:00") == t - 1h + 999999999ns);
    }
    TEST_CASE("fields out of range are rejected; a leap second is the next minute") {
        CHECK_FALSE(rfc3339("2026-03-05T24:00:00Z").has_value());
        CHECK_FALSE(rfc3339("2026-03-05T12:60:00Z").has_value());
        CHECK_FALSE(rfc3339("2026-03-05T12:00:61Z").has_value());
        CHECK_FALSE(rfc3339("2026-00-05T12:00:00Z").has_value());
        CHECK_FALSE(rfc3339("2026-03-00T12:00:00Z").has_value());
        CHECK_FALSE(rfc3339("2026-03-32T12:00:00Z").has_value());
        CHECK(rfc3339("2016-12-31T23:59:60Z") == utc(2017, 1, 1, 0, 0, 0));
    }
    TEST_CASE("lower-case t and z, as RFC 3339 allows") {
        CHECK(rfc3339("2026-11-21t09:30:00.123z") == k_t0);
    }
    TEST_CASE("times a TimePoint cannot hold are rejected, not wrapped") {
        CHECK_FALSE(rfc3339("9999-12-31T23:59:59Z").has_value());
        CHECK_FALSE(rfc3339("1000-01-01T00:00:00Z").has_value());
        CHECK(rfc3339("2262-04-11T23:47:15Z").has_value());
        CHECK_FALSE(rfc3339("2262-04-11T23:47:17Z").has_value());
        CHECK(relaxed_error("9999-01-01T00:00Z").find("out of the range") != std::string::npos);
    }
    TEST_CASE("the relaxed syntax also takes a space, no seconds, and short offsets") {
        const auto noon = utc(2026, 3, 5, 12, 0, 0);
        CHECK(relaxed("2026-03-05T12:00:00Z") == noon);
        CHECK(relaxed("2026-03-05T04:00:00-0800") == noon);
        CHECK(relaxed("2026-03-05T17:30+05:30") == noon);
        CHECK(relaxed("2026-03-05 13:00:00.250+01") == noon + 250ms);
        CHECK(relaxed("2026-03-06T02:00+14") == noon);
        CHECK(relaxed("2026-03-04t22:00-1400") == noon);
        CHECK_FALSE(rfc3339("2026-03-05T12:00Z").has_value());
        CHECK_FALSE(rfc3339("2026-03-05T13:00:00+01").has_value());
    }
    TEST_CASE("says what is wrong") {
        const std::string like = "is not a date and time like 2026-12-01T09:00:00+05:30";
        CHECK(relaxed_error("2026-12-01T09:00:00") == "has no UTC offset: add Z or one like +05:30");
        CHECK(relaxed_error("2026-12-01T09:00:00+25:00") == "has an impossible UTC offset");
        CHECK(relaxed_error("2026-02-30T09:00:00Z") == like);
        CHECK(relaxed_error("tomorrow") == like);
        CHECK(relaxed_error("2026-12-01T09:00:00Zulu") == like);
        CHECK(relaxed_error("2026-12-01T09:00:00.Z") == like);
    }
}

TEST_SUITE("util::parse_time_of_day") {
    TEST_CASE("hours and minutes, 24:00 the end of the day") {
        CHECK(util::parse_time_of_day("09:30") == 9 * 60 + 30);
        CHECK(util::parse_time_of_day("9:30") == 9 * 60 + 30);
        CHECK(util::parse_time_of_day("00:00") == 0);
        CHECK(util::parse_time_of_day("23:59") == 23 * 60 + 59);
        CHECK(util::parse_time_of_day("24:00") == 24 * 60);
    }
    TEST_CASE("anything else is nothing") {
        CHECK_FALSE(util::parse_time_of_day("24:01").has_value());
        CHECK_FALSE(util::parse_time_of_day("25:00").has_value());
        CHECK_FALSE(util::parse_time_of_day("12:60").has_value());
        CHECK_FALSE(util::parse_time_of_day("9am").has_value());
        CHECK_FALSE(util::parse_time_of_day("09:3").has_value());
        CHECK_FALSE(util::parse_time_of_day("009:30").has_value());
        CHECK_FALSE(util::parse_time_of_day("").has_value());
    }
}

TEST_SUITE("util::parse_http_date") {
    const util::TimePoint k_now = utc(2026, 3, 5, 12, 0, 0);
    const util::TimePoint k_1994 = utc(1994, 11, 6, 8, 49, 37);
    TEST_CASE("the three forms of RFC 9110") {
        CHECK(util::parse_http_date("Sun, 06 Nov 1994 08:49:37 GMT", k_now) == k_1994);   // IMF-fixdate
        CHECK(util::parse_http_date("Sunday, 06-Nov-94 08:49:37 GMT", k_now) == k_1994);  // RFC 850
        CHECK(util::parse_http_date("Sun Nov  6 08:49:37 1994", k_now) == k_1994);        // asctime
        CHECK(util::parse_http_date("Tue, 14 Nov 2023 22:13:20 GMT", k_now) ==
              std::chrono::system_clock::from_time_t(1'700'000'000));
    }
    TEST_CASE("names in any case, asctime's day with or without its padding") {
        CHECK(util::parse_http_date("sun, 06 NOV 1994 08:49:37 GMT", k_now) == k_1994);
        CHECK(util::parse_http_date("SUNDAY, 06-nov-94 08:49:37 GMT", k_now) == k_1994);
        CHECK(util::parse_http_date("Sun Nov 06 08:49:37 1994", k_now) == k_1994);
    }
    TEST_CASE("a leap day") {
        CHECK(util::parse_http_date("Thu, 29 Feb 2024 00:00:00 GMT", k_now) == utc(2024, 2, 29, 0, 0, 0));
        CHECK(util::parse_http_date("Thu Feb 29 00:00:00 2024", k_now) == utc(2024, 2, 29, 0, 0, 0));
        CHECK_FALSE(util::parse_http_date("Sun, 29 Feb 2026 00:00:00 GMT", k_now).has_value());
    }
    TEST_CASE("RFC 850's two-digit year is the latest not more than 50 years ahead") {
        CHECK(util::parse_http_date("Thursday, 05-Mar-76 12:00:00 GMT", k_now) == utc(2076, 3, 5, 12, 0, 0));
        CHECK(util::parse_http_date("Saturday, 05-Mar-77 12:00:00 GMT", k_now) == utc(1977, 3, 5, 12, 0, 0));
        CHECK(util::parse_http_date("Thursday, 05-Mar-26 12:00:00 GMT", k_now) == k_now);
        CHECK(util::parse_http_date("Sunday, 05-Mar-00 12:00:00 GMT", k_now) == utc(2000, 3, 5, 12, 0, 0));
    }
    TEST_CASE("out-of-range fields, a wrong day name and other text are nothing") {
        CHECK_FALSE(util::parse_http_date("Sun, 06 Nov 1994 24:00:00 GMT", k_now).has_value());
        CHECK_FALSE(util::parse_http_date("Sun, 06 Nov 1994 08:60:00 GMT", k_now).has_value());
        CHECK_FALSE(util::parse_http_date("Sun, 06 Nov 1994 08:49:61 GMT", k_now).has_value());
        CHECK_FALSE(util::parse_http_date("Thu, 31 Nov 1994 08:49:37 GMT", k_now).has_value());
        CHECK_FALSE(util::parse_http_date("Sun, 06 Nox 1994 08:49:37 GMT", k_now).has_value());
        CHECK_FALSE(util::parse_http_date("Mon, 06 Nov 1994 08:49:37 GMT", k_now).has_value());
        CHECK_FALSE(util::parse_http_date("Monday, 06-Nov-94 08:49:37 GMT", k_now).has_value());
        CHECK_FALSE(util::parse_http_date("Mon Nov  6 08:49:37 1994", k_now).has_value());
        CHECK_FALSE(util::parse_http_date("Sun, 06 Nov 1994 08:49:37 UTC", k_now).has_value());
        CHECK_FALSE(util::parse_http_date("Sun, 06 Nov 1994 08:49:37 GMT junk", k_now).has_value());
        CHECK_FALSE(util::parse_http_date("2026-03-05T12:00:00Z", k_now).has_value());
        CHECK_FALSE(util::parse_http_date("soon", k_now).has_value());
        CHECK_FALSE(util::parse_http_date("", k_now).has_value());
    }
}

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

TEST_SUITE("util::format_duration") {
    const auto compact = [](util::Millis d) { return util::format_duration(d, DurationStyle::compact); };
    const auto report = [](util::Millis d) { return util::format_duration(d, DurationStyle::report); };
    const auto axis = [](util::Millis d) { return util::format_duration(d, DurationStyle::axis); };
    TEST_CASE("compact, for the CLI's lines") {
        CHECK(compact(850ms) == "850ms");
        CHECK(compact(12300ms) == "12.3s");
        CHECK(compact(245s) == "4m05s");
        CHECK(compact(130min) == "2h10m");
        CHECK(compact(26h) == "1d02h");
        CHECK(compact(-1500ms) == "-1.5s");
    }
    TEST_CASE("report, for reports") {
        CHECK(report(350ms) == "350 ms");
        CHECK(report(4'250ms) == "4.2 s");
        CHECK(report(723s) == "12m 03s");
        CHECK(report(7384s) == "2h 03m 04s");
        CHECK(report(-5ms) == "0 ms");
        CHECK(report(74h + 10min + 5s) == "3d 02h 10m");
    }
    TEST_CASE("countdown, for the time left: whole seconds, rounded up") {
        const auto countdown = [](util::Millis d) { return util::format_duration(d, DurationStyle::countdown); };
        CHECK(countdown(0ms) == "0s");
        CHECK(countdown(-3s) == "0s");
        CHECK(countdown(1ms) == "1s");
        CHECK(countdown(4'001ms) == "5s");
        CHECK(countdown(59s) == "59s");
        CHECK(countdown(59'001ms) == "1m 00s");
        CHECK(countdown(65s) == "1m 05s");
        CHECK(countdown(1h + 2min + 5s) == "1h 02m 05s");
        CHECK(countdown(49h + 2min + 5s) == "2d 01h 02m 05s");
    }
    TEST_CASE("axis, for chart ticks") {
        CHECK(axis(0ms) == "0");
        CHECK(axis(45s) == "45s");
        CHECK(axis(90s) == "1m30s");
        CHECK(axis(2min) == "2m");
        CHECK(axis(65min) == "1h05m");
        CHECK(axis(51h) == "2d3h");
        CHECK(axis(250ms) == "250ms");
        CHECK(axis(-5s) == "0");
    }
    TEST_CASE("around a second and a minute: truncated, never rounded up to the next unit") {
        CHECK(compact(999ms) == "999ms");
        CHECK(compact(1000ms) == "1.0s");
        CHECK(compact(59'499ms) == "59.4s");
        CHECK(compact(59'500ms) == "59.5s");
        CHECK(compact(59'999ms) == "59.9s");
        CHECK(compact(60'000ms) == "1m00s");
        CHECK(compact(119'999ms) == "1m59s");
        CHECK(report(59'950ms) == "59.9 s");
        CHECK(report(60'000ms) == "1m 00s");
        CHECK(axis(59'999ms) == "59s");
        CHECK(axis(60'000ms) == "1m");
    }
    TEST_CASE("around an hour and a day") {
        CHECK(compact(3'599'999ms) == "59m59s");
        CHECK(compact(1h) == "1h00m");
        CHECK(report(3'599'999ms) == "59m 59s");
        CHECK(report(1h) == "1h 00m 00s");
        CHECK(axis(1h) == "1h");
        CHECK(compact(86'399'999ms) == "23h59m");
        CHECK(compact(24h) == "1d00h");
        CHECK(report(86'399'999ms) == "23h 59m 59s");
        CHECK(report(24h) == "1d 00h 00m");
        CHECK(axis(24h) == "1d");
        CHECK(axis(24h + 1s) == "1d01s");
        CHECK(compact(400 * 24h) == "400d00h");
    }
}
