// Images checked before sending (--check-media, message.check_media): the real binary against
// a scripted image host on loopback that counts what it is asked, and the sandbox.

#include <doctest/doctest.h>

#include <algorithm>
#include <map>
#include <memory>
#include <mutex>

#include "../support/scripted_server.hpp"
#include "fixtures.hpp"

using namespace e2e;
using test_support::ReceivedRequest;
using test_support::Reply;

namespace {

const std::string k_header_secret = "tenant-7a1c";  // a service.headers value

// What the image host was asked: "METHOD /path" per request, and each request's head.
struct Asked {
    std::mutex mutex;
    std::vector<std::string> requests;
    std::vector<std::string> heads;

    void clear() {
        std::lock_guard lock(mutex);
        requests.clear();
        heads.clear();
    }
    int count(const std::string& request) {
        std::lock_guard lock(mutex);
        return static_cast<int>(std::count(requests.begin(), requests.end(), request));
    }
    std::size_t total() {
        std::lock_guard lock(mutex);
        return requests.size();
    }
};

Asked& asked() {
    static Asked a;
    return a;
}

std::string head_reply(int status, const std::string& headers) {
    return "HTTP/1.1 " + std::to_string(status) + " X\r\n" + headers + "\r\n";
}

// The image host. HEAD answers carry no body; /big.png is 6 MB, whose body a GET would stream.
Reply image_host(const ReceivedRequest& r) {
    const std::string method = r.head.substr(0, r.head.find(' '));
    const std::string path = test_support::path_of(r);
    {
        std::lock_guard lock(asked().mutex);
        asked().requests.push_back(method + " " + path);
        asked().heads.push_back(r.head);
    }
    const bool head = method == "HEAD";
    const auto image = [&](const std::string& type, long long size) {
        const std::string headers = "Content-Type: " + type + "\r\nContent-Length: " + std::to_string(size) + "\r\n";
        if (head) {
            return Reply{Reply::Kind::answer, head_reply(200, headers)};
        }
        return Reply{Reply::Kind::stream, head_reply(200, headers), size};
    };
    if (path == "/good.png") {
        return image("image/png", 1000);
    }
    if (path == "/anim.gif") {
        return image("image/gif", 500);
    }
    if (path == "/big.png") {
        return image("image/png", 6'000'000);
    }
    if (path == "/moved.png") {
        return {Reply::Kind::answer, head_reply(302, "Location: /good.png\r\nContent-Length: 0\r\n")};
    }
    if (path == "/to-ftp.png") {
        return {Reply::Kind::answer, head_reply(302, "Location: ftp://127.0.0.1/good.png\r\nContent-Length: 0\r\n")};
    }
    if (path == "/no-head.jpg") {
        if (head) {
            return {Reply::Kind::answer, head_reply(405, "Allow: GET\r\nContent-Length: 0\r\n")};
        }
        return {Reply::Kind::answer, head_reply(206,
                                                "Content-Type: image/jpeg\r\nContent-Range: bytes 0-1023/2000\r\n"
                                                "Content-Length: 1024\r\n") +
                                         std::string(1024, 'x')};
    }
    if (path == "/no-size.png") {
        return {Reply::Kind::answer, head_reply(200, "Content-Type: image/png\r\n")};
    }
    if (head) {
        return {Reply::Kind::answer, head_reply(404, "Content-Type: text/plain\r\nContent-Length: 8\r\n")};
    }
    return {Reply::Kind::answer, test_support::http_response(404, "not here", "text/plain")};
}

const test_support::ScriptedServer& host() {
    static test_support::ScriptedServer server(image_host);
    return server;
}

const Sandbox& sandbox() {
    static Sandbox s;
    return s;
}

// Per row (0-based): the image it names. Several rows share one.
const std::vector<std::string> k_images = {"good.png",  "anim.gif",   "big.png",     "missing.png",
                                           "moved.png", "to-ftp.png", "no-head.jpg", "no-size.png",
                                           "good.png",  "big.png",    "anim.gif"};
const std::vector<int> k_refused_rows = {2, 3, 4, 6, 10, 11};  // 1-based

// An image campaign whose rows name their image in column `img`.
std::unique_ptr<CampaignFixture> image_campaign(const std::string& message_extra = "") {
    std::string csv = "phone,name,user_id,img\n";
    for (std::size_t i = 0; i < k_images.size(); ++i) {
        csv += "+" + numbers_wa_id(static_cast<int>(i)) + ",Person " + std::to_string(i) + ",u-" + std::to_string(i) +
               "," + host().url() + "/" + k_images[i] + "\n";
    }
    auto f = std::make_unique<CampaignFixture>(
        sandbox(), csv, "",
        "message:\n  type: image\n  source: \"{{img}}\"\n  label: \"For {{name}}\"\n" + message_extra);
    add_service_line(*f, "  headers: {X-Tenant: " + k_header_secret + "}");
    asked().clear();
    return f;
}

// Each distinct image asked once (the redirect's hop to /good.png aside, and the GET after a
// 405); the 6 MB image only with HEAD; no credential or configured header sent to the host.
void check_asked_once_each() {
    CHECK(asked().count("HEAD /good.png") == 2);  // its own, and the hop from /moved.png
    CHECK(asked().count("HEAD /moved.png") == 1);
    CHECK(asked().count("HEAD /anim.gif") == 1);
    CHECK(asked().count("HEAD /big.png") == 1);
    CHECK(asked().count("GET /big.png") == 0);
    CHECK(asked().count("HEAD /missing.png") == 1);
    CHECK(asked().count("HEAD /to-ftp.png") == 1);
    CHECK(asked().count("HEAD /no-head.jpg") == 1);
    CHECK(asked().count("GET /no-head.jpg") == 1);
    CHECK(asked().count("HEAD /no-size.png") == 1);
    CHECK(asked().total() == 10);
    std::lock_guard lock(asked().mutex);
    for (const auto& head : asked().heads) {
        CAPTURE(head);
        CHECK_FALSE(contains(head, k_api_key));
        CHECK_FALSE(contains(head, k_header_secret));
        CHECK_FALSE(contains(head, "apiKey"));
        CHECK_FALSE(contains(head, "X-Tenant"));
        CHECK_FALSE(contains(head, "Authorization"));
    }
    for (const auto& head : asked().heads) {
        if (head.starts_with("GET /no-head.jpg")) {
            CHECK(contains(head, "Range: bytes=0-1023"));
        }
    }
}

// Row (1-based) → the error of its result record, for rows recorded invalid in `records`.
std::map<long long, std::string> invalid_rows(const std::vector<nlohmann::json>& records) {
    std::map<long long, std::string> out;
    for (const auto& r : records) {
        if (r.value("event", "") == "result" && r.value("status", "") == "invalid") {
            out[r["row"].get<long long>()] = r.value("error", "");
        }
    }
    return out;
}

void check_reasons(const std::map<long long, std::string>& invalid) {
    std::vector<int> rows;
    for (const auto& [row, error] : invalid) {
        rows.push_back(static_cast<int>(row));
    }
    CHECK(rows == k_refused_rows);
    const std::string base = "image " + host().url();
    CHECK(invalid.at(2) == base + "/anim.gif: content type image/gif; WhatsApp takes image/jpeg or image/png");
    CHECK(invalid.at(3) == base + "/big.png: 6000000 bytes; WhatsApp takes at most 5000000");
    CHECK(invalid.at(4) == base + "/missing.png: answered HTTP 404");
    CHECK(invalid.at(6) ==
          base +
              "/to-ftp.png: could not be fetched: redirected to ftp://127.0.0.1/good.png, which is not an http(s) URL");
}

}  // namespace

