#include <doctest/doctest.h>

#include <fmt/format.h>
#include <atomic>
#include <chrono>

#include "runner/media_preflight.hpp"
#include "runner/send.hpp"
#include "runner_fixture.hpp"

using namespace std::chrono_literals;
using runner_test::read_log;

namespace {

// Every campaign of these tests up to its message section.
const std::string k_head = R"(name: spring
service:
  base_url: https://api.example.com
  api_key: ${WACAMP_API_KEY}
  timeout: 3s
recipients:
  file: samples/r.csv
  columns: {wa_id: phone, user_name: name}
)";

// An image campaign over `csv` (phone,name,img), its source "https://img.example/{{img}}";
// `extra` goes in the message section.
campaign::Campaign image_campaign(const campaign_file_test::Folder& folder, const std::string& csv,
                                  const std::string& extra = "") {
    folder.put("samples/r.csv", csv);
    auto c = folder.load(k_head + R"(message:
  type: image
  source: "https://img.example/{{img}}"
)" + extra);
    REQUIRE(c);
    return std::move(*c);
}

const std::string k_csv =
    "phone,name,img\n"
    "+919812345678,Asha,a.png\n"
    "+919812345679,Vikram,a.gif\n"
    "+919812345680,Meera,a.png\n"
    "12345,Bad,bad.png\n"              // invalid: never sent, never checked
    "+919812345678,Again,again.png\n"  // a repeat: never sent, never checked
    "+919812345681,Rahul,a.gif\n";

// Image hosts: a .png is a PNG of 100 bytes, anything else a GIF; the service accepts all.
fakes::FakeTransport::Answer hosts(const service::HttpRequest& r) {
    if (!r.url.starts_with("https://img.example/")) {
        return runner_test::accept_all(r);
    }
    service::HttpResponse response;
    response.status = 200;
    response.headers = {{"content-type", r.url.ends_with(".png") ? "image/png" : "image/gif"},
                        {"content-length", "100"}};
    return response;
}

std::vector<std::string> urls_asked(const fakes::FakeTransport& transport) {
    std::vector<std::string> urls;
    for (const auto& s : transport.started) {
        if (s.request.url.starts_with("https://img.example/")) {
            urls.push_back(s.request.url);
        }
    }
    return urls;
}

}  // namespace

TEST_SUITE("runner::check_media") {
    TEST_CASE("each distinct image of the rows to send is asked once, with the campaign's timeout") {
        campaign_file_test::Folder folder;
        const auto c = image_campaign(folder, k_csv);
        fakes::FakeClock clock;
        fakes::FakeTransport transport(clock, hosts, 10ms);
        auto stream = campaign::RecipientStream::open(c);
        REQUIRE(stream);
        auto report = runner::check_media(c, *stream, nullptr, {}, {.transport = transport});
        REQUIRE(report);
        CHECK(urls_asked(transport) ==
              std::vector<std::string>{"https://img.example/a.gif", "https://img.example/a.png"});
        CHECK(transport.started.front().request.timeout == 3s);
        CHECK(report->checked == 2);
        REQUIRE(report->verdicts.refused() == 1);
        CHECK(*report->verdicts.refusal("https://img.example/a.gif") ==
              "content type image/gif; WhatsApp takes image/jpeg or image/png");
        CHECK(runner::media_summary(*report) == "checked 2 image URLs: 1 refused");
    }

    TEST_CASE("a template's video header links are checked as videos, each distinct link once") {
        campaign_file_test::Folder folder;
        folder.put("samples/r.csv",
                   "phone,name,clip\n"
                   "+919812345678,Asha,a.mp4\n"
                   "+919812345679,Vikram,a.mov\n"
                   "+919812345680,Meera,a.mp4\n");
        auto c = folder.load(k_head + R"(message:
  type: template
  template: spring_clip
  header: {video: "https://img.example/{{clip}}"}
  check_media: true
)");
        REQUIRE(c);
        CHECK(runner::media_kind(*c) == service::MediaKind::video);
        fakes::FakeClock clock;
        fakes::FakeTransport transport(
            clock,
            [](const service::HttpRequest& r) -> fakes::FakeTransport::Answer {
                service::HttpResponse response;
                response.status = 200;
                response.headers = {{"content-type", r.url.ends_with(".mp4") ? "video/mp4" : "video/quicktime"},
                                    {"content-length", "9000000"}};  // over an image's limit, within a video's
                return response;
            },
            10ms);
        auto stream = campaign::RecipientStream::open(*c);
        REQUIRE(stream);
        auto report = runner::check_media(*c, *stream, nullptr, {}, {.transport = transport});
        REQUIRE(report);
        CHECK(urls_asked(transport) ==
              std::vector<std::string>{"https://img.example/a.mov", "https://img.example/a.mp4"});
        REQUIRE(report->verdicts.refused() == 1);
        CHECK(*report->verdicts.refusal("https://img.example/a.mov") ==
              "content type video/quicktime; WhatsApp takes video/mp4 or video/3gpp");
        CHECK(runner::media_summary(*report) == "checked 2 video URLs: 1 refused");
    }

    TEST_CASE("a template without a media header has nothing to check") {
        campaign_file_test::Folder folder;
        folder.put("samples/r.csv", "phone,name\n+919812345678,Asha\n");
        auto c = folder.load(k_head + R"(message:
  type: template
  template: thank_you
)");
        REQUIRE(c);
        CHECK_FALSE(runner::media_kind(*c));
    }

    TEST_CASE("a text campaign has nothing to check") {
        campaign_file_test::Folder folder;
        const auto c = runner_test::three_recipients(folder);
        fakes::FakeClock clock;
        fakes::FakeTransport transport(clock, hosts, 10ms);
        auto stream = campaign::RecipientStream::open(c);
        REQUIRE(stream);
        auto report = runner::check_media(c, *stream, nullptr, {}, {.transport = transport});
        REQUIRE(report);
        CHECK(report->checked == 0);
        CHECK(transport.started.empty());
    }

    TEST_CASE("more than 100,000 distinct image URLs is an error that asks to split the campaign") {
        campaign_file_test::Folder folder;
        std::string csv = "phone,name,img\n";
        for (long long i = 0; i <= 100'000; ++i) {
            csv += fmt::format("+91981{:07},P,{}.png\n", 2'000'000 + i, i);
        }
        const auto c = image_campaign(folder, csv);
        fakes::FakeClock clock;
        fakes::FakeTransport transport(clock, hosts, 10ms);
        auto stream = campaign::RecipientStream::open(c);
        REQUIRE(stream);
        auto report = runner::check_media(c, *stream, nullptr, {}, {.transport = transport});
        REQUIRE_FALSE(report);
        CHECK(report.error().message ==
              folder.str("samples/r.csv") + ": more than 100000 distinct image URLs to check; split the campaign");
        CHECK(transport.started.empty());
    }
}

