#include <doctest/doctest.h>

#include <chrono>

#include "fakes.hpp"
#include "observe/pushgateway.hpp"

using namespace std::chrono_literals;

namespace {

observe::PushTarget parsed(const std::string& url) {
    auto target = observe::parse_push_url(url);
    REQUIRE_MESSAGE(target, url);
    return *target;
}

// The message of parse_push_url's failure on `url`.
std::string refusal(const std::string& url) {
    auto target = observe::parse_push_url(url);
    REQUIRE_FALSE_MESSAGE(target, url);
    return target.error().message;
}

fakes::FakeTransport::Answer gateway_ok(const service::HttpRequest& /*request*/) {
    return fakes::http_answer(200, "");
}

}  // namespace

TEST_SUITE("observe::pushgateway") {
    TEST_CASE("parse_push_url: an address, with a port and a path prefix, trailing slashes dropped") {
        CHECK(parsed("http://127.0.0.1:9091").url == "http://127.0.0.1:9091");
        CHECK(parsed("HTTPS://push.example.com/").url == "https://push.example.com");
        CHECK(parsed("http://[::1]:9091/gateway//").url == "http://[::1]:9091/gateway");
        CHECK(parsed("http://127.0.0.1:9091").user.empty());
    }

    TEST_CASE("parse_push_url: credentials are taken apart, percent-decoded, and left out of the URL") {
        const auto target = parsed("https://bob:s3cr3t%20p%40ss@push.example.com:9091");
        CHECK(target.url == "https://push.example.com:9091");
        CHECK(target.user == "bob");
        CHECK(target.password == "s3cr3t p@ss");
    }

    TEST_CASE("parse_push_url: a password with an unencoded '/' is still the password, never shown") {
        const auto target = parsed("http://promuser:pUsh+Pa55/w0rd=XYZ@127.0.0.1:9091");
        CHECK(target.url == "http://127.0.0.1:9091");
        CHECK(target.user == "promuser");
        CHECK(target.password == "pUsh+Pa55/w0rd=XYZ");
        const auto message = refusal("http://promuser:pUsh+Pa55/w0rd=XYZ@127.0.0.1:99999");
        CHECK(message.find("port from 1 to 65535") != std::string::npos);
        CHECK_MESSAGE(message.find("w0rd") == std::string::npos, message);
        CHECK_MESSAGE(message.find("pUsh") == std::string::npos, message);
    }

    TEST_CASE("parse_push_url: what it refuses, never repeating the password") {
        CHECK(refusal("ftp://bob:hunter22@push.example.com").find("http:// or https://") != std::string::npos);
        CHECK(refusal("bob:hunter22@push.example.com:9091").find("http:// or https://") != std::string::npos);
        CHECK(refusal("http://bob:hunter22@").find("must name a host") != std::string::npos);
        CHECK(refusal("http://bob:hunter22@host:99999").find("port from 1 to 65535") != std::string::npos);
        CHECK(refusal("http://bob:hunter22@host:9091?x=1").find("query") != std::string::npos);
        CHECK(refusal("http://bob:hunter22@host:9091/metrics/job/x").find("address alone") != std::string::npos);
        CHECK(refusal("http://bob:hunter%2@host:9091").find("percent-encoded") != std::string::npos);
        for (const auto* url :
             {"ftp://bob:hunter22@push.example.com", "bob:hunter22@push.example.com:9091", "http://bob:hunter22@",
              "http://bob:hunter22@host:99999", "http://bob:hunter22@host:9091?x=1", "http://bob:hunter%2@host:9091"}) {
            const auto message = refusal(url);
            CHECK_MESSAGE(message.find("hunter") == std::string::npos, message);
        }
    }

    TEST_CASE("parse_push_url: a password under 8 characters is refused, never repeated") {
        const auto message = refusal("http://bob:Zq7%23pw1@gw:9091");
        CHECK_MESSAGE(message.find("--metrics-push http://gw:9091: its password is shorter than 8 characters") !=
                          std::string::npos,
                      message);
        CHECK_MESSAGE(message.find("Zq7") == std::string::npos, message);
        CHECK(parsed("http://bob:Zq7%23pw12@gw:9091").password == "Zq7#pw12");
        CHECK(parsed("http://bob@gw:9091").password.empty());  // no password: nothing to mask
    }

    TEST_CASE("push_add_request: a POST of the text format to job wacamp and the campaign, with basic auth") {
        auto request = observe::push_add_request(parsed("http://bob:s3cr3t%20p%40ss@gw:9091/p"), "spring", "a 1\n");
        CHECK(request.method == service::Method::post);
        CHECK(request.url == "http://gw:9091/p/metrics/job/wacamp/campaign/spring");
        CHECK(request.body == "a 1\n");
        CHECK(service::find_header(request.headers, "content-type") == "text/plain; version=0.0.4; charset=utf-8");
        CHECK(service::find_header(request.headers, "authorization") == "Basic Ym9iOnMzY3IzdCBwQHNz");
        auto anonymous = observe::push_add_request(parsed("http://gw:9091"), "spring", "a 1\n");
        CHECK(service::find_header(anonymous.headers, "authorization").empty());
    }

    TEST_CASE("push_failure: nothing on 2xx; otherwise the URL without credentials and why") {
        const auto target = parsed("http://bob:s3cr3t-pw@gw:9091");
        CHECK_FALSE(observe::push_failure(target, {1, fakes::http_answer(200, ""), 0ms}));
        CHECK_FALSE(observe::push_failure(target, {1, fakes::http_answer(202, ""), 0ms}));
        const auto refused = observe::push_failure(target, {1, fakes::http_answer(400, "inconsistent\n"), 0ms});
        REQUIRE(refused);
        CHECK(*refused == "could not push metrics to http://gw:9091: HTTP 400: inconsistent");
        service::TransportError down;
        down.failure = service::TransportFailure::connect;
        down.message = "connection refused";
        CHECK(observe::push_failure(target, {1, down, 0ms}) ==
              "could not push metrics to http://gw:9091: connection refused");
    }

    TEST_CASE("Pusher: one push at a time, never waiting but for the last") {
        fakes::FakeClock clock;
        fakes::FakeTransport transport(clock, gateway_ok, 50ms);
        observe::Pusher pusher(parsed("http://gw:9091"), "spring", transport);
        CHECK(pusher.start("a 1\n"));
        CHECK_FALSE(pusher.start("a 2\n"));  // the first is on its way
        CHECK_FALSE(pusher.poll());          // not ended yet
        CHECK(transport.started.size() == 1);
        clock.advance(100ms);
        auto ended = pusher.poll();
        REQUIRE(ended);
        CHECK(*ended);  // taken
        CHECK_FALSE(pusher.poll());
        CHECK(pusher.start("a 3\n"));
        CHECK(pusher.push_and_wait("a 4\n"));
        REQUIRE(transport.started.size() == 3);
        CHECK(transport.started[2].request.body == "a 4\n");
        CHECK(transport.in_flight() == 0);
    }

    TEST_CASE("Pusher: after a push on its way timed out, the last push is not made: one timeout's wait in all") {
        fakes::FakeClock clock;
        fakes::FakeTransport transport(
            clock,
            [](const service::HttpRequest& /*request*/) -> fakes::FakeTransport::Answer {
                return service::TransportError{.failure = service::TransportFailure::timeout,
                                               .request_sent = true,
                                               .message = "no answer in 10 s"};
            },
            10s);
        observe::Pusher pusher(parsed("http://gw:9091"), "spring", transport);
        const auto began = clock.steady_now();
        CHECK(pusher.start("a 1\n"));
        auto last = pusher.push_and_wait("a 2\n");
        REQUIRE_FALSE(last);
        CHECK(last.error().message == "could not push metrics to http://gw:9091: no answer in 10 s");
        CHECK(transport.started.size() == 1);  // the last push was not started
        CHECK(clock.steady_now() - began <= 10s);
    }
    TEST_CASE("Pusher: a refused push comes back as its failure") {
        fakes::FakeClock clock;
        fakes::FakeTransport transport(
            clock, [](const service::HttpRequest&) { return fakes::http_answer(500, "down"); }, 50ms);
        observe::Pusher pusher(parsed("http://gw:9091"), "spring", transport);
        REQUIRE(pusher.start("a 1\n"));
        clock.advance(100ms);
        auto ended = pusher.poll();
        REQUIRE(ended);
        REQUIRE_FALSE(*ended);
        CHECK(ended->error().message == "could not push metrics to http://gw:9091: HTTP 500: down");
        auto last = pusher.push_and_wait("a 2\n");
        REQUIRE_FALSE(last);
        CHECK(last.error().message == "could not push metrics to http://gw:9091: HTTP 500: down");
    }
}
