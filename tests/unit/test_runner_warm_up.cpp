#include "runner/warm_up.hpp"

#include <doctest/doctest.h>

#include <chrono>

#include "fakes.hpp"

using namespace std::chrono_literals;

namespace {

campaign::Campaign campaign_with(std::optional<int> concurrency) {
    campaign::Campaign c;
    c.service.base_url = "https://api.example.com";
    c.service.api_key = "warm-key-0123";
    c.rate.per_second = 1000;
    c.rate.concurrency = concurrency;
    return c;
}

service::HttpResponse list_answer(bool multiplexed) {
    service::HttpResponse r = fakes::http_answer(200, R"({"success": true, "data": []})");
    r.multiplexed = multiplexed;
    return r;
}

}  // namespace

TEST_SUITE("runner::warm_up") {
    TEST_CASE("connections_needed: the fixed concurrency, or the in-flight window's limit, never above the jobs") {
        campaign::Rate rate;
        rate.per_second = 1000;
        rate.burst = 1;
        rate.concurrency = 16;
        CHECK(runner::connections_needed(rate, 100, 150ms) == 16);
        CHECK(runner::connections_needed(rate, 5, 150ms) == 5);
        CHECK(runner::connections_needed(rate, 0, 150ms) == 0);
        rate.concurrency.reset();
        CHECK(runner::connections_needed(rate, 100'000, 150ms) == 189);  // ceil(1000 x 0.15 x 1.25) + 1
        CHECK(runner::connections_needed(rate, 100'000, 0ms) == 1);
        rate.per_second = campaign::Rate::k_unlimited;
        CHECK(runner::connections_needed(rate, 100'000, 150ms) == 33);  // the slow start after one answer
    }
    TEST_CASE("over HTTP/1.1 with a fixed concurrency: one request, then as many at once as connections needed") {
        fakes::FakeClock clock;
        fakes::FakeTransport transport(
            clock, [](const service::HttpRequest&) { return list_answer(false); }, 100ms);
        std::atomic<int> stops{0};
        const auto w = runner::warm_up(campaign_with(4), 1000, transport, stops);
        CHECK(w.requests == 5);
        CHECK(w.connections == 4);
        CHECK_FALSE(w.failed);
        CHECK(transport.max_in_flight == 4);
        for (const auto& started : transport.started) {
            CHECK(started.request.method == service::Method::get);
            CHECK(started.request.url.find("/whatsapp-automation/wa/templates") != std::string::npos);
        }
        CHECK(transport.in_flight() == 0);
    }
    TEST_CASE("with auto, a second request on the open connection gives the latency") {
        fakes::FakeClock clock;
        fakes::FakeTransport transport(
            clock, [](const service::HttpRequest&) { return list_answer(false); }, 20ms);
        std::atomic<int> stops{0};
        const auto w = runner::warm_up(campaign_with(std::nullopt), 1000, transport, stops);
        CHECK(w.connections == 26);  // ceil(1000 x 0.02 x 1.25) + 1
        CHECK(w.requests == 28);
    }
    TEST_CASE("over HTTP/2 one request is enough") {
        fakes::FakeClock clock;
        fakes::FakeTransport transport(
            clock, [](const service::HttpRequest&) { return list_answer(true); }, 100ms);
        std::atomic<int> stops{0};
        const auto w = runner::warm_up(campaign_with(64), 1000, transport, stops);
        CHECK(w.requests == 1);
        CHECK(w.multiplexed);
    }
    TEST_CASE("fails soft: a refused or unanswered first request ends it; no jobs or a stop make none") {
        fakes::FakeClock clock;
        std::atomic<int> stops{0};
        fakes::FakeTransport refused(
            clock, [](const service::HttpRequest&) { return fakes::http_answer(401, "{}"); }, 10ms);
        auto w = runner::warm_up(campaign_with(4), 1000, refused, stops);
        CHECK(w.failed);
        CHECK(refused.started.size() == 1);
        CHECK(w.stop == queue::StopReason::auth);  // a refused key: the run stops before its first send
        CHECK(w.message.find("refused the credentials") != std::string::npos);
        fakes::FakeTransport failing(
            clock, [](const service::HttpRequest&) { return fakes::http_answer(500, "{}"); }, 10ms);
        w = runner::warm_up(campaign_with(4), 1000, failing, stops);
        CHECK(w.failed);
        CHECK_FALSE(w.stop.has_value());  // a failing list stops nothing
        fakes::FakeTransport forbidden(
            clock, [](const service::HttpRequest&) { return fakes::http_answer(403, "{}"); }, 10ms);
        CHECK(runner::warm_up(campaign_with(4), 1000, forbidden, stops).stop == queue::StopReason::auth);
        fakes::FakeTransport lost(
            clock,
            [](const service::HttpRequest&) {
                return service::TransportError{service::TransportFailure::connect, false, "refused"};
            },
            10ms);
        w = runner::warm_up(campaign_with(4), 1000, lost, stops);
        CHECK(w.failed);
        CHECK(lost.started.size() == 1);
        CHECK(runner::warm_up(campaign_with(4), 0, lost, stops).requests == 0);
        stops = 1;
        CHECK(runner::warm_up(campaign_with(4), 1000, lost, stops).requests == 0);
        CHECK(lost.started.size() == 1);
    }
}
