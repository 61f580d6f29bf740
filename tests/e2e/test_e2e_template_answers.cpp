// Meta's answers to template sends, end to end: the sandbox answers chosen numbers with each
// template code (--meta-error, --paused-template), and wacamp stops, fails, retries or explains as
// the result log's causes say; the template list that cannot be read; header media checked before
// sending.

#include <doctest/doctest.h>
#include <fmt/format.h>

#include <map>

#include "../support/scripted_server.hpp"
#include "fixtures.hpp"

using namespace e2e;
using nlohmann::json;

namespace {

const std::string k_send_template = "/whatsapp-automation/wa/send-template";
const std::string k_thank_you = "message:\n  type: template\n  template: thank_you\n";  // no variables
// One request at a time, in the list's order: the rows after a stop are never asked.
const std::string k_one_at_a_time = "rate: {per_second: 20, concurrency: 1}\n";

// `--meta-error` for row `i` of numbers_csv: answered `code` ("132000", "132005x1").
std::vector<std::string> meta_error(int i, const std::string& code) {
    return {"--meta-error", numbers_wa_id(i) + "=" + code};
}

// The answers of the sandbox every case of this file shares: numbers_wa_id(i) answered `code`.
std::vector<std::string> answer_rules() {
    std::vector<std::string> args;
    const auto add = [&](int i, const std::string& code) {
        const auto rule = meta_error(i, code);
        args.insert(args.end(), rule.begin(), rule.end());
    };
    add(1, "132000");
    add(11, "132001");
    add(21, "132007");
    add(30, "132005x1");
    add(31, "132012x1");
    add(32, "132018x1");
    for (int i = 40; i < 50; ++i) {
        add(i, "132018");
    }
    add(61, "132016");
    add(71, "130472");
    add(81, "368");
    return args;
}

// The sandbox every case of this file shares (one account; each case has its own numbers and its
// own ledger).
const Sandbox& sandbox() {
    static const Sandbox s(answer_rules());
    return s;
}

// The send-template requests the sandbox journaled for `wa_id`, whatever their answer.
int template_requests_for(const Sandbox& s, const std::string& wa_id) {
    int n = 0;
    for (const auto& j : s.journal()) {
        n += j.value("path", "") == k_send_template && j.value("wa_id", "") == wa_id ? 1 : 0;
    }
    return n;
}

// How many "ok" send-template answers `s` journaled per wa_id.
std::map<std::string, int> delivered_templates(const Sandbox& s) {
    std::map<std::string, int> out;
    for (const auto& j : s.journal()) {
        if (j.value("path", "") == k_send_template && j.value("outcome", "") == "ok") {
            ++out[j.value("wa_id", "")];
        }
    }
    return out;
}

// The "end" record of the log's last run; null when there is none.
json end_of(const CampaignFixture& f) {
    json out;
    for (const auto& r : f.records()) {
        if (r.value("event", "") == "end") {
            out = r;
        }
    }
    return out;
}

// Checks that row `row`'s last result is `status` with `cause` and Meta's `code`.
void check_result(const CampaignFixture& f, long long row, const std::string& status, const std::string& cause,
                  int code) {
    CAPTURE(row);
    const json r = result_of(f, row);
    REQUIRE_FALSE(r.is_null());
    CHECK(r["status"] == status);
    CHECK(r.value("cause", "") == cause);
    CHECK(r.value("error_code", 0) == code);
}

}  // namespace

