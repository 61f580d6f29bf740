#include <doctest/doctest.h>

#include <fmt/format.h>

#include "../support/scripted_server.hpp"
#include "fixtures.hpp"
#include "harness.hpp"

using e2e::run_wacamp;

namespace {

const std::string k_key = "sandbox-key";

bool mentions(const e2e::ProcessResult& r, const std::string& text) {
    return r.out.find(text) != std::string::npos || r.err.find(text) != std::string::npos;
}

}  // namespace

TEST_SUITE("e2e: templates") {
    TEST_CASE("lists the sandbox's templates as a table") {
        e2e::Sandbox sandbox;
        auto r = run_wacamp({"templates", "--base-url", sandbox.url()}, {{"WACAMP_API_KEY", k_key}});
        CHECK(r.exit_code == 0);
        CHECK(r.out.find("NAME") == 0);
        CHECK(r.out.find("appointment_update") != std::string::npos);
        CHECK(r.out.find("APPROVED") != std::string::npos);
        auto journal = sandbox.journal();
        REQUIRE(journal.size() == 1);
        CHECK(journal[0]["method"] == "GET");
        CHECK(journal[0]["path"] == "/whatsapp-automation/wa/templates");
    }
    TEST_CASE("without --campaign or --base-url the service is $WACAMP_BASE_URL") {
        e2e::Sandbox sandbox;
        auto r = run_wacamp({"templates", "--status", "APPROVED"},
                            {{"WACAMP_BASE_URL", sandbox.url()}, {"WACAMP_API_KEY", k_key}});
        CAPTURE(r.err);
        CHECK(r.exit_code == 0);
        CHECK(r.out.find("spring_sale") != std::string::npos);
        auto shown = run_wacamp({"templates", "--show", "spring_sale"},
                                {{"WACAMP_BASE_URL", sandbox.url()}, {"WACAMP_API_KEY", k_key}});
        CHECK(shown.exit_code == 0);
        CHECK(shown.out.find("message:") != std::string::npos);
    }

    TEST_CASE("a wrong path in --base-url is a wrong endpoint: exit 3, naming the URL without the key") {
        e2e::Sandbox sandbox;
        auto r = run_wacamp({"templates", "--base-url", sandbox.url() + "/api/v1"}, {{"WACAMP_API_KEY", k_key}});
        CHECK(r.exit_code == 3);
        CHECK(mentions(r, "GET " + sandbox.url() +
                              "/api/v1/whatsapp-automation/wa/templates?apiKey=*** answered "
                              "HTTP 404"));
        CHECK_FALSE(mentions(r, k_key));
        CHECK(sandbox.journal().size() == 1);  // not retried
    }
    TEST_CASE("--status filters and --json prints the service's records") {
        e2e::Sandbox sandbox;
        auto approved =
            run_wacamp({"templates", "--base-url", sandbox.url(), "--status", "APPROVED"}, {{"WACAMP_API_KEY", k_key}});
        CHECK(approved.exit_code == 0);
        CHECK(approved.out.find("PENDING") == std::string::npos);
        CHECK(approved.out.find("APPROVED") != std::string::npos);

        auto json = run_wacamp({"templates", "--base-url", sandbox.url(), "--json"}, {{"WACAMP_API_KEY", k_key}});
        CHECK(json.exit_code == 0);
        const auto records = e2e::json_lines(json.out);
        REQUIRE(records.size() >= 1);
        CHECK(records[0].contains("configuration"));
        CHECK(records[0].contains("_id"));
    }
    TEST_CASE("a wrong key exits 3, says the credentials were refused, and never shows the key") {
        e2e::Sandbox sandbox;
        const std::string wrong = "wrong-key-d41d8cd98f00";
        auto r = run_wacamp({"templates", "--base-url", sandbox.url()}, {{"WACAMP_API_KEY", wrong}});
        CHECK(r.exit_code == 3);
        CHECK(r.err.find("refused the credentials") != std::string::npos);
        CHECK_FALSE(mentions(r, wrong));
        CHECK_FALSE(e2e::read_file(sandbox.journal_path()).find(wrong) != std::string::npos);
    }
    TEST_CASE("--base-url over plain http to a host that is not loopback is refused, nothing sent") {
        auto r = run_wacamp({"templates", "--base-url", "http://api.example.com"}, {{"WACAMP_API_KEY", k_key}});
        CHECK(r.exit_code == 2);
        CHECK(r.err.find("plain http:// would send the API key unencrypted") != std::string::npos);
        CHECK(r.err.find("--allow-insecure-http") != std::string::npos);
    }
    TEST_CASE("--base-url with a password is refused without showing it") {
        const std::string password = "hunter2-e3b0c44298fc";
        auto r = run_wacamp({"templates", "--base-url", "https://admin:" + password + "@127.0.0.1:1"},
                            {{"WACAMP_API_KEY", k_key}});
        CHECK(r.exit_code == 2);
        CHECK(r.err.find("must not hold a user name or password") != std::string::npos);
        CHECK_FALSE(mentions(r, password));
    }
    TEST_CASE("an unreachable service exits 1 after the retries") {
        int port = 0;
        {
            e2e::Sandbox gone;  // learn a port that was free, then free it again
            port = gone.port();
        }
        auto r = run_wacamp({"templates", "--base-url", "http://127.0.0.1:" + std::to_string(port)},
                            {{"WACAMP_API_KEY", k_key}});
        CHECK(r.exit_code == 1);
        CHECK(r.err.find("3 attempts") != std::string::npos);
        CHECK_FALSE(mentions(r, k_key));
    }
    TEST_CASE("bad invocations exit 2 and send nothing") {
        e2e::Sandbox sandbox;
        auto nowhere = run_wacamp({"templates"}, {{"WACAMP_BASE_URL", e2e::k_unset}});
        CHECK(nowhere.exit_code == 2);
        CHECK(nowhere.err.find("WACAMP_BASE_URL") != std::string::npos);
        auto short_key = run_wacamp({"templates"}, {{"WACAMP_BASE_URL", sandbox.url()}, {"WACAMP_API_KEY", "short"}});
        CHECK(short_key.exit_code == 2);
        CHECK(short_key.err.find("shorter than 8 characters") != std::string::npos);
        CHECK(short_key.err.find("short\n") == std::string::npos);
        auto no_key = run_wacamp({"templates", "--base-url", sandbox.url()}, {{"WACAMP_API_KEY", e2e::k_unset}});
        CHECK(no_key.exit_code == 2);
        CHECK(no_key.err.find("WACAMP_API_KEY") != std::string::npos);
        CHECK(run_wacamp({"templates", "--base-url", sandbox.url(), "--campaign", "x.yaml"}).exit_code == 2);
        CHECK(sandbox.journal().empty());
    }
}

