#include <doctest/doctest.h>

#include "fakes.hpp"
#include "service/media_check.hpp"
#include "service/requests.hpp"

using namespace std::chrono_literals;

namespace {

service::HttpResponse answer(long status, service::Headers headers) {
    service::HttpResponse r;
    r.status = status;
    r.headers = std::move(headers);
    return r;
}

service::HttpResponse png(long long size) {
    return answer(200, {{"content-type", "image/png"}, {"content-length", std::to_string(size)}});
}

bool passes(const service::MediaVerdict& v) {
    return v.refusal.empty() && v.warning.empty();
}

}  // namespace

TEST_SUITE("service::media_verdict") {
    TEST_CASE("a JPEG or PNG of at most 5,000,000 bytes passes; one byte more is refused, saying the limit") {
        CHECK(passes(service::media_verdict(png(5'000'000))));
        CHECK(passes(service::media_verdict(answer(200, {{"content-type", "image/jpeg"}, {"content-length", "0"}}))));
        const auto over = service::media_verdict(png(5'000'001));
        CHECK(over.refusal == "5000001 bytes; WhatsApp takes at most 5000000");
    }
    TEST_CASE("the content type is compared without its parameters and case") {
        CHECK(passes(service::media_verdict(
            answer(200, {{"content-type", " IMAGE/PNG ; charset=binary"}, {"content-length", "10"}}))));
        CHECK(passes(service::media_verdict(answer(200, {{"content-type", "Image/Jpeg"}, {"content-length", "10"}}))));
    }
    TEST_CASE("another content type, or none, is refused") {
        CHECK(service::media_verdict(answer(200, {{"content-type", "image/gif"}, {"content-length", "10"}})).refusal ==
              "content type image/gif; WhatsApp takes image/jpeg or image/png");
        CHECK(service::media_verdict(answer(200, {{"content-length", "10"}})).refusal ==
              "no content type; WhatsApp takes image/jpeg or image/png");
        CHECK(service::media_verdict(answer(200, {{"content-type", "image/webp\x1b[2J"}})).refusal ==
              "content type image/webp\\x1b[2j; WhatsApp takes image/jpeg or image/png");
    }
    TEST_CASE("a status other than 2xx is refused; where redirects led is said") {
        CHECK(service::media_verdict(answer(404, {{"content-type", "image/png"}})).refusal == "answered HTTP 404");
        auto moved = answer(403, {});
        moved.url = "https://cdn.example.com/b.png";
        moved.redirects = 2;
        CHECK(service::media_verdict(moved).refusal ==
              "answered HTTP 403 (at https://cdn.example.com/b.png, after 2 redirects)");
        CHECK(service::media_verdict(answer(301, {})).refusal == "answered HTTP 301");
    }
    TEST_CASE("a 206 tells the size by its Content-Range total, not its Content-Length") {
        const auto partial = [](const std::string& range) {
            return answer(206, {{"content-type", "image/png"}, {"content-length", "1024"}, {"content-range", range}});
        };
        CHECK(passes(service::media_verdict(partial("bytes 0-1023/5000000"))));
        CHECK(service::media_verdict(partial("bytes 0-1023/5000001")).refusal ==
              "5000001 bytes; WhatsApp takes at most 5000000");
        const auto unknown = service::media_verdict(partial("bytes 0-1023/*"));
        CHECK(unknown.refusal.empty());
        CHECK_FALSE(unknown.warning.empty());
    }
    TEST_CASE("an unknown size passes with a warning") {
        const auto none = service::media_verdict(answer(200, {{"content-type", "image/png"}}));
        CHECK(none.refusal.empty());
        CHECK(none.warning == "size unknown (the host did not say it); WhatsApp refuses images over 5000000 bytes");
        const auto garbled =
            service::media_verdict(answer(200, {{"content-type", "image/png"}, {"content-length", "12ab"}}));
        CHECK(garbled.refusal.empty());
        CHECK_FALSE(garbled.warning.empty());
    }
    TEST_CASE("a video of type mp4 or 3gpp and at most 16,000,000 bytes passes; one byte more is refused") {
        const auto video = [](const std::string& type, long long size) {
            return answer(200, {{"content-type", type}, {"content-length", std::to_string(size)}});
        };
        CHECK(passes(service::media_verdict(video("video/mp4", 16'000'000), service::MediaKind::video)));
        CHECK(passes(service::media_verdict(video("Video/3GPP", 1000), service::MediaKind::video)));
        CHECK(service::media_verdict(video("video/mp4", 16'000'001), service::MediaKind::video).refusal ==
              "16000001 bytes; WhatsApp takes at most 16000000");
        CHECK(service::media_verdict(video("video/quicktime", 1000), service::MediaKind::video).refusal ==
              "content type video/quicktime; WhatsApp takes video/mp4 or video/3gpp");
        CHECK(service::media_verdict(video("image/png", 1000), service::MediaKind::video).refusal ==
              "content type image/png; WhatsApp takes video/mp4 or video/3gpp");
        const auto unknown =
            service::media_verdict(answer(200, {{"content-type", "video/mp4"}}), service::MediaKind::video);
        CHECK(unknown.warning == "size unknown (the host did not say it); WhatsApp refuses videos over 16000000 bytes");
    }
    TEST_CASE("a document of any content type and at most 100,000,000 bytes passes; one byte more is refused") {
        const auto document = [](const std::string& type, long long size) {
            return answer(200, {{"content-type", type}, {"content-length", std::to_string(size)}});
        };
        CHECK(passes(service::media_verdict(document("application/pdf", 100'000'000), service::MediaKind::document)));
        CHECK(passes(service::media_verdict(document("text/csv", 10), service::MediaKind::document)));
        CHECK(passes(service::media_verdict(answer(200, {{"content-length", "10"}}), service::MediaKind::document)));
        CHECK(service::media_verdict(document("application/pdf", 100'000'001), service::MediaKind::document).refusal ==
              "100000001 bytes; WhatsApp takes at most 100000000");
        CHECK(service::media_verdict(answer(404, {{"content-type", "application/pdf"}}), service::MediaKind::document)
                  .refusal == "answered HTTP 404");
    }
    TEST_CASE("an image's limits are not a video's: a 6 MB mp4 passes as a video, a 6 MB PNG is refused as an image") {
        const auto mp4 = answer(200, {{"content-type", "video/mp4"}, {"content-length", "6000000"}});
        CHECK(passes(service::media_verdict(mp4, service::MediaKind::video)));
        CHECK_FALSE(service::media_verdict(mp4, service::MediaKind::image).refusal.empty());
        CHECK_FALSE(service::media_verdict(png(6'000'000), service::MediaKind::image).refusal.empty());
    }
    TEST_CASE("an image that could not be fetched is refused, saying why") {
        CHECK(service::media_verdict(service::TransportError{service::TransportFailure::dns, false, "no such host"})
                  .refusal == "unreachable: no such host");
        CHECK(service::media_verdict(
                  service::TransportError{service::TransportFailure::other, false, "more than 5 redirects"})
                  .refusal == "could not be fetched: more than 5 redirects");
    }
}