TEST_SUITE("e2e: template answers") {
    TEST_CASE("132000, 132001 and 132007 stop the run at once: exit 3, reason template, the row's cause template") {
        for (const auto& [first, code] : std::vector<std::pair<int, int>>{{0, 132000}, {10, 132001}, {20, 132007}}) {
            CAPTURE(code);
            CampaignFixture f(sandbox(), numbers_csv(5, first), k_one_at_a_time, k_thank_you);
            auto r = f.wacamp({"run", f.campaign.string(), "--no-progress"});
            CAPTURE(r.out);
            CAPTURE(r.err);
            CHECK(r.exit_code == 3);
            CHECK(end_of(f)["reason"] == "template");
            CHECK(result_of(f, 1)["status"] == "sent");
            check_result(f, 2, "failed", "template", code);
            for (int i = first + 2; i < first + 5; ++i) {
                CHECK(template_requests_for(sandbox(), numbers_wa_id(i)) == 0);  // nothing after the stop
            }
            CHECK(contains(r.err, "WhatsApp refused the template"));
        }
    }

    TEST_CASE("132005, 132012 and 132018 fail that row alone, cause template_params; only --retry-failed resends") {
        CampaignFixture f(sandbox(), numbers_csv(6, 30), k_one_at_a_time, k_thank_you);
        auto r = f.wacamp({"run", f.campaign.string(), "--no-progress"});
        CAPTURE(r.out);
        CAPTURE(r.err);
        CHECK(r.exit_code == 1);
        CHECK(end_of(f)["reason"] == "completed");
        check_result(f, 1, "failed", "template_params", 132005);
        check_result(f, 2, "failed", "template_params", 132012);
        check_result(f, 3, "failed", "template_params", 132018);
        for (long long row = 4; row <= 6; ++row) {
            CHECK(result_of(f, row)["status"] == "sent");
        }

        auto resumed = f.wacamp({"resume", f.log.string(), "--no-progress"});
        CAPTURE(resumed.err);
        CHECK(resumed.exit_code == 1);
        auto retried = f.wacamp({"resume", f.log.string(), "--retry-failed", "--no-progress"});
        CAPTURE(retried.err);
        CHECK(retried.exit_code == 0);
        for (int i = 30; i < 33; ++i) {
            CHECK(template_requests_for(sandbox(), numbers_wa_id(i)) == 2);  // the first run and --retry-failed
        }
        CHECK(status_counts(f) == std::map<std::string, int>{{"sent", 6}});
    }

    TEST_CASE("ten template_params answers in a row stop the run: exit 3, reason template") {
        CampaignFixture f(sandbox(), numbers_csv(14, 40), k_one_at_a_time, k_thank_you);
        auto r = f.wacamp({"run", f.campaign.string(), "--no-progress"});
        CAPTURE(r.out);
        CAPTURE(r.err);
        CHECK(r.exit_code == 3);
        CHECK(end_of(f)["reason"] == "template");
        for (long long row = 1; row <= 10; ++row) {
            check_result(f, row, "failed", "template_params", 132018);
        }
        for (int i = 50; i < 54; ++i) {
            CHECK(template_requests_for(sandbox(), numbers_wa_id(i)) == 0);
        }
        CHECK(contains(r.err, "the template refused the values of the last 10 rows"));
    }

    TEST_CASE("132016 stops the run: exit 3, reason template_disabled, a new template is needed") {
        CampaignFixture f(sandbox(), numbers_csv(4, 60), k_one_at_a_time, k_thank_you);
        auto r = f.wacamp({"run", f.campaign.string(), "--no-progress"});
        CAPTURE(r.out);
        CAPTURE(r.err);
        CHECK(r.exit_code == 3);
        CHECK(end_of(f)["reason"] == "template_disabled");
        CHECK(result_of(f, 1)["status"] == "sent");
        check_result(f, 2, "failed", "template_disabled", 132016);
        CHECK(template_requests_for(sandbox(), numbers_wa_id(62)) == 0);
        CHECK(contains(r.err, "a new template is needed"));
    }

    TEST_CASE("130472 fails the row, cause experiment: never retried, not even with --retry-failed, never suppressed") {
        CampaignFixture f(sandbox(), numbers_csv(3, 70), k_one_at_a_time, k_thank_you);
        auto r = f.wacamp({"run", f.campaign.string(), "--no-progress"});
        CAPTURE(r.out);
        CAPTURE(r.err);
        CHECK(r.exit_code == 1);
        check_result(f, 2, "failed", "experiment", 130472);
        CHECK(result_of(f, 1)["status"] == "sent");
        CHECK(result_of(f, 3)["status"] == "sent");

        auto retried = f.wacamp({"resume", f.log.string(), "--retry-failed", "--no-progress"});
        CAPTURE(retried.err);
        CHECK(retried.exit_code == 1);
        CHECK(template_requests_for(sandbox(), numbers_wa_id(71)) == 1);
        auto listed = f.wacamp({"suppress", "list", "--campaign", f.campaign.string()});
        CHECK(listed.exit_code == 0);
        CHECK_FALSE(contains(listed.out, numbers_wa_id(71)));
    }

    TEST_CASE("368 stops the run as a policy block: exit 3, reason policy_block, not a credentials problem") {
        CampaignFixture f(sandbox(), numbers_csv(4, 80), k_one_at_a_time, k_thank_you);
        auto r = f.wacamp({"run", f.campaign.string(), "--no-progress"});
        CAPTURE(r.out);
        CAPTURE(r.err);
        CHECK(r.exit_code == 3);
        CHECK(end_of(f)["reason"] == "policy_block");
        check_result(f, 2, "failed", "policy_block", 368);
        CHECK(template_requests_for(sandbox(), numbers_wa_id(82)) == 0);
        CHECK(contains(r.err, "temporarily blocked the account for a policy violation"));
        CHECK_FALSE(contains(r.err, "service.api_key"));
        CHECK_FALSE(contains(r.err, "refused the credentials"));
    }

    TEST_CASE("132015 stops the run, reason template_paused; once the pause is lifted resume sends every row once") {
        const int n = 8;
        std::map<std::string, int> paused_delivered;
        CampaignFixture f(sandbox(), numbers_csv(n, 100), k_one_at_a_time, k_thank_you);
        {
            Sandbox paused({"--paused-template", "thank_you"});
            auto on_paused = f.env;
            on_paused["WACAMP_BASE_URL"] = paused.url();
            auto r = run_wacamp({"run", f.campaign.string(), "--no-progress"}, on_paused);
            CAPTURE(r.out);
            CAPTURE(r.err);
            CHECK(r.exit_code == 3);
            CHECK(end_of(f)["reason"] == "template_paused");
            check_result(f, 1, "failed", "template_paused", 132015);
            CHECK(contains(r.err, "once the pause is lifted, continue"));
            CHECK(contains(r.err + r.out, "wacamp resume " + f.log.string()));
            paused_delivered = delivered_templates(paused);
        }
        CHECK(paused_delivered.empty());

        // The pause lifted: the sandbox of this file serves thank_you again.
        auto resumed = f.wacamp({"resume", f.log.string(), "--no-progress"});
        CAPTURE(resumed.err);
        CHECK(resumed.exit_code == 0);
        CHECK(end_of(f)["reason"] == "completed");
        CHECK(status_counts(f) == std::map<std::string, int>{{"sent", n}});
        const auto delivered = delivered_templates(sandbox());
        for (int i = 100; i < 100 + n; ++i) {
            CAPTURE(i);
            CHECK(template_requests_for(sandbox(), numbers_wa_id(i)) == 1);
            CHECK(delivered.count(numbers_wa_id(i)) == 1);
            CHECK(delivered.at(numbers_wa_id(i)) == 1);
        }
    }
}