TEST_SUITE("runner::send_campaign") {
    TEST_CASE("message.check_media: the images are checked before the first send, refused rows recorded invalid") {
        campaign_file_test::Folder folder;
        const auto c = image_campaign(folder, k_csv, "  check_media: true\n");
        fakes::FakeClock clock;
        fakes::FakeTransport transport(clock, hosts, 10ms);
        fakes::FakeUi ui;
        std::atomic<int> stops{0};
        runner::SendOptions options;
        options.results_path = folder.str("results.jsonl");
        auto report = runner::send_campaign(c, options,
                                            {.transport = transport, .clock = clock, .ui = ui, .stop_requests = stops});
        REQUIRE(report);
        CHECK(report->reason == queue::StopReason::completed);
        // Both images asked before any message.
        REQUIRE(transport.started.size() == 2 + 2);
        CHECK(urls_asked(transport).size() == 2);
        CHECK(transport.started[0].request.url.starts_with("https://img.example/"));
        CHECK(transport.started[1].request.url.starts_with("https://img.example/"));
        CHECK(report->counts[results::Status::sent] == 2);
        CHECK(report->counts[results::Status::invalid] == 3);
        CHECK(ui.warnings == std::vector<std::string>{"checked 2 image URLs: 1 refused"});
        int refused_rows = 0;
        for (const auto& line : read_log(options.results_path)) {
            if (line.value("status", "") == "invalid" && line.value("error", "").starts_with("image ")) {
                CHECK(
                    line["error"] ==
                    "image https://img.example/a.gif: content type image/gif; WhatsApp takes image/jpeg or image/png");
                ++refused_rows;
            }
        }
        CHECK(refused_rows == 2);
    }

    TEST_CASE("a stop request during the image check ends the run with nothing sent") {
        campaign_file_test::Folder folder;
        const auto c = image_campaign(folder, k_csv, "  check_media: true\n");
        fakes::FakeClock clock;
        fakes::FakeTransport transport(clock, hosts, 10ms);
        fakes::FakeUi ui;
        std::atomic<int> stops{1};
        runner::SendOptions options;
        options.results_path = folder.str("results.jsonl");
        auto report = runner::send_campaign(c, options,
                                            {.transport = transport, .clock = clock, .ui = ui, .stop_requests = stops});
        REQUIRE(report);
        CHECK(report->reason == queue::StopReason::interrupted);
        CHECK(urls_asked(transport).size() == transport.started.size());
        CHECK(read_log(options.results_path).empty());
    }
}
