#include <doctest/doctest.h>

#include <chrono>
#include <cstdio>
#include <string>
#include <vector>

#include "../support/live_lines.hpp"
#include "capture.hpp"
#include "cli/output.hpp"
#include "cli/terminal_ui.hpp"
#include "util/time.hpp"
#include "util/utf8.hpp"
#include "util/zone.hpp"

using namespace std::chrono_literals;

namespace {

util::TimePoint utc(int y, unsigned m, unsigned d, int h, int min, int s = 0) {
    return std::chrono::sys_days(std::chrono::year(y) / m / d) + std::chrono::hours(h) + std::chrono::minutes(min) +
           std::chrono::seconds(s);
}

const util::TimeZone& kolkata() {
    static const util::TimeZone zone = *util::TimeZone::locate("Asia/Kolkata");
    return zone;
}

// 2026-11-27 12:00 UTC: the window below opens tomorrow, Kolkata's 10:00.
const util::TimePoint k_now = utc(2026, 11, 27, 12, 0);

// A run under way: 12 sent, 1 failed, 87 to go at 2/s, 2 of 4 in flight, 3 waiting to retry.
queue::Progress running() {
    queue::Progress p;
    p.sent = 12;
    p.failed = 1;
    p.in_flight = 2;
    p.in_flight_limit = 4;
    p.retry_waiting = 3;
    p.achieved_rate = 2;
    return p;
}

// The same run held by its send window until tomorrow's opening.
queue::Progress paused() {
    queue::Progress p = running();
    p.in_flight = 0;
    p.retry_waiting = 0;
    p.achieved_rate = 0;
    p.pause_reason = "outside the send window";
    p.paused_until = utc(2026, 11, 28, 4, 30);
    return p;
}

const runner::RunFigures k_run{.total = 100, .held_back = {}};

cli::LineClock clock_in(const util::TimeZone* zone) {
    return {.now = k_now, .elapsed = 7s, .zone = zone};
}

std::string line_at(const queue::Progress& p, std::size_t columns, const util::TimeZone* zone = &kolkata()) {
    return cli::progress_line(p, k_run, clock_in(zone), columns);
}

}  // namespace

TEST_SUITE("cli::progress_line") {
    TEST_CASE("with room, every field in its long form") {
        CHECK(line_at(running(), SIZE_MAX) ==
              "sent 12 · failed 1 · unknown 0 · remaining 87 · ETA 43.5s · in flight 2/4 · 2.0/s · 3 waiting to retry "
              "· 7.0s");
    }
    TEST_CASE("at 80 columns: the elapsed time, an unknown count of 0 and what is in flight give way first") {
        const std::string line = line_at(running(), 79);
        CHECK(line == "sent 12 · failed 1 · remaining 87 · ETA 43.5s · 2.0/s · 3 waiting to retry");
    }
    TEST_CASE("at 40 columns: the counts and what remains") {
        CHECK(line_at(running(), 39) == "sent 12 · failed 1 · remaining 87");
    }
    TEST_CASE("at 20 columns: sent and failed; narrower, clipped with an ellipsis") {
        CHECK(line_at(running(), 19) == "sent 12 · failed 1");
        CHECK(line_at(running(), 9) == "sent 12 …");
        CHECK(line_at(running(), 1) == "…");
        CHECK(line_at(running(), 0).empty());
    }
    TEST_CASE("an unknown count above 0 stays with the counts") {
        queue::Progress p = running();
        p.unknown = 2;
        CHECK(line_at(p, 40) == "sent 12 · failed 1 · unknown 2 · left 85");
    }
    TEST_CASE("a pause in the window's zone beside UTC, shortened before what remains") {
        CHECK(line_at(paused(), 159) ==
              "sent 12 · failed 1 · unknown 0 · remaining 87 · in flight 0/4 · 0.0/s · paused: outside the send window "
              "until 2026-11-28 10:00 Asia/Kolkata (04:30 UTC) · 7.0s");
        CHECK(line_at(paused(), 145) ==
              "sent 12 · failed 1 · remaining 87 · in flight 0/4 · 0.0/s · paused: outside the send window until "
              "2026-11-28 10:00 Asia/Kolkata (04:30 UTC)");
        CHECK(line_at(paused(), 79) ==
              "sent 12 · failed 1 · remaining 87 · paused until 2026-11-28 10:00 Asia/Kolkata");
        CHECK(line_at(paused(), 39) == "sent 12 · failed 1 · left 87 · paused");
    }
    TEST_CASE("without a zone, a pause ends in UTC") {
        CHECK(line_at(paused(), SIZE_MAX, nullptr)
                  .find("paused: outside the send window until 2026-11-28 04:30:00 UTC") != std::string::npos);
    }
    TEST_CASE("rows waiting for their recipients' windows: how many, and the next opening") {
        queue::Progress p = running();
        p.set_aside = 5;
        p.next_opening = utc(2026, 11, 28, 4, 30);
        const std::string line = line_at(p, SIZE_MAX, nullptr);
        CHECK(line.find("· 5 waiting for their window (next " + util::format_wall_time(*p.next_opening, k_now) +
                        ") ·") != std::string::npos);
        CHECK(line_at(p, 60, nullptr).find("waiting for their window") == std::string::npos);
        p.set_aside = 0;
        CHECK(line_at(p, SIZE_MAX, nullptr).find("window") == std::string::npos);
    }
    TEST_CASE("remaining is the list's rows the log holds no record of: the summary's count, rows waiting included") {
        // 1,561 rows of the list, 527 recorded (sent, invalid, duplicates, held back): 1,034 remain,
        // whatever the queue's own count of jobs (2 of them waiting for their window).
        runner::RunFigures run{.total = 1600, .held_back = {}, .rows = 1561, .settled = 527};
        queue::Progress p = running();
        p.sent = 300;
        p.set_aside = 2;
        CHECK(run.remaining(p) == 1034);
        CHECK(cli::progress_line(p, run, clock_in(nullptr), 200).find("remaining 1034") != std::string::npos);
        // The ETA counts the jobs this run still expects: never more than what remains.
        CHECK(run.jobs_left(p) == 1034);
        run.total = 310;               // --limit 310
        CHECK(run.jobs_left(p) == 9);  // 310 less 300 sent and 1 failed
        run.settled = 1561;            // every row recorded: none remain
        CHECK(run.remaining(p) == 0);
        // Without the list's size (a unit of the runner that does not know it): the jobs.
        runner::RunFigures jobs_only{.total = 100, .held_back = {}};
        CHECK(jobs_only.remaining(p) == 0);
    }
    TEST_CASE("never wider than the columns given, whatever the state") {
        queue::Progress held = running();
        held.unknown = 4;
        runner::RunFigures run = k_run;
        run.held_back[results::Cause::suppressed] = 2;
        for (const auto& p : {running(), paused(), held}) {
            for (std::size_t columns = 0; columns <= 200; ++columns) {
                const std::string line = cli::progress_line(p, run, clock_in(&kolkata()), columns);
                CAPTURE(columns);
                CAPTURE(line);
                CHECK(util::display_width(line) <= columns);
            }
        }
    }
}