namespace {

// A template list that cannot be read as one: the service answers `status` with `body`.
test_support::ScriptedServer list_server(int status, const std::string& body) {
    return test_support::ScriptedServer(
        [=](const test_support::ReceivedRequest&) { return test_support::answer(status, body, "text/html"); });
}

}  // namespace

TEST_SUITE("e2e: template list") {
    TEST_CASE("a template list that cannot be read exits 3 for validate, the dry run and run, saying why") {
        CampaignFixture f(sandbox(), numbers_csv(2, 120), "", k_thank_you);
        const auto broken = list_server(503, "<html>down for maintenance</html>");
        const auto garbled = list_server(200, "<html>not a list</html>");
        const std::string closed = "http://127.0.0.1:" + std::to_string(free_port());
        for (const auto& [base_url, said] : std::vector<std::pair<std::string, std::string>>{
                 {closed, "could not be read from " + closed},
                 {broken.url(), "503"},
                 {garbled.url(), "could not be read from " + garbled.url()}}) {
            auto env = f.env;
            env["WACAMP_BASE_URL"] = base_url;
            for (const std::vector<std::string>& args :
                 {std::vector<std::string>{"validate", f.campaign.string()},
                  std::vector<std::string>{"run", f.campaign.string(), "--dry-run"},
                  std::vector<std::string>{"run", f.campaign.string(), "--no-progress"}}) {
                CAPTURE(base_url);
                CAPTURE(args[1]);
                auto r = run_wacamp(args, env);
                CAPTURE(r.err);
                CHECK(r.exit_code == 3);
                CHECK(contains(r.err, "template \"thank_you\" could not be checked"));
                CHECK(contains(r.err, said));
                CHECK(contains(r.err, "nothing was sent"));
            }
        }
        CHECK(template_requests_for(sandbox(), numbers_wa_id(120)) == 0);
    }

    TEST_CASE("a refused key exits 3; a template that does not fit stays exit 2") {
        CampaignFixture f(sandbox(), numbers_csv(2, 130), "", k_thank_you);
        auto wrong_key = f.env;
        wrong_key["WACAMP_API_KEY"] = "not-the-sandbox-key";
        for (const std::vector<std::string>& args : {std::vector<std::string>{"validate", f.campaign.string()},
                                                     std::vector<std::string>{"run", f.campaign.string(), "--dry-run"},
                                                     std::vector<std::string>{"run", f.campaign.string()}}) {
            CAPTURE(args[1]);
            auto refused = run_wacamp(args, wrong_key);
            CAPTURE(refused.err);
            CHECK(refused.exit_code == 3);
            CHECK(contains(refused.err, "refused the credentials"));
        }
        edit_campaign(f, "template: thank_you", "template: autumn_sale");
        for (const std::vector<std::string>& args :
             {std::vector<std::string>{"validate", f.campaign.string()},
              std::vector<std::string>{"run", f.campaign.string(), "--dry-run"}}) {
            auto mismatch = f.wacamp(args);
            CAPTURE(mismatch.err);
            CHECK(mismatch.exit_code == 2);
            CHECK(contains(mismatch.err, "no template \"autumn_sale\""));
        }
        CHECK(template_requests_for(sandbox(), numbers_wa_id(130)) == 0);
    }
}

