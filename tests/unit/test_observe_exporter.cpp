#include <doctest/doctest.h>

#include <chrono>
#include <filesystem>
#include <fstream>

#include "fakes.hpp"
#include "observe/exporter.hpp"
#include "observe/text_file.hpp"

using namespace std::chrono_literals;

namespace {

// An exporter to a file in a temporary folder and a Pushgateway answering with `status`, in
// simulated time.
struct Rig {
    explicit Rig(long status = 200)
        : transport(
              clock, [status](const service::HttpRequest&) { return fakes::http_answer(status, "no"); }, 20ms) {}

    observe::MetricsExporter exporter(const std::string& campaign = "spring") {
        return observe::MetricsExporter(campaign, {.file = file(), .push = *observe::parse_push_url("http://gw:9091")},
                                        {.clock = clock,
                                         .push_transport = &transport,
                                         .warn = [this](const std::string& w) { warnings.push_back(w); }});
    }
    std::string file() const { return dir.file("spring.prom"); }
    std::string file_text() const { return observe::read_small_file(file(), 1 << 20).value_or(""); }
    // The bodies pushed so far.
    std::vector<std::string> pushed() const {
        std::vector<std::string> bodies;
        for (const auto& s : transport.started) {
            bodies.push_back(s.request.body);
        }
        return bodies;
    }

    fakes::TempDir dir;
    fakes::FakeClock clock;
    fakes::FakeTransport transport;
    std::vector<std::string> warnings;
};

queue::Progress in_flight(std::size_t n) {
    queue::Progress p;
    p.in_flight = n;
    return p;
}

bool has(const std::string& text, const std::string& part) {
    return text.find(part) != std::string::npos;
}

}  // namespace

TEST_SUITE("observe::MetricsExporter") {
    TEST_CASE("exports at the first progress, then every 10 s of the clock, not at each progress") {
        Rig rig;
        auto exporter = rig.exporter();
        exporter.progress(in_flight(1), {});
        CHECK(has(rig.file_text(), R"(wacamp_in_flight{campaign="spring"} 1)"));
        CHECK(rig.pushed().size() == 1);
        for (int second = 1; second <= 25; ++second) {
            rig.clock.advance(1s);
            exporter.progress(in_flight(static_cast<std::size_t>(second) + 1), {});
            if (second == 9) {
                // Not due yet: the file still says what it said at 0 s.
                CHECK(has(rig.file_text(), R"(wacamp_in_flight{campaign="spring"} 1)"));
            }
        }
        CHECK(rig.pushed().size() == 3);  // at 0, 10 and 20 s
        CHECK(has(rig.file_text(), R"(wacamp_in_flight{campaign="spring"} 21)"));
        CHECK(has(rig.file_text(), R"(wacamp_run_duration_seconds{campaign="spring"} 20)"));
        CHECK(rig.warnings.empty());
    }

    TEST_CASE("a success sets the last success in the file and the push, with the run's duration") {
        Rig rig;
        auto exporter = rig.exporter();
        exporter.recorded(results::Status::sent, results::Cause::none);
        rig.clock.advance(3s);
        exporter.finish(observe::RunSucceeded::yes, observe::FinalPush::wait);
        const double now = std::chrono::duration<double>(rig.clock.wall_now().time_since_epoch()).count();
        CHECK(observe::last_success_in(rig.file_text(), "spring") == doctest::Approx(now));
        REQUIRE(rig.pushed().size() == 1);
        CHECK(observe::last_success_in(rig.pushed().back(), "spring") == doctest::Approx(now));
        CHECK(has(rig.file_text(), R"(wacamp_messages_total{campaign="spring",cause="",status="sent"} 1)"));
        CHECK(has(rig.file_text(), R"(wacamp_run_duration_seconds{campaign="spring"} 3)"));
    }

    TEST_CASE("a failed run keeps the file's earlier last success, and pushes none") {
        Rig rig;
        {
            auto earlier = rig.exporter();
            earlier.finish(observe::RunSucceeded::yes, observe::FinalPush::wait);
        }
        const auto before = observe::last_success_in(rig.file_text(), "spring");
        REQUIRE(before);
        rig.clock.advance(1h);
        auto exporter = rig.exporter();
        exporter.progress(in_flight(2), {});
        exporter.finish(observe::RunSucceeded::no, observe::FinalPush::wait);
        CHECK(observe::last_success_in(rig.file_text(), "spring") == before);
        REQUIRE(rig.pushed().size() == 3);
        CHECK_FALSE(has(rig.pushed()[1], "wacamp_last_success_timestamp_seconds"));
        CHECK_FALSE(has(rig.pushed()[2], "wacamp_last_success_timestamp_seconds"));
    }

    TEST_CASE("a refused push warns once while it keeps failing, naming the URL; the run goes on") {
        Rig rig(500);
        auto exporter = rig.exporter();
        for (int second = 0; second <= 30; ++second) {
            exporter.progress(in_flight(1), {});
            rig.clock.advance(1s);
        }
        exporter.finish(observe::RunSucceeded::yes, observe::FinalPush::wait);
        CHECK(rig.pushed().size() == 5);  // at 0, 10, 20, 30 s and the end
        REQUIRE(rig.warnings.size() == 1);
        CHECK(rig.warnings[0] == "could not push metrics to http://gw:9091: HTTP 500: no");
        CHECK(has(rig.file_text(), "wacamp_last_success_timestamp_seconds"));  // the file is written all the same
    }

    TEST_CASE("a file that cannot be written is a warning naming it") {
        Rig rig;
        auto exporter = rig.exporter();
        std::filesystem::create_directory(rig.file());  // a folder took its place
        exporter.progress(in_flight(1), {});
        exporter.finish(observe::RunSucceeded::yes, observe::FinalPush::wait);
        REQUIRE(rig.warnings.size() == 1);
        CHECK(has(rig.warnings[0], rig.file()));
        CHECK(rig.pushed().size() == 2);
    }

    TEST_CASE("after a second stop request the last push is not waited for; the file is still written") {
        Rig rig;
        auto exporter = rig.exporter();
        exporter.finish(observe::RunSucceeded::no, observe::FinalPush::skip);
        CHECK(rig.pushed().empty());
        CHECK(has(rig.file_text(), "wacamp_messages_total"));
    }
}
