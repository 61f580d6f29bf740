// `wacamp run` as a person at a terminal sees it: the confirmation and the live progress
// line, through a pseudo-terminal made by script(1) from util-linux or of a given width; and
// without one.
#include <doctest/doctest.h>

#include <algorithm>
#include <csignal>
#include <thread>

#include "../support/live_lines.hpp"
#include "fixtures.hpp"
#include "util/time.hpp"
#include "util/utf8.hpp"

using namespace e2e;
using test_support::live_lines;

namespace {

// The live line is redrawn in place: carriage return, erase the line, then the figures.
constexpr std::string_view k_live_line = "\r\x1b[Ksent ";

// Checks that every live line on `screen` leaves the last of `columns` free (a terminal
// wraps there), counting display columns, not bytes.
void check_fits(const std::vector<std::string>& lines, std::size_t columns) {
    for (const auto& line : lines) {
        CAPTURE(line);
        CHECK(util::display_width(line) <= columns - 1);
    }
}

// Stops `run` as a person would (SIGTERM: exit 3), checks that every live line it drew fits
// `columns`, and returns all it showed.
std::string stop_and_check_fits(TerminalProcess& run, std::size_t columns) {
    run.signal(SIGTERM);
    CHECK(run.wait() == 3);
    const std::string screen = run.screen();
    CAPTURE(screen);
    check_fits(live_lines(screen), columns);
    return screen;
}

// Whether any of `lines` contains `part`.
bool any_contains(const std::vector<std::string>& lines, std::string_view part) {
    return std::any_of(lines.begin(), lines.end(), [&](const std::string& line) { return contains(line, part); });
}

// The weekday, as the campaign file names it, two days after today's in UTC: no zone's date
// is that far ahead yet, so a window open only then is closed now everywhere.
std::string weekday_after_tomorrow() {
    constexpr const char* k_days[] = {"sun", "mon", "tue", "wed", "thu", "fri", "sat"};
    const auto today = std::chrono::floor<std::chrono::days>(std::chrono::system_clock::now());
    return k_days[std::chrono::weekday(today + std::chrono::days(2)).c_encoding()];
}

// A campaign waiting for a start_at an hour away, its times in `zone`.
std::string start_in_an_hour(std::string_view zone) {
    const auto start = std::chrono::system_clock::now() + std::chrono::hours(1);
    return "schedule: {start_at: \"" + util::format_timestamp(start) + "\", window: {timezone: " + std::string(zone) +
           "}}\n";
}

}  // namespace

