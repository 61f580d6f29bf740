// A rate store that misbehaves (account.rate_store, docs/pace.md): a reply trickled a byte at a
// time, a reply of 2 GB. The run pauses and says so, its memory stays small, a SIGTERM ends it
// at once, and nothing is sent unpaced. A fake Redis (tests/support/resp_fault_server.hpp), no
// redis-server needed.
#include <doctest/doctest.h>

#include <csignal>
#include <fstream>
#include <string>
#include <thread>

#include "../support/resp_fault_server.hpp"
#include "fixtures.hpp"

using namespace e2e;
using namespace std::chrono_literals;
using test_support::RespFault;
using test_support::RespFaultServer;

namespace {

// The most memory the process `pid` has held so far (VmHWM, KiB); 0 once it is gone.
long long peak_kib(pid_t pid) {
    std::ifstream status("/proc/" + std::to_string(pid) + "/status");
    std::string line;
    while (std::getline(status, line)) {
        if (line.starts_with("VmHWM:")) {
            return std::stoll(line.substr(6));
        }
    }
    return 0;
}

struct Faulted {
    bool second_try = false;  // the first slot request ended and the run asked again
    long long peak_kib = 0;
    std::optional<int> code;  // after SIGTERM, within the bound
    std::string said;
    int sends = 0;
};

// Runs a campaign paced by `server`; once the run has given up on a first reply and is waiting
// for its second, SIGTERM.
Faulted run_against(const RespFaultServer& server) {
    Sandbox sandbox;
    CampaignFixture f(
        sandbox, numbers_csv(5),
        "rate:\n  per_second: 5\n  burst: 1\naccount:\n  name: faults\n  rate_store: " + server.url() + "\n");
    Background run({"run", f.campaign.string()}, f.env);
    Faulted out;
    // A slot request ends within its second; the next comes a second after the first began.
    out.second_try = wait_until([&] { return server.connections() >= 2; }, 20s);
    std::this_thread::sleep_for(200ms);  // into the second wait
    out.peak_kib = peak_kib(run.pid());
    run.signal(SIGTERM);
    // Within 50 ms of the signal; 10 s allows for a loaded machine.
    out.code = run.wait_for(10s);
    out.said = run.out() + run.err();
    out.sends = send_requests(sandbox);
    return out;
}

}  // namespace

TEST_SUITE("e2e: pace faults") {
    TEST_CASE("a rate store that trickles its reply: paused after a second, SIGTERM ends the run, nothing sent") {
        RespFaultServer server(RespFault::trickle);
        const Faulted r = run_against(server);
        CAPTURE(r.said);
        CHECK(r.second_try);
        REQUIRE(r.code.has_value());
        CHECK(*r.code == 3);  // interrupted: resumable
        CHECK(contains(r.said, "rate store unreachable: 127.0.0.1:" + std::to_string(server.port()) +
                                   ": no reply within 1000 ms"));
        CHECK(r.sends == 0);
    }
    TEST_CASE("a rate store that answers 2 GB: a few KiB read, memory stays small, SIGTERM ends the run") {
        RespFaultServer server(RespFault::huge);
        const Faulted r = run_against(server);
        CAPTURE(r.said);
        CHECK(r.second_try);
        CHECK(r.peak_kib > 0);
        CHECK(r.peak_kib < 200 * 1024);
        REQUIRE(r.code.has_value());
        CHECK(*r.code == 3);
        CHECK(contains(r.said, "rate store unreachable: 127.0.0.1:" + std::to_string(server.port()) +
                                   ": a reply over 4096 bytes"));
        CHECK(r.sends == 0);
    }
}
