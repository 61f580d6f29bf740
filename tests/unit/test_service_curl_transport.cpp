// CurlTransport against a scripted server on 127.0.0.1: what libcurl would do on its own
// (resend, buffer, time out) is what wacamp must see and decide.

#include <doctest/doctest.h>
#include <atomic>
#include <mutex>
#include <thread>
#include <vector>

#include "../support/scripted_server.hpp"
#include "service/curl_transport.hpp"
#include "service/requests.hpp"

using test_support::http_response;
using test_support::ReceivedRequest;
using test_support::Reply;
using test_support::ScriptedServer;

namespace {

using namespace std::chrono_literals;

const std::string k_ok = R"({"success":true,"data":{"messageId":"m-1"}})";

service::HttpRequest request_to(const ScriptedServer& server, service::Method method,
                                std::chrono::milliseconds timeout = 5000ms) {
    service::HttpRequest r;
    r.method = method;
    r.url = server.url() + "/whatsapp-automation/wa/send-message";
    r.headers = {{"Content-Type", "application/json"}};
    if (method != service::Method::get) {
        r.body = R"({"userName":"Asha","wa_id":"919812300000","type":"text","message":{"text":"Hi"}})";
    }
    r.timeout = timeout;
    return r;
}

// Answers the first request of each connection; processes any later one and hangs up on it.
Reply answer_first_then_hang_up(const ReceivedRequest& r) {
    if (r.on_connection == 0) {
        return {Reply::Kind::answer, http_response(200, k_ok)};
    }
    return {Reply::Kind::hang_up, ""};
}

void check_lost_answer_not_resent(service::Method method) {
    ScriptedServer server(answer_first_then_hang_up);
    service::CurlTransport transport;
    auto first = service::perform(transport, request_to(server, method));
    REQUIRE(std::holds_alternative<service::HttpResponse>(first.result));
    auto second = service::perform(transport, request_to(server, method));
    // The kept-alive connection was reused; libcurl must not have sent the request again.
    CHECK(server.requests() == 2);
    const auto* error = std::get_if<service::TransportError>(&second.result);
    REQUIRE(error != nullptr);
    CHECK(error->request_sent);  // the server had it: it may have acted on it
}

}  // namespace