TEST_SUITE("e2e: terminal") {
    TEST_CASE("on a terminal, run shows the campaign and first message and asks; n sends nothing") {
        Sandbox sandbox;
        CampaignFixture f(sandbox, numbers_csv(3));
        auto r = on_terminal(f, {"run", f.campaign.string()}, "n\n");
        CAPTURE(r.out);
        CHECK(r.exit_code == 3);  // declined: stopped before sending, resumable
        CHECK(contains(r.out, "e2e"));
        CHECK(contains(r.out, "3 to send now"));
        CHECK(contains(r.out, numbers_wa_id(0)));
        CHECK(contains(r.out, "Hi Person 0"));
        CHECK(contains(r.out, "Send 3 messages? [y/N]"));
        CHECK(contains(r.out, "Not sent."));
        CHECK(sandbox.journal().empty());
    }

    TEST_CASE("on a terminal, answering y sends") {
        Sandbox sandbox;
        CampaignFixture f(sandbox, numbers_csv(3));
        auto r = on_terminal(f, {"run", f.campaign.string()}, "y\n");
        CAPTURE(r.out);
        CHECK(r.exit_code == 0);
        CHECK(contains(r.out, "Send 3 messages? [y/N]"));
        CHECK(delivered(sandbox).size() == 3);
    }

    TEST_CASE("on a terminal, an empty answer is no") {
        Sandbox sandbox;
        CampaignFixture f(sandbox, numbers_csv(2));
        auto r = on_terminal(f, {"run", f.campaign.string()}, "\n");
        CAPTURE(r.out);
        CHECK(r.exit_code == 3);
        CHECK(contains(r.out, "Send 2 messages? [y/N]"));
        CHECK(send_requests(sandbox) == 0);
    }

    TEST_CASE("--yes does not ask") {
        Sandbox sandbox;
        CampaignFixture f(sandbox, numbers_csv(3));
        auto r = on_terminal(f, {"run", f.campaign.string(), "--yes"}, "");
        CAPTURE(r.out);
        CHECK(r.exit_code == 0);
        CHECK_FALSE(contains(r.out, "[y/N]"));
        CHECK(delivered(sandbox).size() == 3);
    }

    TEST_CASE("on a terminal, a live progress line is drawn and cleared before the summary") {
        Sandbox sandbox;
        CampaignFixture f(sandbox, numbers_csv(4));
        auto r = on_terminal(f, {"run", f.campaign.string(), "--yes"}, "");
        CAPTURE(r.out);
        REQUIRE(r.exit_code == 0);
        const auto live = r.out.find(k_live_line);
        REQUIRE(live != std::string::npos);
        CHECK(contains(r.out.substr(live), " · in flight "));
        // The summary starts on a clean line, after the last redraw.
        const auto summary = r.out.find("e2e: completed");
        REQUIRE(summary != std::string::npos);
        const auto last_live = r.out.rfind(k_live_line);
        CHECK(last_live < summary);
        CHECK(r.out.find("\r\x1b[K", last_live + 1) < summary);  // the line was cleared
    }

    // Failed before runner::send_campaign passed the number of jobs to the progress line.
    TEST_CASE("on a terminal, the live line says how many remain") {
        Sandbox sandbox;
        CampaignFixture f(sandbox, numbers_csv(4));
        auto r = on_terminal(f, {"run", f.campaign.string(), "--yes"}, "");
        CAPTURE(r.out);
        REQUIRE(r.exit_code == 0);
        CHECK(contains(r.out, " · remaining 4"));  // the first line, before any answer
    }

    TEST_CASE("--no-progress draws no progress line, even on a terminal") {
        Sandbox sandbox;
        CampaignFixture f(sandbox, numbers_csv(4));
        auto r = on_terminal(f, {"run", f.campaign.string(), "--yes", "--no-progress"}, "");
        CAPTURE(r.out);
        REQUIRE(r.exit_code == 0);
        CHECK_FALSE(contains(r.out, "\x1b["));
        CHECK_FALSE(contains(r.out, " · in flight "));
        CHECK(contains(r.out, "e2e: completed"));
    }

    TEST_CASE("without a terminal, progress comes as plain lines and nothing asks") {
        // The plain line comes every 10 s: the campaign is paced to last a little longer.
        Sandbox sandbox;
        CampaignFixture f(sandbox, numbers_csv(13), "rate: {per_second: 1, burst: 1}\n");
        auto r = f.wacamp({"run", f.campaign.string()});
        CAPTURE(r.err);
        REQUIRE(r.exit_code == 0);
        CHECK_FALSE(contains(r.err, "[y/N]"));
        CHECK_FALSE(contains(r.err, "\r"));
        CHECK_FALSE(contains(r.err, "\x1b"));
        const auto line = r.err.find("wacamp: progress: sent ");
        REQUIRE(line != std::string::npos);
        CHECK((line == 0 || r.err[line - 1] == '\n'));
        CHECK(r.err.find('\n', line) != std::string::npos);
        CHECK(delivered(sandbox).size() == 13);
    }

    TEST_CASE("on terminals 80 and 40 columns wide, the live line fits while retries wait") {
        for (const unsigned short columns : {80, 40}) {
            CAPTURE(columns);
            Sandbox sandbox({"--error-rate", "1"});  // every send answered 500: each waits to retry
            CampaignFixture f(sandbox, numbers_csv(3), "retry: {initial_backoff: 60s, max_backoff: 60s}\n");
            TerminalProcess run({"run", f.campaign.string(), "--yes"}, f.env, columns);
            // Every row failed once, and the line was drawn twice more since.
            std::size_t drawn = 0;
            CHECK(wait_until([&] {
                if (drawn == 0 && send_requests(sandbox) >= 3) {
                    drawn = live_lines(run.screen()).size();
                }
                return drawn > 0 && live_lines(run.screen()).size() >= drawn + 2;
            }));
            const auto lines = live_lines(stop_and_check_fits(run, columns));
            CHECK(any_contains(lines, "sent 0 · failed 0"));
            if (columns == 80) {
                CHECK(any_contains(lines, " · 3 waiting to retry"));
            }
        }
    }

    TEST_CASE("on terminals 80 and 40 columns wide, the live line fits while paused outside the send window") {
        for (const unsigned short columns : {80, 40}) {
            CAPTURE(columns);
            Sandbox sandbox;
            CampaignFixture f(sandbox, numbers_csv(3),
                              "schedule: {window: {timezone: Asia/Kolkata, days: [" + weekday_after_tomorrow() +
                                  "], from: \"10:00\", to: \"18:00\"}}\n");
            TerminalProcess run({"run", f.campaign.string(), "--yes"}, f.env, columns);
            CHECK(wait_until([&] { return any_contains(live_lines(run.screen()), "paused"); }));
            const std::string screen = stop_and_check_fits(run, columns);
            CAPTURE(screen);
            const auto lines = live_lines(screen);
            // Told once in full: on the window's clock, then in UTC.
            CHECK(contains(screen, "wacamp: paused: outside the send window until "));
            CHECK(contains(screen, " 10:00 Asia/Kolkata (04:30 UTC)"));
            if (columns == 80) {
                CHECK(any_contains(lines, "remaining 3 · paused until "));
                CHECK(any_contains(lines, " 10:00 Asia/Kolkata"));
            }
            CHECK(delivered(sandbox).empty());
        }
    }

    TEST_CASE("the live line follows the terminal when it is resized") {
        Sandbox sandbox;
        CampaignFixture f(sandbox, numbers_csv(3),
                          "schedule: {window: {timezone: Asia/Kolkata, days: [" + weekday_after_tomorrow() +
                              "], from: \"10:00\", to: \"18:00\"}}\n");
        TerminalProcess run({"run", f.campaign.string(), "--yes"}, f.env, 160);
        CHECK(wait_until([&] { return any_contains(live_lines(run.screen()), "paused: outside the send window"); }));
        const std::size_t wide = live_lines(run.screen()).size();
        run.resize(40);
        CHECK(wait_until([&] { return live_lines(run.screen()).size() >= wide + 3; }));
        const auto lines = live_lines(stop_and_check_fits(run, 160));
        // The lines drawn as the terminal was resized may be either width; those after fit 40.
        REQUIRE(lines.size() >= wide + 3);
        check_fits(std::vector<std::string>(lines.begin() + static_cast<std::ptrdiff_t>(wide) + 2, lines.end()), 40);
    }

    TEST_CASE("on terminals 80 and 40 columns wide, the wait for start_at counts down and fits") {
        for (const unsigned short columns : {80, 40}) {
            CAPTURE(columns);
            Sandbox sandbox;
            // Abidjan keeps UTC's date all year (GMT, no summer time), so the line with both clocks
            // fits 80 columns whatever the hour: in Kolkata, from 18:30 UTC on, the two dates
            // differ and the UTC part no longer fits (the unit tests of countdown_line cover that).
            CampaignFixture f(sandbox, numbers_csv(2), start_in_an_hour("Africa/Abidjan"));
            TerminalProcess run({"run", f.campaign.string(), "--yes"}, f.env, columns);
            // Counted down: two different lines, a second apart.
            CHECK(wait_until([&] {
                auto lines = live_lines(run.screen());
                return lines.size() >= 2 && lines.front().starts_with("starts in ") && lines.back() != lines.front();
            }));
            const std::string screen = stop_and_check_fits(run, columns);
            CAPTURE(screen);
            const auto lines = live_lines(screen);
            for (const auto& line : lines) {
                CHECK(line.starts_with("starts in "));
            }
            if (columns == 80) {
                CHECK(any_contains(lines, " — at "));
                CHECK(any_contains(lines, " Africa/Abidjan ("));
                CHECK(any_contains(lines, " UTC)"));
            }
            CHECK(screen.find("wacamp: waiting until ") == screen.rfind("wacamp: waiting until "));
            CHECK(send_requests(sandbox) == 0);
        }
    }

    TEST_CASE("without a terminal, the wait for start_at is told once, in the window's zone and UTC") {
        Sandbox sandbox;
        CampaignFixture f(sandbox, numbers_csv(2), start_in_an_hour("Asia/Kolkata"));
        Background run({"run", f.campaign.string()}, f.env);
        CHECK(wait_until([&] { return contains(run.err(), "waiting until"); }));
        std::this_thread::sleep_for(std::chrono::milliseconds(1500));  // a countdown would have drawn by now
        run.signal(SIGTERM);
        CHECK(run.wait() == 3);
        const std::string err = run.err();
        CAPTURE(err);
        CHECK(err.find("wacamp: waiting until ") == err.rfind("wacamp: waiting until "));
        CHECK(contains(err, " Asia/Kolkata ("));
        CHECK(contains(err, " UTC) to start (schedule.start_at)\n"));
        CHECK_FALSE(contains(err, "starts in"));
        CHECK_FALSE(contains(err, "\r"));
    }
}
