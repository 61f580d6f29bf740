#include <doctest/doctest.h>

#include <fmt/chrono.h>
#include <cstdio>
#include <memory>
#include <nlohmann/json.hpp>
#include <sstream>
#include <vector>

#include "capture.hpp"
#include "cli/output.hpp"
#include "cli/terminal_ui.hpp"
#include "util/zone.hpp"

namespace {

using test_support::Capture;

struct Fixture {
    Capture out;
    Capture err;
    cli::Output text{cli::LogFormat::text, {.out = out.file(), .err = err.file()}};
    cli::Output json{cli::LogFormat::json, {.out = out.file(), .err = err.file()}};
};

}  // namespace

TEST_SUITE("cli::Output") {
    TEST_CASE("text: errors, warnings and notices keep their wacamp: prefixes on stderr") {
        Fixture f;
        f.text.error("c.yaml:3: bad", cli::k_exit_bad_input);
        f.text.warning("torn line");
        f.text.notice("continuing from x.jsonl");
        CHECK(f.err.text() ==
              "wacamp: error: c.yaml:3: bad\nwacamp: warning: torn line\nwacamp: continuing from x.jsonl\n");
        CHECK(f.out.text().empty());
    }
    TEST_CASE("text: a result is printed on stdout as it is, and progress off a terminal is a plain line") {
        Fixture f;
        f.text.result(cli::Level::info, "summary", "e2e: completed\n  sent 1\n", {{"message", "ignored"}});
        f.text.progress("sent 1 · failed 0", {{"sent", 1}});
        CHECK(f.out.text() == "e2e: completed\n  sent 1\n");
        CHECK(f.err.text() == "wacamp: progress: sent 1 · failed 0\n");
    }
    TEST_CASE("json: every line is an object that starts with time, level and event") {
        Fixture f;
        f.json.notice("continuing");
        f.json.warning("torn line");
        f.json.error("c.yaml:3: bad", cli::k_exit_bad_input);
        auto lines = f.err.objects();
        REQUIRE(lines.size() == 3);
        CHECK(lines[0]["level"] == "info");
        CHECK(lines[0]["event"] == "notice");
        CHECK(lines[1]["level"] == "warning");
        CHECK(lines[1]["event"] == "warning");
        CHECK(lines[2]["level"] == "error");
        CHECK(lines[2]["message"] == "c.yaml:3: bad");
        CHECK(lines[2]["exit_code"] == 2);
        const std::string time = lines[0]["time"];
        CHECK(time.size() == 24);  // 2026-11-21T06:40:01.123Z
        CHECK(time.back() == 'Z');
        CHECK(f.err.text().rfind("{\"time\":", 0) == 0);
    }
    TEST_CASE("json: a multi-line error is one object whose message keeps every problem") {
        Fixture f;
        f.json.error("c.yaml:3: bad\nc.yaml:7: worse", cli::k_exit_bad_input, "text form, not printed\n");
        auto lines = f.err.objects();
        REQUIRE(lines.size() == 1);
        CHECK(lines[0]["message"] == "c.yaml:3: bad\nc.yaml:7: worse");
    }
    TEST_CASE("json: a secret is masked even where JSON would escape it") {
        Fixture f;
        const std::string secret = "se\"cr\\et-key";
        f.json.add_secret(secret);
        f.json.notice("key is " + secret);
        f.json.result(cli::Level::info, "summary", "", {{"message", "m"}, {"nested", {{"deep", secret}}}});
        const auto all = f.err.text() + f.out.text();
        CHECK(all.find("cr\\\\et") == std::string::npos);  // the escaped form
        CHECK(all.find("cr\\et") == std::string::npos);    // the raw form
        CHECK(f.err.objects().at(0)["message"] == "key is ***");
        CHECK(f.out.objects().at(0)["nested"]["deep"] == "***");
    }
    TEST_CASE("json: bytes that are not UTF-8 are replaced, and the line stays valid") {
        Fixture f;
        f.json.warning("row 3: name \xff\xfe here");
        auto lines = f.err.objects();
        REQUIRE(lines.size() == 1);
        CHECK(lines[0]["message"].get<std::string>().find("here") != std::string::npos);
    }
    TEST_CASE("json: progress carries the text line as its message beside the figures") {
        Fixture f;
        f.json.progress("sent 2 · failed 0", {{"sent", 2}, {"remaining", 3}});
        auto lines = f.err.objects();
        REQUIRE(lines.size() == 1);
        CHECK(lines[0]["event"] == "progress");
        CHECK(lines[0]["message"] == "sent 2 · failed 0");
        CHECK(lines[0]["sent"] == 2);
        CHECK(lines[0]["remaining"] == 3);
        CHECK(f.err.text().find('\r') == std::string::npos);
    }
    TEST_CASE("text: service text is shown with its escape sequences escaped, line breaks kept") {
        Fixture f;
        f.text.result(cli::Level::error, "summary", "e2e: STOPPED\n  why: \x1b]0;evil\x07\x1b[2J (auth)\n", {});
        f.text.warning(
            "row 3: \xc2\x9b"
            "31m red");
        CHECK(f.out.text() == "e2e: STOPPED\n  why: \\x1b]0;evil\\x07\\x1b[2J (auth)\n");
        CHECK(f.err.text() == "wacamp: warning: row 3: \\u009b31m red\n");
    }
    TEST_CASE("a stream that fails is no longer written to, and nothing throws") {
        // /dev/full fails every write, as a pipe does once its reader is gone.
        std::unique_ptr<std::FILE, int (*)(std::FILE*)> full(std::fopen("/dev/full", "w"), &std::fclose);
        REQUIRE(full != nullptr);
        std::setvbuf(full.get(), nullptr, _IONBF, 0);  // unbuffered, like stderr
        Capture out;
        cli::Output text(cli::LogFormat::text, {.out = out.file(), .err = full.get()});
        cli::Output json(cli::LogFormat::json, {.out = full.get(), .err = full.get()});
        CHECK_NOTHROW(text.notice("continuing"));
        CHECK_NOTHROW(text.progress("sent 1", {{"sent", 1}}));
        CHECK_NOTHROW(text.error("stopped", cli::k_exit_stopped));
        CHECK_NOTHROW(text.result(cli::Level::info, "summary", "done\n", {}));
        CHECK_NOTHROW(json.notice("continuing"));
        CHECK_NOTHROW(json.result(cli::Level::info, "summary", "", {{"message", "done"}}));
        CHECK(out.text() == "done\n");  // the other stream still works
    }
    TEST_CASE("on a terminal, the live line is erased before a warning and before the result") {
        test_support::TerminalCapture err;
        Capture out;
        {
            cli::Output text(cli::LogFormat::text, {.out = out.file(), .err = err.file()});
            REQUIRE(text.live_lines());
            text.progress("sent 1", {});
            text.warning("careful");
            text.progress("sent 2", {});
            text.result(cli::Level::info, "summary", "done\n", {});
        }
        CHECK(err.shown() == "\r\x1b[Ksent 1\r\x1b[Kwacamp: warning: careful\n\r\x1b[Ksent 2\r\x1b[K");
        CHECK(out.text() == "done\n");
    }
    TEST_CASE("json: a prompt prints nothing") {
        Fixture f;
        f.json.prompt("Send 3 messages? [y/N] ");
        CHECK(f.err.text().empty());
    }
}