TEST_SUITE("e2e: help") {
    TEST_CASE("--help describes every command of the contract") {
        auto r = run_wacamp({"--help"});
        CHECK(r.exit_code == 0);
        for (const char* command : {"run", "resume", "validate", "templates", "delete-contacts", "report", "sandbox"}) {
            CAPTURE(command);
            CHECK(r.out.find(command) != std::string::npos);
            auto sub = run_wacamp({command, "--help"});
            CHECK(sub.exit_code == 0);
            CHECK(sub.out.find("Usage") != std::string::npos);
        }
    }
    TEST_CASE("an unknown command or option exits 2") {
        CHECK(run_wacamp({"frobnicate"}).exit_code == 2);
        CHECK(run_wacamp({"report", "x.jsonl", "--format", "pdf"}).exit_code == 2);
        CHECK(run_wacamp({}).exit_code == 2);
    }
}

namespace {

// A template record for a sandbox's --templates file: one body variable, no header.
std::string template_record(const std::string& id, const std::string& name, const std::string& category,
                            const std::string& status = "APPROVED") {
    return fmt::format(
        R"({{"_id":"{}","_user":"64b7f0c2a1e4d5f6a7b8c9d0","configuration":{{"name":"{}","category":"{}",)"
        R"("language":"en","header":"","textHeader":"","media":"","mediaHeader":{{"image":"","video":""}},)"
        R"("body":"Hi {{{{1}}}}, your order is on its way. Reply STOP to opt out of these messages.",)"
        R"("footer":"Example Shop","button":"","ctaButtonType":[],"ctaButton":[],"quickReply":[]}},)"
        R"("whatsAppId":"1092837465560000","status":"{}","namespace":"b2c4e6f8_a1b3_4c5d_8e9f_0a1b2c3d4e5f",)"
        R"("createdAt":"2024-03-04T10:12:44.305Z","updatedAt":"2024-03-05T08:27:19.846Z","__v":0}})",
        id, name, category, status);
}

// 2,000 templates (about 1.2 MB as the service lists them), the last named "order_update".
std::string many_templates() {
    std::string out = "[";
    for (int i = 0; i < 2000; ++i) {
        out += (i > 0 ? ",\n" : "") + template_record(fmt::format("66a1b2c3d4e5f6071829{:04x}", i),
                                                      i == 1999 ? "order_update" : fmt::format("filler_{:04}", i),
                                                      "UTILITY");
    }
    return out + "]";
}

const std::string k_order_update_yaml =
    "message:\n  type: template\n  template: order_update\n  body: [\"{{name}}\"]\n";

}  // namespace

