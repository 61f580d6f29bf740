#include <doctest/doctest.h>

#include <cmath>
#include <limits>

#include "queue_dispatch_rig.hpp"

using namespace std::chrono_literals;
using namespace dispatch_test;

namespace {

constexpr double k_unlimited = std::numeric_limits<double>::infinity();

// The most requests started in any one-second window.
std::size_t busiest_second(const std::vector<fakes::FakeTransport::Started>& starts) {
    std::size_t most = 0;
    std::size_t first = 0;
    for (std::size_t last = 0; last < starts.size(); ++last) {
        while (starts[last].at - starts[first].at >= 1s) {
            ++first;
        }
        most = std::max(most, last - first + 1);
    }
    return most;
}

// Requests started per second from the first start to the last.
double achieved_rate(const std::vector<fakes::FakeTransport::Started>& starts) {
    const std::chrono::duration<double> span = starts.back().at - starts.front().at;
    return static_cast<double>(starts.size() - 1) / span.count();
}

}  // namespace

TEST_SUITE("queue::dispatch auto") {
    TEST_CASE("1000/s at 100 ms: about rate x latency in flight, at least 990/s, no second over rate + burst") {
        Rig rig(ok, 1000, 10, 100ms);  // concurrency: auto (the default)
        ListSource source(30'000);
        const auto t0 = rig.clock.steady_now();
        auto result = rig.run(source);
        CHECK(result.reason == queue::StopReason::completed);
        CHECK(rig.recorder.count(queue::JobStatus::sent) == 30'000);
        const auto& s = rig.transport.started;
        REQUIRE(s.size() == 30'000);
        CHECK(achieved_rate(s) >= 990);
        CHECK(busiest_second(s) <= 1010);
        // Little's law: 100 must be in flight; the window is 1000 x 0.1 x 1.25 + 10.
        CHECK(rig.transport.max_in_flight >= 100);
        CHECK(rig.transport.max_in_flight <= 135);
        CHECK(result.progress.in_flight_limit == 135);
        // No slow start at a paced rate: the first 100 ms (before any answer) went out at the
        // full rate, 1 + burst at once and then one a millisecond (gathered a few to a wake-up).
        const auto before_answers = std::count_if(s.begin(), s.end(), [&](const auto& x) { return x.at < t0 + 100ms; });
        CHECK(before_answers >= 107);
        CHECK(before_answers <= 111);
        REQUIRE(!rig.recorder.limits.empty());
        CHECK(rig.recorder.limits.front() == 250);
    }

    TEST_CASE("at a paced rate an answer and the next start share one wake-up") {
        // 500/s, burst 1 (the default): a start every 2 ms; answers take 1 ms. Woken for each
        // answer and then again for the next start, the queue would poll twice per request.
        Rig rig(ok, 500, 1, 1ms);
        ListSource source(1'000);
        auto result = rig.run(source);
        CHECK(result.reason == queue::StopReason::completed);
        CHECK(rig.recorder.count(queue::JobStatus::sent) == 1'000);
        CHECK(rig.transport.polls <= 1'000 + 20);
        CHECK(rig.transport.whole_polls >= 990);
        CHECK(achieved_rate(rig.transport.started) >= 499);
    }

    TEST_CASE("with a burst, starts are gathered into fewer wake-ups without losing rate") {
        // 1000/s, burst 10, answers in 1 ms: half the burst plus one could go together, but
        // only three fit in the 4 ms an answer may wait unread; so a wake-up every 3 ms.
        Rig rig(ok, 1000, 10, 1ms);
        ListSource source(3'000);
        auto result = rig.run(source);
        CHECK(result.reason == queue::StopReason::completed);
        const auto& s = rig.transport.started;
        REQUIRE(s.size() == 3'000);
        CHECK(rig.transport.polls <= 1'000 + 20);
        CHECK(achieved_rate(s) >= 995);
        CHECK(busiest_second(s) <= 1010);
    }

    TEST_CASE("the window shrinks while the service's throttling lowers the rate") {
        int calls = 0;
        Rig rig(
            [&](const service::HttpRequest&) -> fakes::FakeTransport::Answer {
                ++calls;
                return calls > 3000 && calls <= 3005 ? fakes::http_answer(429, "", "1") : fakes::http_answer(200, k_ok);
            },
            1000, 10, 100ms);
        ListSource source(6'000);
        auto result = rig.run(source);
        CHECK(result.reason == queue::StopReason::completed);
        CHECK(rig.recorder.count(queue::JobStatus::sent) == 6'000);
        const auto& limits = rig.recorder.limits;
        REQUIRE(limits.size() > 4);
        CHECK(limits.front() == 250);  // before the first answer: a quarter second at 1000/s
        CHECK(*std::max_element(limits.begin() + 1, limits.end()) == 135);
        // Halved to 500/s: 500 x 0.1 x 1.25 + 10 = 73, then climbing back.
        const auto low = *std::min_element(limits.begin() + 2, limits.end());
        CHECK(low >= 73);
        CHECK(low < 100);
    }

    TEST_CASE("a fixed concurrency still holds with auto's cap set") {
        Rig rig(ok, 1000, 0, 100ms);
        rig.settings.concurrency = 8;
        rig.settings.max_concurrency = 1024;
        ListSource source(200);
        auto result = rig.run(source);
        CHECK(result.reason == queue::StopReason::completed);
        CHECK(rig.transport.max_in_flight == 8);
        CHECK(result.progress.in_flight_limit == 8);
    }

    TEST_CASE("per_second unlimited with a fixed concurrency runs as fast as the requests in flight allow") {
        Rig rig(ok, k_unlimited, 1, 10ms);
        rig.settings.concurrency = 32;
        ListSource source(3'200);
        auto result = rig.run(source);
        CHECK(result.reason == queue::StopReason::completed);
        CHECK(rig.transport.max_in_flight == 32);
        // 100 rounds of 32 requests, 10 ms each.
        const auto& s = rig.transport.started;
        CHECK(s.back().at - s.front().at < 1s);
        CHECK(std::isinf(result.progress.rate_in_force));
    }

    TEST_CASE("per_second unlimited with auto opens the window to max_concurrency") {
        Rig rig(ok, k_unlimited, 1, 10ms);
        rig.settings.max_concurrency = 64;
        ListSource source(2'000);
        auto result = rig.run(source);
        CHECK(result.reason == queue::StopReason::completed);
        CHECK(rig.transport.max_in_flight == 64);
        CHECK(result.progress.in_flight_limit == 64);
    }

    TEST_CASE("per_second unlimited: a throttle pauses the queue, which then paces below the rate it had") {
        int calls = 0;
        Rig rig(
            [&](const service::HttpRequest&) -> fakes::FakeTransport::Answer {
                ++calls;
                return calls > 320 && calls <= 330 ? fakes::http_answer(429, "", "1") : fakes::http_answer(200, k_ok);
            },
            k_unlimited, 0, 10ms);
        rig.settings.concurrency = 32;
        ListSource source(1'000);
        auto result = rig.run(source);
        CHECK(result.reason == queue::StopReason::completed);
        CHECK(rig.recorder.count(queue::JobStatus::sent) == 1'000);
        const auto& s = rig.transport.started;
        // 32 every 10 ms (3200/s) until the 429s at 100 ms; a 1 s pause; then at most half that.
        REQUIRE(s.size() == 1'010);
        CHECK(s[352].at - s[351].at >= 990ms);
        CHECK(result.progress.rate_in_force < 1'700);
        CHECK(result.progress.rate_in_force > 1'000);
        const std::vector<fakes::FakeTransport::Started> after(s.begin() + 352, s.end());
        CHECK(achieved_rate(after) < 1'700);
    }
}