TEST_SUITE("cli::TerminalUi") {
    TEST_CASE("json: the first progress report is written at once, the next only after the interval") {
        Fixture f;
        cli::TerminalUi ui(f.json, cli::ProgressMode::automatic, cli::AssumeYes::yes);
        queue::Progress p;
        p.sent = 1;
        p.achieved_rate = 2;
        ui.progress(p, {.total = 5, .held_back = {}});
        ui.progress(p, {.total = 5, .held_back = {}});  // well within the 10 s interval
        auto lines = f.err.objects();
        REQUIRE(lines.size() == 1);
        CHECK(lines[0]["remaining"] == 4);
        CHECK(lines[0]["eta_seconds"] == 2);
        CHECK(lines[0]["paused"] == false);
    }
    TEST_CASE("progress names the rows the ledger held back and does not count them as remaining") {
        Fixture f;
        cli::TerminalUi ui(f.json, cli::ProgressMode::automatic, cli::AssumeYes::yes);
        queue::Progress p;
        p.sent = 3;
        runner::RunFigures run{.total = 10, .held_back = {}};
        run.held_back[results::Cause::suppressed] = 2;
        run.held_back[results::Cause::frequency_cap] = 1;
        ui.progress(p, run);
        auto lines = f.err.objects();
        REQUIRE(lines.size() == 1);
        CHECK(lines[0]["remaining"] == 4);
        CHECK(lines[0]["held_back"]["suppressed"] == 2);
        CHECK(lines[0]["held_back"]["frequency_cap"] == 1);
        CHECK(lines[0]["message"].get<std::string>().find(" · held back 3 (suppressed 2, frequency_cap 1) · ") !=
              std::string::npos);
    }
    TEST_CASE("progress shows the requests in flight beside the most allowed now") {
        Fixture f;
        cli::TerminalUi ui(f.json, cli::ProgressMode::automatic, cli::AssumeYes::yes);
        queue::Progress p;
        p.in_flight = 97;
        p.in_flight_limit = 125;
        ui.progress(p, {.total = 0, .held_back = {}});
        auto lines = f.err.objects();
        REQUIRE(lines.size() == 1);
        CHECK(lines[0]["in_flight"] == 97);
        CHECK(lines[0]["in_flight_limit"] == 125);
        CHECK(lines[0]["message"].get<std::string>().find(" · in flight 97/125 · ") != std::string::npos);
    }
    TEST_CASE("json: a pause is reported with its reason") {
        Fixture f;
        cli::TerminalUi ui(f.json, cli::ProgressMode::automatic, cli::AssumeYes::yes);
        queue::Progress p;
        p.pause_reason = "daily cap reached";
        ui.progress(p, {.total = 0, .held_back = {}});
        auto lines = f.err.objects();
        REQUIRE(lines.size() == 1);
        CHECK(lines[0]["paused"] == true);
        CHECK(lines[0]["pause_reason"] == "daily cap reached");
        CHECK(lines[0]["remaining"].is_null());
    }
    TEST_CASE("a pause that ends on another UTC day shows its date") {
        Fixture f;
        cli::TerminalUi ui(f.json, cli::ProgressMode::automatic, cli::AssumeYes::yes);
        queue::Progress p;
        p.pause_reason = "daily cap reached";
        p.paused_until = std::chrono::system_clock::now() + std::chrono::hours(48);
        ui.progress(p, {.total = 0, .held_back = {}});
        auto lines = f.err.objects();
        REQUIRE(lines.size() == 1);
        const std::string date = fmt::format("{:%Y-%m-%d}", std::chrono::floor<std::chrono::seconds>(*p.paused_until));
        const std::string message = lines[0]["message"];
        CHECK_MESSAGE(message.find("paused: daily cap reached until " + date + " ") != std::string::npos, message);
    }
    TEST_CASE("json: a pause is told with its end in UTC and on the window's clock, with the zone's name") {
        Fixture f;
        cli::TerminalUi ui(f.json, cli::ProgressMode::automatic, cli::AssumeYes::yes);
        ui.time_zone(*util::TimeZone::locate("Asia/Kolkata"));
        queue::Progress p;
        p.pause_reason = "outside the send window";
        p.paused_until = std::chrono::sys_days(std::chrono::year(2099) / 11 / 28) + std::chrono::minutes(270);
        ui.paused(p);
        ui.progress(p, {.total = 0, .held_back = {}});
        auto lines = f.err.objects();
        REQUIRE(lines.size() == 2);
        CHECK(lines[0]["event"] == "notice");
        CHECK(lines[0]["message"] == "paused: outside the send window until 2099-11-28 10:00 Asia/Kolkata (04:30 UTC)");
        for (const auto& line : lines) {
            CHECK(line["pause_reason"] == "outside the send window");
            CHECK(line["paused_until"] == "2099-11-28T04:30:00.000Z");
            CHECK(line["paused_until_local"] == "2099-11-28T10:00:00.000+05:30");
            CHECK(line["time_zone"] == "Asia/Kolkata");
        }
    }
    TEST_CASE("without a send window a pause is told on the machine's clock and in UTC; the zone's fields are null") {
        Fixture f;
        cli::TerminalUi ui(f.json, cli::ProgressMode::automatic, cli::AssumeYes::yes,
                           *util::TimeZone::locate("America/New_York"));
        queue::Progress p;
        p.pause_reason = "daily cap reached";
        p.paused_until = std::chrono::sys_days(std::chrono::year(2099) / 11 / 28) + std::chrono::minutes(270);
        ui.paused(p);
        auto lines = f.err.objects();
        REQUIRE(lines.size() == 1);
        CHECK(lines[0]["message"] ==
              "paused: daily cap reached until 2099-11-27 23:30 America/New_York (2099-11-28 04:30 UTC)");
        CHECK(lines[0]["paused_until"] == "2099-11-28T04:30:00.000Z");
        CHECK(lines[0]["paused_until_local"].is_null());
        CHECK(lines[0]["time_zone"].is_null());
    }
    TEST_CASE("off a terminal, the wait for start_at is told once, however long it lasts") {
        Fixture f;
        cli::TerminalUi ui(f.text, cli::ProgressMode::automatic, cli::AssumeYes::yes);
        ui.time_zone(*util::TimeZone::locate("Asia/Kolkata"));
        const auto start = std::chrono::sys_days(std::chrono::year(2099) / 11 / 28) + std::chrono::minutes(270);
        for (int i = 0; i < 50; ++i) {
            ui.waiting_to_start(start, start - std::chrono::hours(30) + std::chrono::seconds(i));
        }
        CHECK(f.err.text() ==
              "wacamp: waiting until 2099-11-28 10:00 Asia/Kolkata (04:30 UTC) to start (schedule.start_at)\n");
    }
    TEST_CASE("json: the wait for start_at is one notice with the start in UTC and on the window's clock") {
        Fixture f;
        cli::TerminalUi ui(f.json, cli::ProgressMode::automatic, cli::AssumeYes::yes);
        ui.time_zone(*util::TimeZone::locate("Asia/Kolkata"));
        const auto start = std::chrono::sys_days(std::chrono::year(2099) / 11 / 28) + std::chrono::minutes(270);
        ui.waiting_to_start(start, start - std::chrono::hours(1));
        ui.waiting_to_start(start, start - std::chrono::minutes(59));
        auto lines = f.err.objects();
        REQUIRE(lines.size() == 1);
        CHECK(lines[0]["start_at"] == "2099-11-28T04:30:00.000Z");
        CHECK(lines[0]["start_at_local"] == "2099-11-28T10:00:00.000+05:30");
        CHECK(lines[0]["time_zone"] == "Asia/Kolkata");
    }
    TEST_CASE("--no-progress writes no progress in either format") {
        Fixture f;
        cli::TerminalUi json_ui(f.json, cli::ProgressMode::off, cli::AssumeYes::yes);
        cli::TerminalUi text_ui(f.text, cli::ProgressMode::off, cli::AssumeYes::yes);
        json_ui.progress(queue::Progress{}, {.total = 3, .held_back = {}});
        text_ui.progress(queue::Progress{}, {.total = 3, .held_back = {}});
        CHECK(f.err.text().empty());
    }
}
