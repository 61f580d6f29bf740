// `wacamp run` as a person at a terminal sees it: the confirmation and the live progress
// line, through a pseudo-terminal made by script(1) from util-linux; and without one.
#include <doctest/doctest.h>

#include <cstdlib>
#include <sys/wait.h>

#include "fixtures.hpp"

using namespace e2e;

namespace {

// A shell word: `text` in single quotes.
std::string quoted(const std::string& text) {
    std::string out = "'";
    for (char c : text) {
        out += c == '\'' ? std::string("'\\''") : std::string(1, c);
    }
    return out + "'";
}

// Runs `wacamp ARGS…` with the fixture's environment on a pseudo-terminal (stdin, stdout
// and stderr all on it), typing `typed` at it. Returns the exit code and everything the
// terminal showed (stdout and stderr together, with "\r\n" line ends, echo included).
ProcessResult on_terminal(const CampaignFixture& f, const std::vector<std::string>& args,
                          const std::string& typed) {
    std::string script;
    for (const auto& [name, value] : f.env) {
        script += "export " + name + "=" + quoted(value) + "\n";
    }
    script += "exec " + quoted(WACAMP_BINARY);
    for (const auto& a : args) {
        script += " " + quoted(a);
    }
    const auto run_sh = f.dir.write("on_terminal.sh", script + "\n");
    const auto input = f.dir.write("typed.txt", typed);
    const auto screen = f.dir.path() / "screen.txt";
    // -e: script's exit code is the command's; -f: flush as it comes; -q: no banner.
    const std::string command = "SHELL=/bin/sh timeout 60 script -qfec " +
                                quoted("sh " + quoted(run_sh.string())) + " /dev/null < " +
                                quoted(input.string()) + " > " + quoted(screen.string()) + " 2>&1";
    const int status = std::system(command.c_str());
    ProcessResult r;
    r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    r.out = read_file(screen);
    return r;
}

bool contains(const std::string& text, std::string_view part) {
    return text.find(part) != std::string::npos;
}

int requests_sent(const Sandbox& sandbox) {
    int n = 0;
    for (const auto& j : sandbox.journal()) {
        n += j.value("path", "") == "/whatsapp-automation/wa/send-message" ? 1 : 0;
    }
    return n;
}

// The live line is redrawn in place: carriage return, erase the line, then the figures.
constexpr std::string_view k_live_line = "\r\x1b[Ksent ";

} // namespace

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
        CHECK(requests_sent(sandbox) == 0);
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
}