TEST_SUITE("e2e: a large template list") {
    TEST_CASE("templates lists 2,000 templates, as a table and as one JSON line each") {
        e2e::TempDir dir;
        e2e::Sandbox sandbox({"--templates", dir.write("templates.json", many_templates()).string()});
        auto table = run_wacamp({"templates", "--base-url", sandbox.url()}, {{"WACAMP_API_KEY", k_key}});
        CAPTURE(table.err);
        CHECK(table.exit_code == 0);
        CHECK(std::count(table.out.begin(), table.out.end(), '\n') == 2001);  // the heading and each template
        CHECK(table.out.find("order_update") != std::string::npos);
        auto json = run_wacamp({"templates", "--base-url", sandbox.url(), "--json"}, {{"WACAMP_API_KEY", k_key}});
        CAPTURE(json.err);
        CHECK(json.exit_code == 0);
        const auto records = e2e::json_lines(json.out);
        REQUIRE(records.size() == 2000);
        CHECK(records[1999]["configuration"]["name"] == "order_update");
        CHECK(json.out.find("\n ") == std::string::npos);  // compact: no indentation
    }
    TEST_CASE("a template campaign checks, dry-runs and runs against a list of 2,000 templates") {
        e2e::TempDir dir;
        e2e::Sandbox sandbox({"--templates", dir.write("templates.json", many_templates()).string()});
        e2e::CampaignFixture f(sandbox, e2e::numbers_csv(3), "", k_order_update_yaml);
        auto validated = f.wacamp({"validate", f.campaign.string()});
        CAPTURE(validated.err);
        CHECK(validated.exit_code == 0);
        CHECK(mentions(validated, "APPROVED"));
        auto dry = f.wacamp({"run", f.campaign.string(), "--dry-run"});
        CAPTURE(dry.err);
        CHECK(dry.exit_code == 0);
        auto run = f.wacamp({"run", f.campaign.string(), "--no-progress"});
        CAPTURE(run.err);
        CHECK(run.exit_code == 0);
        int sent = 0;
        for (const auto& j : sandbox.journal()) {
            if (j.value("path", "") == "/whatsapp-automation/wa/send-template") {
                sent += j.value("outcome", "") == "ok" ? 1 : 0;
            }
        }
        CHECK(sent == 3);
    }
    TEST_CASE(
        "two records of one name and language: refused naming both, unless one alone is APPROVED or "
        "message.template_id picks one") {
        const std::string marketing = "65f0a1b2c3d4e5f6a7b8c901";
        const std::string utility = "65f0a1b2c3d4e5f6a7b8c902";
        for (const std::string status : {"APPROVED", "PAUSED"}) {
            CAPTURE(status);
            e2e::TempDir dir;
            e2e::Sandbox sandbox(
                {"--templates",
                 dir.write("templates.json", "[" + template_record(marketing, "order_update", "MARKETING") + "," +
                                                 template_record(utility, "order_update", "UTILITY", status) + "]")
                     .string()});
            e2e::CampaignFixture f(sandbox, e2e::numbers_csv(2), "", k_order_update_yaml);
            auto checked = f.wacamp({"validate", f.campaign.string()});
            CAPTURE(checked.err);
            if (status == "APPROVED") {
                CHECK(checked.exit_code == 2);
                CHECK(mentions(checked,
                               "_id " + marketing + " (APPROVED, MARKETING), _id " + utility + " (APPROVED, UTILITY)"));
                CHECK(mentions(checked, "message.template_id"));
            } else {
                CHECK(checked.exit_code == 0);
                CHECK(mentions(checked, "using _id " + marketing + ", the only one APPROVED"));
            }
            e2e::CampaignFixture picked(sandbox, e2e::numbers_csv(2), "",
                                        k_order_update_yaml + "  template_id: " + marketing + "\n");
            auto run = picked.wacamp({"run", picked.campaign.string(), "--no-progress"});
            CAPTURE(run.err);
            CHECK(run.exit_code == 0);
        }
    }
    TEST_CASE("templates --json of an answer nested 3,000 deep exits 3 at once, saying so, printing nothing") {
        const std::string deep = std::string(3000, '[') + std::string(3000, ']');
        test_support::ScriptedServer server([&](const test_support::ReceivedRequest&) {
            return test_support::answer(200, R"({"success":true,"data":[)" + deep + "]}");
        });
        for (const auto& extra : {std::vector<std::string>{"--json"}, std::vector<std::string>{}}) {
            std::vector<std::string> args = {"templates", "--base-url", server.url()};
            args.insert(args.end(), extra.begin(), extra.end());
            auto r = run_wacamp(args, {{"WACAMP_API_KEY", k_key}});
            CHECK(r.exit_code == 3);
            CHECK(r.out.empty());
            CHECK(r.err.size() < 1000);
            CHECK(mentions(r, "nests deeper than 64 levels"));
        }
    }
}