TEST_SUITE("e2e: media") {
    TEST_CASE("validate --check-media asks each distinct image once and names every refused row") {
        auto f = image_campaign();
        auto r = f->wacamp({"validate", "--check-media", f->campaign.string(), "--rows"});
        CAPTURE(r.out);
        CAPTURE(r.err);
        CHECK(r.exit_code == 0);
        check_asked_once_each();
        CHECK(contains(r.out, "11 rows: 5 to send, 6 invalid, 0 duplicates"));
        CHECK(contains(r.out, "row 2: image " + host().url() + "/anim.gif: content type image/gif"));
        CHECK(contains(r.out, "row 11: image " + host().url() + "/anim.gif: content type image/gif"));
        CHECK(contains(r.err, "wacamp: warning: image " + host().url() + "/no-size.png: size unknown"));
        CHECK(contains(r.err, "wacamp: warning: checked 8 image URLs: 4 refused, 1 of unknown size"));
    }

    TEST_CASE("validate and a dry run without --check-media ask no image host") {
        auto f = image_campaign();
        CHECK(f->wacamp({"validate", f->campaign.string()}).exit_code == 0);
        CHECK(f->wacamp({"run", "--dry-run", f->campaign.string()}).exit_code == 0);
        CHECK(asked().total() == 0);
    }

    TEST_CASE("run --dry-run --check-media records the refused rows invalid, with the reason") {
        auto f = image_campaign();
        auto r = f->wacamp({"run", "--dry-run", "--check-media", f->campaign.string()});
        CAPTURE(r.out);
        CAPTURE(r.err);
        CHECK(r.exit_code == 0);
        check_asked_once_each();
        CHECK(contains(r.out, "only the image URLs were fetched"));
        CHECK(contains(r.out, "would send 5 · invalid 6"));
        auto path = f->log;
        path.replace_filename("e2e.dry-run.jsonl");
        check_reasons(invalid_rows(read_jsonl(path)));
        CHECK(send_requests(sandbox()) == 0);
    }

    TEST_CASE("--check-media on a real run is refused: the campaign file asks for it") {
        auto f = image_campaign();
        auto r = f->wacamp({"run", "--check-media", "--yes", f->campaign.string()});
        CHECK(r.exit_code == 2);
        CHECK(asked().total() == 0);
    }

    TEST_CASE("message.check_media: true checks before the first send; refused rows are never sent") {
        auto f = image_campaign("  check_media: true\n");
        const int before = send_requests(sandbox());
        auto r = f->wacamp({"run", "--yes", "--no-progress", f->campaign.string()});
        CAPTURE(r.out);
        CAPTURE(r.err);
        CHECK(r.exit_code == 0);
        check_asked_once_each();
        CHECK(contains(r.err, "wacamp: warning: checked 8 image URLs: 4 refused, 1 of unknown size"));
        CHECK(send_requests(sandbox()) - before == 5);
        check_reasons(invalid_rows(f->records()));
        CHECK(status_counts(*f)["sent"] == 5);
    }
}