TEST_SUITE("service::check_media_links") {
    TEST_CASE("each URL is asked once with HEAD, no credentials, redirects to http(s) only, a few at a time") {
        fakes::FakeClock clock;
        fakes::FakeTransport transport(
            clock, [](const service::HttpRequest&) -> fakes::FakeTransport::Answer { return png(100); }, 10ms);
        std::vector<std::string> urls;
        for (int i = 0; i < 40; ++i) {
            urls.push_back("https://img.example.com/" + std::to_string(i) + ".png");
        }
        auto verdicts = service::check_media_links(transport, urls, {.timeout = 7s, .max_in_flight = 16});
        REQUIRE(verdicts);
        CHECK(verdicts->size() == 40);
        CHECK(transport.started.size() == 40);
        CHECK(transport.max_in_flight == 16);
        for (const auto& s : transport.started) {
            CHECK(s.request.method == service::Method::head);
            CHECK(s.request.headers == service::Headers{{"User-Agent", service::user_agent()}});
            CHECK(s.request.timeout == 7s);
            CHECK(s.request.max_redirects == 5);
        }
    }
    TEST_CASE("a HEAD answered 405 or 501 is followed by a GET of the first bytes; its verdict is the GET's") {
        fakes::FakeClock clock;
        fakes::FakeTransport transport(
            clock,
            [](const service::HttpRequest& r) -> fakes::FakeTransport::Answer {
                if (r.method == service::Method::head) {
                    return answer(r.url.ends_with("a.png") ? 405 : 501, {});
                }
                return answer(206, {{"content-type", "image/png"}, {"content-range", "bytes 0-1023/6000000"}});
            },
            10ms);
        auto verdicts = service::check_media_links(transport, {"http://h/a.png", "http://h/b.png"}, {});
        REQUIRE(verdicts);
        REQUIRE(transport.started.size() == 4);
        for (const auto* url : {"http://h/a.png", "http://h/b.png"}) {
            CAPTURE(url);
            int gets = 0;
            for (const auto& s : transport.started) {
                if (s.request.url == url && s.request.method == service::Method::get) {
                    ++gets;
                    CHECK(s.request.headers ==
                          service::Headers{{"User-Agent", service::user_agent()}, {"Range", "bytes=0-1023"}});
                    CHECK(s.request.max_body <= 16 * 1024);
                }
            }
            CHECK(gets == 1);
        }
        CHECK((*verdicts)[0].refusal == "6000000 bytes; WhatsApp takes at most 5000000");
        CHECK((*verdicts)[1].refusal == (*verdicts)[0].refusal);
    }
    TEST_CASE("every URL is judged as the options' kind") {
        fakes::FakeClock clock;
        fakes::FakeTransport transport(
            clock,
            [](const service::HttpRequest&) -> fakes::FakeTransport::Answer {
                return answer(200, {{"content-type", "video/mp4"}, {"content-length", "16000001"}});
            },
            10ms);
        auto verdicts = service::check_media_links(transport, {"http://h/a.mp4"}, {.kind = service::MediaKind::video});
        REQUIRE(verdicts);
        CHECK((*verdicts)[0].refusal == "16000001 bytes; WhatsApp takes at most 16000000");
    }
    TEST_CASE("a stop request ends the check with no verdicts") {
        fakes::FakeClock clock;
        fakes::FakeTransport transport(
            clock, [](const service::HttpRequest&) -> fakes::FakeTransport::Answer { return png(1); }, 10ms);
        std::atomic<int> stops{1};
        CHECK_FALSE(service::check_media_links(transport, {"http://h/a.png"}, {.stop_requests = &stops}));
    }
}