TEST_SUITE("cli::countdown_line") {
    const util::TimePoint start = utc(2026, 11, 28, 4, 30);
    TEST_CASE("the time left and the start in the window's zone beside UTC") {
        const cli::LineClock clock{.now = start - (1h + 2min + 5s), .elapsed = {}, .zone = &kolkata()};
        CHECK(cli::countdown_line(start, clock, 79) == "starts in 1h 02m 05s — at 10:00 Asia/Kolkata (04:30 UTC)");
        CHECK(cli::countdown_line(start, clock, 50) == "starts in 1h 02m 05s — at 10:00 Asia/Kolkata");
        CHECK(cli::countdown_line(start, clock, 39) == "starts in 1h 02m 05s");
        CHECK(cli::countdown_line(start, clock, 15) == "starts in 1h 0…");
    }
    TEST_CASE("a start on another day of the zone has its date") {
        const cli::LineClock clock{.now = start - 26h, .elapsed = {}, .zone = &kolkata()};
        CHECK(cli::countdown_line(start, clock, 79) ==
              "starts in 1d 02h 00m 00s — at 2026-11-28 10:00 Asia/Kolkata (04:30 UTC)");
        CHECK(cli::countdown_line(start, clock, 63) == "starts in 1d 02h 00m 00s — at 2026-11-28 10:00 Asia/Kolkata");
    }
    TEST_CASE("without a zone, in UTC") {
        const cli::LineClock clock{.now = start - 4500ms, .elapsed = {}, .zone = nullptr};
        CHECK(cli::countdown_line(start, clock, 79) == "starts in 5s — at 04:30:00 UTC");
    }
}

using test_support::live_lines;

TEST_SUITE("cli::TerminalUi on a terminal") {
    // Everything a TerminalUi draws on a pseudo-terminal `columns` wide as `draw` makes it, with
    // the terminal given to `draw` to resize.
    template <typename Draw>
    std::string drawn(unsigned short columns, Draw draw) {
        test_support::TerminalCapture err(columns);
        test_support::Capture out;
        {
            cli::Output text(cli::LogFormat::text, {.out = out.file(), .err = err.file()});
            REQUIRE(text.live_lines());
            cli::TerminalUi ui(text, cli::ProgressMode::automatic, cli::AssumeYes::yes);
            draw(ui, err);
        }
        return err.shown();
    }

    TEST_CASE("the live line fits the terminal, and follows it when it is resized") {
        const std::string shown = drawn(40, [](cli::TerminalUi& ui, const test_support::TerminalCapture& terminal) {
            ui.progress(running(), k_run);
            terminal.resize(120);
            ui.progress(running(), k_run);
        });
        const auto lines = live_lines(shown);
        REQUIRE(lines.size() >= 2);
        CAPTURE(shown);
        CHECK(util::display_width(lines[0]) <= 39);
        CHECK(lines[0].find("sent 12 · failed 1") == 0);
        CHECK(lines[1].find("3 waiting to retry") != std::string::npos);
        CHECK(util::display_width(lines[1]) <= 119);
    }
    TEST_CASE("the wait for start_at is told once, then counted down on the live line") {
        const auto start = std::chrono::system_clock::now() + 1h;
        const std::string shown = drawn(40, [&](cli::TerminalUi& ui, const test_support::TerminalCapture&) {
            ui.time_zone(kolkata());
            ui.waiting_to_start(start, start - 65s);
            ui.waiting_to_start(start, start - 64500ms);  // the same second left: not drawn again
            ui.waiting_to_start(start, start - 64s);
        });
        CAPTURE(shown);
        CHECK(shown.find("wacamp: waiting until ") == shown.rfind("wacamp: waiting until "));
        CHECK(shown.find(" Asia/Kolkata (") != std::string::npos);
        const auto lines = live_lines(shown);
        REQUIRE(lines.size() == 2);
        CHECK(lines[0] == "starts in 1m 05s");
        CHECK(lines[1] == "starts in 1m 04s");
    }
}
