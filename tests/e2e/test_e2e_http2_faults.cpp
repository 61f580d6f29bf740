// What HTTP/2 failures mean for a row, against tests/support/h2_fault_server.py (Python's h2 over
// TLS with the TLS sandbox's certificate; ctest reports the file skipped when python3-h2 is
// missing). The server journals every request it processed: a stream it refused or left out
// by a GOAWAY was never processed and is sent again as a request of its own; a stream reset,
// or a connection closed, after the request was processed ends `unknown` and is never resent.
#include <doctest/doctest.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <sstream>
#include <thread>

#include "fixtures.hpp"
#include "tls_fixture.hpp"

using namespace e2e;

namespace {

const std::string k_python = "/usr/bin/python3";  // Debian's, where python3-h2 is installed
const std::string k_rate = "rate: {per_second: 5000, burst: 16, concurrency: 8}\n";

// The fault server with `faults` (its flags), on a free port, until destroyed.
class FaultServer {
public:
    FaultServer(const Sandbox& tls_sandbox, const std::vector<std::string>& faults) {
        const auto certs = tls_sandbox.ca_file().parent_path();
        m_journal = m_dir.path() / "processed.txt";
        const auto out_path = m_dir.path() / "out.txt";
        std::vector<std::string> argv = {
            k_python,    std::string(WACAMP_SOURCE_DIR) + "/tests/support/h2_fault_server.py",
            "--cert",    (certs / "cert.pem").string(),
            "--key",     (certs / "key.pem").string(),
            "--journal", m_journal.string()};
        argv.insert(argv.end(), faults.begin(), faults.end());
        const int out = open(out_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
        const int devnull = open("/dev/null", O_RDWR | O_CLOEXEC);
        m_pid = spawn_process(argv, {}, devnull, out, out);
        close(out);
        close(devnull);
        for (int i = 0; i < 400 && m_port == 0; ++i) {
            std::istringstream text(read_file(out_path));
            std::string word;
            if (text >> word && word == "listening" && text >> word >> m_port) {
                break;
            }
            if (waitpid(m_pid, nullptr, WNOHANG) != 0) {
                m_pid = -1;
                break;
            }
            std::this_thread::sleep_for(std::chrono::milliseconds(25));
        }
        if (m_port == 0) {
            throw std::runtime_error("the HTTP/2 fault server did not start: " + read_file(out_path));
        }
    }
    ~FaultServer() {
        if (m_pid > 0) {
            kill(m_pid, SIGTERM);
            waitpid(m_pid, nullptr, 0);
        }
    }
    FaultServer(const FaultServer&) = delete;
    FaultServer& operator=(const FaultServer&) = delete;

    std::string url() const { return "https://127.0.0.1:" + std::to_string(m_port); }
    // How many times the server processed a request for each wa_id, and how (by outcome:
    // answered, reset, closed).
    std::map<std::string, int> processed() const { return count(""); }
    std::map<std::string, int> processed(const std::string& outcome) const { return count(outcome); }

private:
    std::map<std::string, int> count(const std::string& outcome) const {
        std::map<std::string, int> out;
        std::istringstream text(read_file(m_journal));
        for (std::string line; std::getline(text, line);) {
            std::istringstream fields(line);
            std::string wa_id, stream, how;
            fields >> wa_id >> stream >> how;
            if (outcome.empty() || how == outcome) {
                ++out[wa_id];
            }
        }
        return out;
    }

    TempDir m_dir;
    std::filesystem::path m_journal;
    pid_t m_pid = -1;
    int m_port = 0;
};

Sandbox& tls_sandbox() {
    static Sandbox sandbox({}, Scheme::https);
    return sandbox;
}

// A campaign of `count` numbers sent over HTTP/2 ("2") to `base_url`, trusting the TLS sandbox's
// certificate (the fault server's too).
struct H2Campaign : CampaignFixture {
    explicit H2Campaign(const std::string& base_url, int count, const std::string& rate = k_rate)
        : CampaignFixture(base_url, numbers_csv(count), rate) {
        trust(*this, tls_sandbox().ca_file());
        add_service_line(*this, "  http: \"2\"");
    }
    // Runs the campaign (`run --yes --no-progress`).
    ProcessResult run() const { return wacamp({"run", campaign.string(), "--yes", "--no-progress"}); }
};

// A stream broken after the server processed its request (the server's `faults`), `times` over:
// the server journals it as `outcome`.
struct BrokenAfterProcessing {
    std::string name;
    std::vector<std::string> faults;
    std::string outcome;
    std::size_t times = 0;
};
const std::vector<BrokenAfterProcessing> k_broken_after_processing = {
    // libcurl resends such a stream on its own, as it does a refused one; the GOAWAY says it
    // was taken, so it is held unknown.
    {"a reset followed by a GOAWAY that names the stream as taken",
     {"--reset-goaway-every", "9", "--fault-limit", "3"},
     "reset",
     3},
    {"a connection closed", {"--close-every", "10", "--fault-limit", "2"}, "closed", 2},
};

// How many attempt lines the log holds for each row, and whether each row's final result
// counts as many attempts as it has attempt lines.
struct Attempts {
    std::map<long long, int> lines;
    int total = 0;
    int retried_rows = 0;  // rows with more than one attempt line
    std::string mismatch;  // "" when every result's `attempts` matches its attempt lines
};

Attempts attempts_of(const CampaignFixture& c) {
    Attempts a;
    std::map<long long, int> counted;
    for (const auto& r : c.records()) {
        if (r.value("event", "") == "attempt") {
            ++a.lines[r["row"].get<long long>()];
            ++a.total;
        } else if (r.value("event", "") == "result") {
            counted[r["row"].get<long long>()] = r.value("attempts", 0);
        }
    }
    for (const auto& [row, n] : a.lines) {
        a.retried_rows += n > 1 ? 1 : 0;
        if (counted.count(row) != 0 && counted[row] != n) {
            a.mismatch += "row " + std::to_string(row) + ": " + std::to_string(n) + " attempt lines, result says " +
                          std::to_string(counted[row]) + "\n";
        }
    }
    return a;
}

// Each number's status as the log leaves it (see CampaignFixture::final_status).
std::map<std::string, std::string> status_by_wa_id(const CampaignFixture& c) {
    std::map<std::string, std::string> out;
    for (const auto& r : c.records()) {
        const std::string event = r.value("event", "");
        if (event == "result") {
            out[r.value("wa_id", "")] = r.value("status", "");
        } else if (event == "attempt") {
            out[r.value("wa_id", "")] = "unknown";
        }
    }
    return out;
}

// The result lines of the log whose status is unknown, one a line.
std::string unknown_lines(const CampaignFixture& c) {
    std::string out;
    std::istringstream log(read_file(c.log));
    for (std::string line; std::getline(log, line);) {
        if (line.find("\"status\":\"unknown\"") != std::string::npos) {
            out += line + "\n";
        }
    }
    return out;
}

// "" when no number was processed more than once.
std::string at_most_once(const std::map<std::string, int>& processed) {
    std::string out;
    for (const auto& [wa_id, n] : processed) {
        if (n > 1) {
            out += wa_id + " processed " + std::to_string(n) + " times\n";
        }
    }
    return out;
}

}  // namespace

TEST_SUITE("e2e: http2 faults") {
    TEST_CASE("streams left out by a GOAWAY are sent again, each as a request with its own attempt line") {
        FaultServer server(tls_sandbox(), {"--goaway-every", "9"});
        const int count = 80;
        const H2Campaign c(server.url(), count);
        auto r = c.run();
        CAPTURE(r.out);
        CAPTURE(r.err);
        const std::string unknown = unknown_lines(c);  // their reasons, when a check below fails
        CAPTURE(unknown);
        auto counts = status_counts(c);
        // About one run in ten, a stream ends before the GOAWAY that left it out is read (libcurl
        // 7.88 tells the frame to whichever transfer reads it, and a write may meet the closed
        // connection first: "not closed cleanly", "Broken pipe"): that row stays unknown, never
        // sent again on its own. A few at most. Such a row may or may not have been processed —
        // which is why it is unknown, not failed (under load about one run in ten has one the
        // server did process) — but every sent row was processed, and none twice. (Under load
        // three were seen; without the GOAWAY rule every stream left out stays unknown: 31 of 80.)
        const int unknowns = counts["unknown"];
        CHECK(unknowns <= count / 10);
        CHECK(r.exit_code == (unknowns == 0 ? 0 : 1));
        CHECK(counts["sent"] + unknowns == count);
        const auto processed = server.processed();
        CHECK(at_most_once(processed) == "");
        for (const auto& [row, status] : c.final_status()) {
            if (status == "sent") {
                CAPTURE(row);
                CHECK(processed.contains(numbers_wa_id(static_cast<int>(row) - 1)));
            }
        }
        CHECK(processed.size() >= static_cast<std::size_t>(count - unknowns));
        CHECK(processed.size() <= static_cast<std::size_t>(count));
        const Attempts a = attempts_of(c);
        CHECK(a.mismatch == "");
        CHECK(a.retried_rows > 0);  // the GOAWAYs left streams out, and they went again
        CHECK(a.total > count);
    }

    TEST_CASE("a stream refused on a connection's first request is sent again as a request of its own") {
        // One request at a time, and the first three streams refused: each refusal closes its
        // connection (libcurl), so the next request is mostly the first of a fresh one, where
        // libcurl says the stream was refused. Now and then libcurl has it on a connection it
        // counts as reused, where it does not say so: that row is held unknown, the safe side.
        FaultServer server(tls_sandbox(), {"--refuse-every", "1", "--fault-limit", "3"});
        const int count = 6;
        const H2Campaign c(server.url(), count, "rate: {per_second: 5000, burst: 1, concurrency: 1}\n");
        auto r = c.run();
        CAPTURE(r.out);
        CAPTURE(r.err);
        auto statuses = status_counts(c);
        CHECK(statuses["sent"] + statuses["unknown"] == count);
        CHECK(statuses["unknown"] <= 3);
        CHECK(at_most_once(server.processed()) == "");
        CHECK(static_cast<int>(server.processed().size()) == statuses["sent"]);
        const Attempts a = attempts_of(c);
        CHECK(a.mismatch == "");
        CHECK(a.retried_rows >= 1);  // a refused stream went again, with an attempt line of its own
    }

    TEST_CASE("streams refused on a multiplexed connection: none processed twice, none lost") {
        // libcurl 7.88 tells such a refusal apart from a connection torn down after a request
        // was processed only on a connection's first request (docs/decisions/service.md): the others
        // are held unknown, the safe side. Either way nothing goes twice and every row ends.
        FaultServer server(tls_sandbox(), {"--refuse-every", "7"});
        const int count = 60;
        const H2Campaign c(server.url(), count);
        auto r = c.run();
        CAPTURE(r.err);
        auto statuses = status_counts(c);
        CHECK(statuses["sent"] + statuses["unknown"] == count);
        CHECK(at_most_once(server.processed()) == "");
        CHECK(static_cast<int>(server.processed().size()) == statuses["sent"]);
        CHECK(attempts_of(c).mismatch == "");
    }

    TEST_CASE(
        "a stream reset after the request was processed ends unknown, and neither resume nor a rerun resends it") {
        FaultServer server(tls_sandbox(), {"--reset-every", "10"});
        const int count = 40;
        const H2Campaign c(server.url(), count);
        auto r = c.run();
        CAPTURE(r.err);
        const auto reset = server.processed("reset");
        REQUIRE(reset.size() == 4);
        auto statuses = status_counts(c);
        CHECK(statuses["unknown"] == 4);
        const auto by_number = status_by_wa_id(c);
        for (const auto& [wa_id, n] : reset) {
            CHECK(by_number.at(wa_id) == "unknown");
        }
        CHECK(statuses["sent"] == count - 4);
        CHECK(once_each(server.processed(), count) == "");
        auto resumed = c.wacamp({"resume", c.log.string(), "--yes", "--no-progress"});
        CAPTURE(resumed.err);
        auto rerun = c.run();
        CAPTURE(rerun.err);
        CHECK(once_each(server.processed(), count) == "");
        CHECK(status_counts(c)["unknown"] == 4);
    }

    TEST_CASE("a stream broken after the request was processed: unknown, never sent twice, not even by resume") {
        for (const auto& broken : k_broken_after_processing) {
            SUBCASE(broken.name.c_str()) {
                FaultServer server(tls_sandbox(), broken.faults);
                const int count = 40;
                const H2Campaign c(server.url(), count);
                auto r = c.run();
                CAPTURE(r.err);
                const auto faulted = server.processed(broken.outcome);
                REQUIRE(faulted.size() == broken.times);
                const auto by_number = status_by_wa_id(c);
                for (const auto& [wa_id, n] : faulted) {
                    CAPTURE(wa_id);
                    CHECK(by_number.at(wa_id) == "unknown");
                }
                auto statuses = status_counts(c);
                CHECK(statuses["unknown"] >= static_cast<int>(broken.times));
                CHECK(statuses["sent"] + statuses["unknown"] == count);
                CHECK(at_most_once(server.processed()) == "");
                auto resumed = c.wacamp({"resume", c.log.string(), "--yes", "--no-progress"});
                CAPTURE(resumed.err);
                CHECK(at_most_once(server.processed()) == "");
                for (const auto& [wa_id, n] : faulted) {
                    CHECK(server.processed()[wa_id] == 1);
                }
            }
        }
    }

    TEST_CASE("\"2\" against a server with HTTP/1.1 only: one warning naming the host, and every message once") {
        // The TLS sandbox itself: no other case sends to it.
        const Sandbox& plain_tls = tls_sandbox();
        const int count = 30;
        const H2Campaign c(plain_tls.url(), count);
        auto r = c.run();
        CAPTURE(r.err);
        CHECK(r.exit_code == 0);
        CHECK(status_counts(c)["sent"] == count);
        CHECK(once_each(delivered(plain_tls), count) == "");
        const std::string warning = "service.http is \"2\" but 127.0.0.1 answered over HTTP/1.1";
        size_t seen = 0;
        for (size_t at = r.err.find(warning); at != std::string::npos; at = r.err.find(warning, at + 1)) {
            ++seen;
        }
        CHECK(seen == 1);
    }
}