namespace {

// A template with a video header and one body variable, for a sandbox's --templates file.
const std::string k_video_template = R"json([{
  "_id": "66a1b2c3d4e5f60718293a4b",
  "_user": "64b7f0c2a1e4d5f6a7b8c9d0",
  "configuration": {
    "name": "spring_clip",
    "category": "MARKETING",
    "language": "en",
    "header": "video",
    "textHeader": "",
    "media": "https://cdn.example.com/sandbox/spring.mp4",
    "mediaHeader": {"image": "", "video": "https://cdn.example.com/sandbox/spring.mp4"},
    "body": "Hi {{1}}, see what is new this spring.",
    "footer": "",
    "button": "",
    "ctaButtonType": [],
    "ctaButton": [],
    "quickReply": []
  },
  "whatsAppId": "1092837465569999",
  "status": "APPROVED",
  "namespace": "b2c4e6f8_a1b3_4c5d_8e9f_0a1b2c3d4e5f",
  "createdAt": "2024-03-04T10:12:44.305Z",
  "updatedAt": "2024-03-05T08:27:19.846Z",
  "__v": 0
}])json";

// A video host: HEAD (or GET) of /clip.mp4 is an MP4 of 1,000 bytes, /big.mp4 one byte over
// WhatsApp's 16,000,000, /clip.mov a QuickTime video; anything else 404.
test_support::Reply video_host(const test_support::ReceivedRequest& r) {
    const std::string path = test_support::path_of(r);
    const auto video = [](const std::string& type, long long size) {
        return test_support::Reply{
            test_support::Reply::Kind::answer,
            "HTTP/1.1 200 OK\r\nContent-Type: " + type + "\r\nContent-Length: " + std::to_string(size) + "\r\n\r\n"};
    };
    if (path == "/clip.mp4") {
        return video("video/mp4", 1000);
    }
    if (path == "/big.mp4") {
        return video("video/mp4", 16'000'001);
    }
    if (path == "/clip.mov") {
        return video("video/quicktime", 1000);
    }
    return {test_support::Reply::Kind::answer, "HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\n\r\n"};
}

}  // namespace

TEST_SUITE("e2e: template header media") {
    TEST_CASE("check_media checks a video header: refused videos make their rows invalid, the rest are sent") {
        TempDir dir;
        Sandbox videos({"--templates", dir.write("templates.json", k_video_template).string()});
        test_support::ScriptedServer host(video_host);
        const std::vector<std::string> clips = {"clip.mp4", "big.mp4", "clip.mov", "clip.mp4"};
        std::string csv = "phone,name,user_id,clip\n";
        for (std::size_t i = 0; i < clips.size(); ++i) {
            csv += fmt::format("+{},Person {},u-{},{}/{}\n", numbers_wa_id(static_cast<int>(i)), i, i, host.url(),
                               clips[i]);
        }
        CampaignFixture f(videos, csv, "",
                          "message:\n  type: template\n  template: spring_clip\n"
                          "  header: {video: \"{{clip}}\"}\n  body: [\"{{name}}\"]\n");

        auto dry = f.wacamp({"run", f.campaign.string(), "--dry-run", "--check-media"});
        CAPTURE(dry.out);
        CAPTURE(dry.err);
        CHECK(contains(dry.err + dry.out, "checked 3 video URLs: 2 refused"));
        CHECK(template_requests_for(videos, numbers_wa_id(0)) == 0);

        edit_campaign(f, "  body:", "  check_media: true\n  body:");
        auto r = f.wacamp({"run", f.campaign.string(), "--no-progress"});
        CAPTURE(r.out);
        CAPTURE(r.err);
        CHECK(r.exit_code == 0);
        CHECK(contains(r.err + r.out, "checked 3 video URLs: 2 refused"));
        CHECK(result_of(f, 1)["status"] == "sent");
        CHECK(result_of(f, 4)["status"] == "sent");
        CHECK(result_of(f, 2)["status"] == "invalid");
        CHECK(result_of(f, 2).value("error", "") ==
              "header media " + host.url() + "/big.mp4: 16000001 bytes; WhatsApp takes at most 16000000");
        CHECK(result_of(f, 3)["status"] == "invalid");
        CHECK(result_of(f, 3).value("error", "") ==
              "header media " + host.url() +
                  "/clip.mov: content type video/quicktime; WhatsApp takes video/mp4 or video/3gpp");
        CHECK(delivered_templates(videos) == std::map<std::string, int>{{numbers_wa_id(0), 1}, {numbers_wa_id(3), 1}});
    }
}
