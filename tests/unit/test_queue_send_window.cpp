#include <doctest/doctest.h>

#include "queue/send_window.hpp"

using namespace std::chrono_literals;

namespace {

// An instant given in UTC; the expectations below convert local times by hand, not through the
// library under test.
queue::WallTime utc(int y, unsigned m, unsigned d, int h, int mi = 0, int s = 0) {
    using namespace std::chrono;
    return sys_days(year(y) / month(m) / day(d)) + hours(h) + minutes(mi) + seconds(s);
}

constexpr int k_sun = 0, k_mon = 1, k_tue = 2, k_fri = 5, k_sat = 6;
const std::vector<int> k_weekdays = {1, 2, 3, 4, 5};
const std::vector<int> k_every_day = {0, 1, 2, 3, 4, 5, 6};

queue::SendWindow window(const std::string& zone, std::vector<int> days, int from_minute, int to_minute) {
    auto made = queue::SendWindow::make({zone, std::move(days), from_minute, to_minute});
    REQUIRE(made);
    return *made;
}

}  // namespace

TEST_SUITE("queue::SendWindow") {
    TEST_CASE("Asia/Kolkata (UTC+05:30, no DST): open from `from`, closed from `to`") {
        // Mon-Fri 09:00-18:00 IST = 03:30-12:30 UTC. 2026-03-02 is a Monday.
        auto w = window("Asia/Kolkata", k_weekdays, 9 * 60, 18 * 60);
        CHECK_FALSE(w.open_at(utc(2026, 3, 2, 3, 29, 59)));
        CHECK(w.open_at(utc(2026, 3, 2, 3, 30)));
        CHECK(w.open_at(utc(2026, 3, 2, 12, 29, 59)));
        CHECK_FALSE(w.open_at(utc(2026, 3, 2, 12, 30)));
        CHECK(w.closes_at(utc(2026, 3, 2, 4, 0)) == utc(2026, 3, 2, 12, 30));
    }
    TEST_CASE("next_open is now when open, else the next listed day's opening") {
        auto w = window("Asia/Kolkata", k_weekdays, 9 * 60, 18 * 60);
        CHECK(w.next_open(utc(2026, 3, 2, 4, 0)) == utc(2026, 3, 2, 4, 0));
        // Friday 18:30 IST: the next opening is Monday 09:00 IST.
        CHECK(w.next_open(utc(2026, 3, 6, 13, 0)) == utc(2026, 3, 9, 3, 30));
        // Before Monday's opening, on the same local day (Monday 00:10 IST is Sunday in UTC).
        CHECK(w.next_open(utc(2026, 3, 8, 18, 40)) == utc(2026, 3, 9, 3, 30));
        // closes_at when closed: the end of the next opening.
        CHECK(w.closes_at(utc(2026, 3, 6, 13, 0)) == utc(2026, 3, 9, 12, 30));
    }
    TEST_CASE("a days list picks the local weekday, not the UTC one") {
        // Saturday and Sunday 10:00-12:00 in Kolkata.
        auto w = window("Asia/Kolkata", {k_sat, k_sun}, 10 * 60, 12 * 60);
        CHECK(w.next_open(utc(2026, 3, 4, 0, 0)) == utc(2026, 3, 7, 4, 30));   // Wed -> Sat 10:00
        CHECK(w.next_open(utc(2026, 3, 7, 7, 0)) == utc(2026, 3, 8, 4, 30));   // Sat 12:30 -> Sun
        CHECK(w.next_open(utc(2026, 3, 8, 7, 0)) == utc(2026, 3, 14, 4, 30));  // Sun 12:30 -> next Sat
        CHECK_FALSE(w.open_at(utc(2026, 3, 9, 5, 0)));                         // Monday 10:30
    }
    TEST_CASE("America/New_York spring forward: 01:00-03:00 lasts one hour that night") {
        // 2026-03-08 02:00 EST (07:00 UTC) becomes 03:00 EDT.
        auto w = window("America/New_York", k_every_day, 1 * 60, 3 * 60);
        CHECK(w.next_open(utc(2026, 3, 8, 0, 0)) == utc(2026, 3, 8, 6, 0));  // 01:00 EST
        CHECK(w.closes_at(utc(2026, 3, 8, 6, 0)) == utc(2026, 3, 8, 7, 0));  // 03:00 EDT
        CHECK(w.open_at(utc(2026, 3, 8, 6, 59, 59)));
        CHECK_FALSE(w.open_at(utc(2026, 3, 8, 7, 0)));
        // The next night is on EDT (UTC-4).
        CHECK(w.next_open(utc(2026, 3, 8, 7, 0)) == utc(2026, 3, 9, 5, 0));
        CHECK(w.closes_at(utc(2026, 3, 9, 5, 0)) == utc(2026, 3, 9, 7, 0));
    }
    TEST_CASE("America/New_York spring forward: a window opening in the skipped hour opens at the change") {
        auto w = window("America/New_York", k_every_day, 2 * 60 + 30, 4 * 60);
        CHECK(w.next_open(utc(2026, 3, 8, 0, 0)) == utc(2026, 3, 8, 7, 0));  // 03:00 EDT
        CHECK(w.closes_at(utc(2026, 3, 8, 7, 0)) == utc(2026, 3, 8, 8, 0));  // 04:00 EDT
        CHECK_FALSE(w.open_at(utc(2026, 3, 8, 6, 59, 59)));                  // 01:59:59 EST
    }
    TEST_CASE("America/New_York fall back: 01:00-03:00 lasts three hours, the repeated hour counts twice") {
        // 2026-11-01 02:00 EDT (06:00 UTC) becomes 01:00 EST.
        auto w = window("America/New_York", k_every_day, 1 * 60, 3 * 60);
        CHECK(w.next_open(utc(2026, 11, 1, 0, 0)) == utc(2026, 11, 1, 5, 0));  // 01:00 EDT
        CHECK(w.closes_at(utc(2026, 11, 1, 5, 0)) == utc(2026, 11, 1, 8, 0));  // 03:00 EST
        CHECK(w.open_at(utc(2026, 11, 1, 6, 30)));                             // the second 01:30
    }
    TEST_CASE("America/New_York fall back: a window inside the repeated hour opens twice") {
        auto w = window("America/New_York", k_every_day, 1 * 60, 1 * 60 + 30);
        CHECK(w.next_open(utc(2026, 11, 1, 0, 0)) == utc(2026, 11, 1, 5, 0));   // 01:00 EDT
        CHECK(w.closes_at(utc(2026, 11, 1, 5, 0)) == utc(2026, 11, 1, 5, 30));  // 01:30 EDT
        CHECK(w.next_open(utc(2026, 11, 1, 5, 30)) == utc(2026, 11, 1, 6, 0));  // 01:00 EST
        CHECK(w.closes_at(utc(2026, 11, 1, 6, 0)) == utc(2026, 11, 1, 6, 30));  // 01:30 EST
        CHECK(w.next_open(utc(2026, 11, 1, 6, 30)) == utc(2026, 11, 2, 6, 0));  // Monday, EST
    }
    TEST_CASE("Europe/London: office hours move by an hour of UTC over the spring weekend") {
        // BST starts 2026-03-29 at 01:00 UTC. Mon-Fri 09:00-17:00 London.
        auto w = window("Europe/London", k_weekdays, 9 * 60, 17 * 60);
        CHECK(w.closes_at(utc(2026, 3, 27, 10, 0)) == utc(2026, 3, 27, 17, 0));  // Fri, GMT
        CHECK(w.next_open(utc(2026, 3, 27, 17, 0)) == utc(2026, 3, 30, 8, 0));   // Mon 09:00 BST
        CHECK(w.closes_at(utc(2026, 3, 30, 8, 0)) == utc(2026, 3, 30, 16, 0));
    }
    TEST_CASE("Europe/London fall back: 00:30-02:00 on the night BST ends lasts two and a half hours") {
        // BST ends 2026-10-25 at 01:00 UTC (02:00 BST becomes 01:00 GMT).
        auto w = window("Europe/London", {k_sun}, 30, 2 * 60);
        CHECK(w.next_open(utc(2026, 10, 24, 12, 0)) == utc(2026, 10, 24, 23, 30));  // 00:30 BST
        CHECK(w.closes_at(utc(2026, 10, 24, 23, 30)) == utc(2026, 10, 25, 2, 0));   // 02:00 GMT
    }
    TEST_CASE("a window ending at 24:00 closes at the next local midnight") {
        auto w = window("Asia/Kolkata", {k_fri}, 22 * 60, 24 * 60);
        CHECK(w.next_open(utc(2026, 3, 6, 0, 0)) == utc(2026, 3, 6, 16, 30));    // Fri 22:00 IST
        CHECK(w.closes_at(utc(2026, 3, 6, 16, 30)) == utc(2026, 3, 6, 18, 30));  // Sat 00:00 IST
        CHECK(w.open_at(utc(2026, 3, 6, 18, 29, 59)));
        CHECK_FALSE(w.open_at(utc(2026, 3, 6, 18, 30)));
    }
    TEST_CASE("whole days back to back make one opening") {
        auto w = window("Asia/Kolkata", {k_mon, k_tue}, 0, 24 * 60);
        // Monday 10:00 IST: open until Wednesday 00:00 IST.
        CHECK(w.closes_at(utc(2026, 3, 2, 4, 30)) == utc(2026, 3, 3, 18, 30));
    }
    TEST_CASE("a window open all week is always open and never closes") {
        auto w = window("America/New_York", k_every_day, 0, 24 * 60);
        CHECK(w.open_at(utc(2026, 3, 8, 7, 0)));
        CHECK(w.next_open(utc(2026, 11, 1, 6, 0)) == utc(2026, 11, 1, 6, 0));
        CHECK_FALSE(w.closes_at(utc(2026, 3, 8, 7, 0)).has_value());
    }
    TEST_CASE("as a gate: closed_until is empty when open, else the next opening, with a reason") {
        auto w = window("Asia/Kolkata", k_weekdays, 9 * 60, 18 * 60);
        const queue::SendWindow& gate = w;
        CHECK_FALSE(gate.closed_until(utc(2026, 3, 2, 4, 0)).has_value());
        CHECK(gate.closed_until(utc(2026, 3, 6, 12, 30)) == utc(2026, 3, 9, 3, 30));
        CHECK(gate.reason() == "outside the send window");
    }
    TEST_CASE("an unknown time zone is an error that names it") {
        auto made = queue::SendWindow::make({"Mars/Olympus_Mons", k_weekdays, 9 * 60, 18 * 60});
        REQUIRE_FALSE(made);
        CHECK(made.error().message.find("Mars/Olympus_Mons") != std::string::npos);
    }
    TEST_CASE("describe speaks the window's zone") {
        auto w = window("Asia/Kolkata", k_weekdays, 9 * 60, 18 * 60);
        CHECK(w.describe() == "mon-fri 09:00-18:00 Asia/Kolkata");
        CHECK(window("Europe/London", {k_sat, k_sun}, 0, 24 * 60).describe() == "sat,sun 00:00-24:00 Europe/London");
        CHECK(window("UTC", k_every_day, 60, 120).describe() == "every day 01:00-02:00 UTC");
    }
    TEST_CASE("as an admission step: no room while closed, saying until the opening; once, as news") {
        const auto w = window("Asia/Kolkata", k_weekdays, 9 * 60, 18 * 60);
        const std::chrono::steady_clock::time_point steady{std::chrono::hours(5)};
        queue::Admission why;
        CHECK(w.room({steady, utc(2026, 3, 2, 4, 0)}, why) == queue::k_any_room);
        CHECK(w.room({steady, utc(2026, 3, 6, 12, 30)}, why) == 0);
        REQUIRE(why.later());
        CHECK(why.later()->reason == "outside the send window");
        CHECK(why.later()->until == utc(2026, 3, 9, 3, 30));
        CHECK(why.later()->notice);
        CHECK(why.later()->retry_at == steady + 1s);
        const auto never = window("Asia/Kolkata", {}, 9 * 60, 18 * 60);
        CHECK(never.room({steady, utc(2026, 3, 6, 12, 30)}, why) == 0);
        REQUIRE(why.later());
        CHECK_FALSE(why.later()->until.has_value());
    }
}
