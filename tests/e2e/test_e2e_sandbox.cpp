// `wacamp sandbox` itself, where the Sandbox fixture does not reach: how it starts and stops
// when its output streams are not the usual ones.
#include <doctest/doctest.h>
#include <sys/stat.h>

#include <csignal>
#include <sstream>
#include <thread>

#include "fixtures.hpp"

using namespace e2e;

namespace {

// The port of "listening on http://127.0.0.1:PORT", the first line `process` writes on
// stdout; 0 when it does not come within a few seconds.
int listening_port(const Background& process) {
    const std::string prefix = "listening on http://127.0.0.1:";
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(20);
    while (std::chrono::steady_clock::now() < deadline) {
        const std::string out = process.out();
        if (const auto nl = out.find('\n'); nl != std::string::npos) {
            return out.rfind(prefix, 0) == 0 ? std::stoi(out.substr(prefix.size(), nl - prefix.size())) : 0;
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    return 0;
}

}  // namespace

TEST_SUITE("e2e: sandbox") {
    TEST_CASE("with stderr closed, the sandbox serves and stops on SIGTERM or SIGINT with exit 0") {
        for (const int signal : {SIGTERM, SIGINT}) {
            CAPTURE(signal);
            TempDir dir;
            const auto journal = dir.path() / "journal.jsonl";
            // No --seed: the seed it draws is told on stderr at once, and the summary at the end.
            Background sandbox({"sandbox", "--port", "0", "--journal", journal.string()}, {}, Stderr::closed);
            const int port = listening_port(sandbox);
            REQUIRE(port > 0);

            Sandbox unused;  // the fixture's campaign is pointed at the sandbox under test instead
            CampaignFixture f(unused, numbers_csv(3));
            f.env["WACAMP_BASE_URL"] = "http://127.0.0.1:" + std::to_string(port);
            CHECK(f.wacamp({"run", f.campaign.string(), "--no-progress"}).exit_code == 0);

            sandbox.signal(signal);
            CHECK(sandbox.wait() == 0);
            // What it would have told stderr went nowhere else: the journal (opened where
            // stderr was) holds only its records, one per request.
            std::istringstream lines(read_file(journal));
            int sends = 0;
            for (std::string line; std::getline(lines, line);) {
                const auto record = nlohmann::json::parse(line, nullptr, false);
                REQUIRE_MESSAGE(record.is_object(), line);
                const bool sent = record.value("path", "") == "/whatsapp-automation/wa/send-message" &&
                                  record.value("outcome", "") == "ok";
                sends += sent ? 1 : 0;
            }
            CHECK(sends == 3);
        }
    }
    TEST_CASE("--journal on a FIFO or a device is refused at once; a symlink to a file is followed") {
        TempDir dir;
        const auto fifo = dir.path() / "journal.fifo";
        REQUIRE(::mkfifo(fifo.c_str(), 0600) == 0);
        for (const std::string& path : {fifo.string(), std::string("/dev/null")}) {
            auto r =
                run_program({"/usr/bin/timeout", "60", wacamp_path(), "sandbox", "--port", "0", "--journal", path});
            CAPTURE(r.err);
            CHECK(r.exit_code == 2);
            CHECK(contains(r.err, "journal " + path));
            CHECK(contains(r.err, "must be a regular file"));
        }
        const auto target = dir.write("journal.jsonl", "");
        const auto link = dir.path() / "link.jsonl";
        std::filesystem::create_symlink(target, link);
        Background sandbox({"sandbox", "--port", "0", "--journal", link.string()});
        REQUIRE(listening_port(sandbox) > 0);
        sandbox.signal(SIGTERM);
        CHECK(sandbox.wait() == 0);
        CHECK(std::filesystem::is_symlink(link));
    }
    TEST_CASE("--recategorize and --pause-template: a bad value or an unknown template exits 2 at once") {
        for (const auto& args : std::vector<std::vector<std::string>>{{"--recategorize", "spring_sale=UTILITY"},
                                                                      {"--recategorize", "nosuch=UTILITY@3"},
                                                                      {"--pause-template", "spring_sale@x"},
                                                                      {"--pause-template", "nosuch@1"}}) {
            std::vector<std::string> command{"/usr/bin/timeout", "60", wacamp_path(), "sandbox", "--port", "0"};
            command.insert(command.end(), args.begin(), args.end());
            auto r = run_program(command);
            CAPTURE(args[1]);
            CAPTURE(r.err);
            CHECK(r.exit_code == 2);
            CHECK(contains(r.err, args[0] + " "));
        }
        // A good one serves.
        Background sandbox(
            {"sandbox", "--port", "0", "--recategorize", "spring_sale=UTILITY@5", "--pause-template", "thank_you@0"});
        REQUIRE(listening_port(sandbox) > 0);
        sandbox.signal(SIGTERM);
        CHECK(sandbox.wait() == 0);
    }
}