TEST_SUITE("service::CurlTransport") {
    TEST_CASE("a POST whose reused connection closes unanswered goes out once and may have been delivered") {
        check_lost_answer_not_resent(service::Method::post);
    }
    TEST_CASE("a PUT or GET in the same case goes out once too") {
        check_lost_answer_not_resent(service::Method::put);
        check_lost_answer_not_resent(service::Method::get);
    }
    TEST_CASE("a request refused before it is sent is not taken as sent") {
        service::HttpRequest r;
        {
            ScriptedServer gone(answer_first_then_hang_up);
            r = request_to(gone, service::Method::post);
        }  // nothing listens there any more
        service::CurlTransport transport;
        auto c = service::perform(transport, r);
        const auto* error = std::get_if<service::TransportError>(&c.result);
        REQUIRE(error != nullptr);
        CHECK(error->failure == service::TransportFailure::connect);
        CHECK_FALSE(error->request_sent);
    }
    TEST_CASE("an answer that arrived while the caller was not polling is read, not timed out") {
        ScriptedServer server([](const ReceivedRequest&) {
            std::this_thread::sleep_for(100ms);
            return Reply{Reply::Kind::answer, http_response(200, k_ok)};
        });
        service::CurlTransport transport;
        transport.start(7, request_to(server, service::Method::post, 300ms));
        std::vector<service::Completion> done;
        for (int i = 0; i < 5000 && server.requests() == 0 && done.empty(); ++i) {
            done = transport.poll(1ms);
        }
        REQUIRE(done.empty());
        REQUIRE(server.requests() == 1);
        // The caller is held up past the timeout (not long enough to count as a stop); the
        // answer came meanwhile and waits in the socket.
        std::this_thread::sleep_for(800ms);
        for (int i = 0; i < 100 && done.empty(); ++i) {
            done = transport.poll(10ms);
        }
        REQUIRE(done.size() == 1);
        const auto* response = std::get_if<service::HttpResponse>(&done[0].result);
        REQUIRE_MESSAGE(response != nullptr, std::get<service::TransportError>(done[0].result).message);
        CHECK(response->status == 200);
    }
    TEST_CASE("time the process was stopped does not count against a request in flight") {
        ScriptedServer server([](const ReceivedRequest&) {
            std::this_thread::sleep_for(2300ms);
            return Reply{Reply::Kind::answer, http_response(200, k_ok)};
        });
        service::CurlTransport transport;
        transport.start(7, request_to(server, service::Method::post, 1000ms));
        std::vector<service::Completion> done;
        for (int i = 0; i < 5000 && server.requests() == 0 && done.empty(); ++i) {
            done = transport.poll(1ms);
        }
        REQUIRE(done.empty());
        REQUIRE(server.requests() == 1);
        // Away for 2 s (as if stopped): the answer comes 0.3 s later, within the second of
        // running time the request has left.
        std::this_thread::sleep_for(2000ms);
        for (int i = 0; i < 1000 && done.empty(); ++i) {
            done = transport.poll(10ms);
        }
        REQUIRE(done.size() == 1);
        const auto* response = std::get_if<service::HttpResponse>(&done[0].result);
        REQUIRE_MESSAGE(response != nullptr, std::get<service::TransportError>(done[0].result).message);
        CHECK(response->status == 200);
    }
    TEST_CASE("a request with no answer still times out, and counts as sent") {
        ScriptedServer server([](const ReceivedRequest&) {
            std::this_thread::sleep_for(1500ms);
            return Reply{Reply::Kind::answer, http_response(200, k_ok)};
        });
        service::CurlTransport transport;
        auto c = service::perform(transport, request_to(server, service::Method::post, 300ms));
        const auto* error = std::get_if<service::TransportError>(&c.result);
        REQUIRE(error != nullptr);
        CHECK(error->failure == service::TransportFailure::timeout);
        CHECK(error->request_sent);
    }
    TEST_CASE("a huge answer keeps at most 64 KiB of its body and is classified by its status") {
        const long long size = 8LL << 20;
        ScriptedServer server([size](const ReceivedRequest&) {
            return Reply{Reply::Kind::stream, "HTTP/1.1 200 OK\r\nContent-Length: " + std::to_string(size) + "\r\n\r\n",
                         size};
        });
        service::CurlTransport transport;
        auto c = service::perform(transport, request_to(server, service::Method::post));
        const auto* response = std::get_if<service::HttpResponse>(&c.result);
        REQUIRE(response != nullptr);
        CHECK(response->status == 200);
        CHECK(response->body.size() <= 64 * 1024);
    }
    TEST_CASE("an endless answer ends at the cap as a response, not a timeout") {
        ScriptedServer server([](const ReceivedRequest&) {
            return Reply{Reply::Kind::stream, "HTTP/1.1 503 Busy\r\nConnection: close\r\n\r\n", -1, 1};
        });
        service::CurlTransport transport;
        auto c = service::perform(transport, request_to(server, service::Method::post, 3000ms));
        const auto* response = std::get_if<service::HttpResponse>(&c.result);
        REQUIRE(response != nullptr);
        CHECK(response->status == 503);
        CHECK(response->body.size() <= 64 * 1024);
    }

    TEST_CASE("a HEAD reads no body, and the handle's next GET reads its own") {
        ScriptedServer server([](const ReceivedRequest& r) {
            if (r.head.starts_with("HEAD ")) {
                return Reply{Reply::Kind::answer,
                             "HTTP/1.1 200 OK\r\nContent-Type: image/png\r\nContent-Length: 6000000\r\n\r\n"};
            }
            return Reply{Reply::Kind::answer, http_response(200, k_ok)};
        });
        service::CurlTransport transport;
        auto head = request_to(server, service::Method::head);
        auto c = service::perform(transport, head);
        const auto* response = std::get_if<service::HttpResponse>(&c.result);
        REQUIRE_MESSAGE(response != nullptr, std::get<service::TransportError>(c.result).message);
        CHECK(response->status == 200);
        CHECK(service::find_header(response->headers, "content-length") == "6000000");
        CHECK(response->body.empty());
        auto get = service::perform(transport, request_to(server, service::Method::get));
        REQUIRE(std::holds_alternative<service::HttpResponse>(get.result));
        CHECK(std::get<service::HttpResponse>(get.result).body == k_ok);
        CHECK(server.requests() == 2);
    }
    TEST_CASE("a POST's body arrives whole, and the handle's next GET and POST carry only their own") {
        std::vector<ReceivedRequest> seen;
        std::mutex m;
        ScriptedServer server([&](const ReceivedRequest& r) {
            const std::lock_guard lock(m);
            seen.push_back(r);
            return Reply{Reply::Kind::answer, http_response(200, k_ok)};
        });
        service::CurlTransport transport;
        auto post = request_to(server, service::Method::post);
        REQUIRE(std::holds_alternative<service::HttpResponse>(service::perform(transport, post).result));
        REQUIRE(std::holds_alternative<service::HttpResponse>(
            service::perform(transport, request_to(server, service::Method::get)).result));
        auto second = request_to(server, service::Method::post);
        second.body = R"({"wa_id":"919812300001"})";
        REQUIRE(std::holds_alternative<service::HttpResponse>(service::perform(transport, second).result));
        const std::lock_guard lock(m);
        REQUIRE(seen.size() == 3);
        CHECK(seen[0].head.starts_with("POST "));
        CHECK(seen[0].body == post.body);
        CHECK(seen[1].head.starts_with("GET "));
        CHECK(seen[1].body.empty());
        CHECK(seen[1].head.find("Content-Length") == std::string::npos);
        CHECK(seen[2].head.starts_with("POST "));
        CHECK(seen[2].body == second.body);
    }
    TEST_CASE("redirects are followed only when asked, at most as many as asked, and only to http(s)") {
        ScriptedServer server([](const ReceivedRequest& r) {
            const auto moved = [](const std::string& to) {
                return Reply{Reply::Kind::answer,
                             "HTTP/1.1 302 Found\r\nLocation: " + to + "\r\nContent-Length: 0\r\n\r\n"};
            };
            const std::string path = test_support::path_of(r);
            if (path == "/moved") {
                return moved("/image.png");
            }
            if (path == "/to-ftp") {
                return moved("ftp://127.0.0.1/image.png");
            }
            if (path == "/to-file") {
                return moved("file:///etc/passwd");
            }
            if (path == "/loop") {
                return moved("/loop");
            }
            return Reply{Reply::Kind::answer, http_response(200, "PNG", "image/png")};
        });
        service::CurlTransport transport;
        const auto fetch = [&](const std::string& path, int max_redirects) {
            service::HttpRequest r;
            r.method = service::Method::head;
            r.url = server.url() + path;
            r.max_redirects = max_redirects;
            return service::perform(transport, r).result;
        };
        auto followed = fetch("/moved", 5);
        REQUIRE(std::holds_alternative<service::HttpResponse>(followed));
        CHECK(std::get<service::HttpResponse>(followed).status == 200);
        CHECK(std::get<service::HttpResponse>(followed).url == server.url() + "/image.png");
        CHECK(std::get<service::HttpResponse>(followed).redirects == 1);
        CHECK(server.requests() == 2);

        // The service's requests (no redirects asked, the handle reused): the 3xx is the answer.
        auto answered = fetch("/moved", 0);
        REQUIRE(std::holds_alternative<service::HttpResponse>(answered));
        CHECK(std::get<service::HttpResponse>(answered).status == 302);
        CHECK(server.requests() == 3);

        for (const std::string path : {"/to-ftp", "/to-file"}) {
            CAPTURE(path);
            auto refused = fetch(path, 5);
            REQUIRE(std::holds_alternative<service::TransportError>(refused));
            CHECK(std::get<service::TransportError>(refused).message.ends_with(", which is not an http(s) URL"));
        }
        CHECK(server.requests() == 5);

        auto looped = fetch("/loop", 5);
        REQUIRE(std::holds_alternative<service::TransportError>(looped));
        CHECK(std::get<service::TransportError>(looped).message == "more than 5 redirects");
        CHECK(server.requests() == 5 + 6);
    }
    TEST_CASE("a request's body cap ends the transfer there, as a response") {
        const long long size = 6LL << 20;
        ScriptedServer server([size](const ReceivedRequest&) {
            return Reply{
                Reply::Kind::stream,
                "HTTP/1.1 200 OK\r\nContent-Type: image/png\r\nContent-Length: " + std::to_string(size) + "\r\n\r\n",
                size};
        });
        service::CurlTransport transport;
        auto r = request_to(server, service::Method::get);
        r.max_body = 1024;
        auto c = service::perform(transport, r);
        const auto* response = std::get_if<service::HttpResponse>(&c.result);
        REQUIRE(response != nullptr);
        CHECK(response->status == 200);
        CHECK(response->body.size() == 1024);
    }
    TEST_CASE(
        "the template list is kept whole up to 16 MiB; past it, and past a send's 64 KiB, the body is cut and says "
        "so") {
        const auto streamed = [](long long size) {
            return Reply{Reply::Kind::stream,
                         "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: " +
                             std::to_string(size) + "\r\n\r\n",
                         size};
        };
        const long long list_size = 2LL << 20;  // 2,000 templates are about 1.2 MB
        ScriptedServer server([&](const ReceivedRequest& r) {
            return streamed(r.head.find("/templates") != std::string::npos ? list_size : (17LL << 20));
        });
        service::ServiceConfig config;
        config.base_url = server.url();
        config.api_key = "k";
        service::CurlTransport transport;
        const auto body_of = [&](service::HttpRequest request) {
            auto c = service::perform(transport, std::move(request));
            REQUIRE(std::holds_alternative<service::HttpResponse>(c.result));
            return std::get<service::HttpResponse>(std::move(c.result));
        };
        const auto list = body_of(service::list_templates_request(config));
        CHECK(list.body.size() == static_cast<size_t>(list_size));
        CHECK_FALSE(list.body_cut);
        auto send = request_to(server, service::Method::post);  // answered 17 MiB
        const auto answer = body_of(send);
        CHECK(answer.body.size() == 64 * 1024);
        CHECK(answer.body_cut);
        send.max_body = service::k_max_body_cap;
        const auto huge = body_of(send);
        CHECK(huge.body.size() == service::k_max_body_cap);
        CHECK(huge.body_cut);
    }
    TEST_CASE("PastCap::read reads the rest of a body past its cap and drops it: the connection is used again") {
        const std::string big(200 * 1024, 'x');
        std::atomic<int> on_connection{-1};
        ScriptedServer server([&](const ReceivedRequest& request) {
            on_connection = request.on_connection;
            return Reply{Reply::Kind::answer, http_response(200, big)};
        });
        service::CurlTransport transport;
        auto r = request_to(server, service::Method::get);
        r.max_body = 1024;
        r.past_cap = service::PastCap::read;
        for (int i = 0; i < 2; ++i) {
            auto c = service::perform(transport, r);
            const auto* response = std::get_if<service::HttpResponse>(&c.result);
            REQUIRE(response != nullptr);
            CHECK(response->status == 200);
            CHECK(response->body.size() == 1024);
            CHECK(response->body_cut);
        }
        CHECK(on_connection == 1);  // the second request went on the first's connection
    }
}
