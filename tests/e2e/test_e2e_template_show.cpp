// From template to campaign in one step: `templates --show` prints a template as a phone shows
// it and the message: block a campaign needs for it; a campaign made from that block passes the
// check against the template, and its dry run shows what each person will read.
#include <doctest/doctest.h>

#include "fixtures.hpp"

using namespace e2e;

namespace {

const EnvOverrides k_key_env = {{"WACAMP_API_KEY", k_api_key}};

// The message: block --show printed: from "message:" to the end of the output.
std::string message_block(const std::string& out) {
    const auto at = out.find("message:\n");
    return at == std::string::npos ? std::string() : out.substr(at);
}

// How many requests the sandbox received that could send a message (any POST).
int posts(const Sandbox& sandbox) {
    int n = 0;
    for (const auto& entry : sandbox.journal()) {
        n += entry.value("method", "") == "POST" ? 1 : 0;
    }
    return n;
}

}  // namespace

TEST_SUITE("e2e: template show") {
    TEST_CASE("--show draws the template as a phone shows it and gives the campaign's message block") {
        Sandbox sandbox;
        auto r = run_wacamp({"templates", "--base-url", sandbox.url(), "--show", "appointment_update"}, k_key_env);
        CAPTURE(r.out);
        CAPTURE(r.err);
        REQUIRE(r.exit_code == 0);
        CHECK(contains(r.out, "appointment_update (en) · APPOINTMENT_UPDATE · APPROVED\n"));
        CHECK(contains(r.out, "  │ Appointment update\n  │ Hi {{1}},\n  │ your appointment is confirmed for {{2}}.\n"));
        CHECK(contains(r.out, "  │ Sent by the sandbox\n"));
        CHECK(message_block(r.out) ==
              "message:\n  type: template\n  template: appointment_update\n  language: en\n"
              "  body: [\"{{var1}}\", \"{{var2}}\"]\n");

        auto json =
            run_wacamp({"templates", "--base-url", sandbox.url(), "--show", "appointment_update", "--json"}, k_key_env);
        REQUIRE(json.exit_code == 0);
        const auto j = nlohmann::json::parse(json.out);
        CHECK(j["message"]["body"] == nlohmann::json::array({"{{var1}}", "{{var2}}"}));
        CHECK(j["id"] == "65a1c3e9f2b4d6a8c0e1f203");

        auto missing = run_wacamp({"templates", "--base-url", sandbox.url(), "--show", "nope"}, k_key_env);
        CHECK(missing.exit_code == 2);
        CHECK(contains(missing.err, "the account has no template \"nope\""));
    }

    TEST_CASE("a campaign made from the block passes the check, and its dry run shows each person's message") {
        Sandbox sandbox;
        auto shown = run_wacamp({"templates", "--base-url", sandbox.url(), "--show", "appointment_update"}, k_key_env);
        REQUIRE(shown.exit_code == 0);
        const std::string csv =
            "phone,name,user_id,var1,var2\n+919812300000,Asha,u1,Asha,Monday 10:00\n"
            "+919812300001,Ravi,u2,Ravi,Tuesday 11:30\n";
        CampaignFixture f(sandbox, csv, "", message_block(shown.out));
        auto valid = f.wacamp({"validate", f.campaign.string()});
        CAPTURE(valid.out);
        CAPTURE(valid.err);
        CHECK(valid.exit_code == 0);
        CHECK(contains(valid.err, "template \"appointment_update\" (APPOINTMENT_UPDATE, en): APPROVED"));

        auto dry = f.wacamp({"run", f.campaign.string(), "--dry-run", "--no-progress"});
        CAPTURE(dry.out);
        REQUIRE(dry.exit_code == 0);
        CHECK(contains(dry.out,
                       "  │ Appointment update\n  │ Hi Asha,\n  │ your appointment is confirmed for Monday 10:00.\n"
                       "  │ Reply STOP to opt out.\n  │ Sent by the sandbox\n"));
        CHECK(contains(dry.out, R"("templateId":"65a1c3e9f2b4d6a8c0e1f203")"));
        // The dry-run log keeps what each person will read, and the report shows it.
        const auto dry_log = (f.log.parent_path() / f.log.stem()).string() + ".dry-run.jsonl";
        const auto records = read_jsonl(dry_log);
        REQUIRE(records.size() >= 2);
        CHECK(records[1]["message"].is_array());
        CHECK(records[1]["preview"]["header"] == "Appointment update");
        CHECK(records[1]["preview"]["body"] ==
              "Hi Asha,\nyour appointment is confirmed for Monday 10:00.\nReply STOP to opt out.");
        CHECK(records[1]["preview"]["footer"] == "Sent by the sandbox");
        CHECK(posts(sandbox) == 0);

        // --offline: no request at all, and it says so.
        const auto before = sandbox.journal().size();
        auto offline = f.wacamp({"validate", f.campaign.string(), "--offline"});
        CHECK(offline.exit_code == 0);
        CHECK(contains(offline.err, "not checked (--offline)"));
        CHECK(sandbox.journal().size() == before);
    }

    TEST_CASE("a campaign that does not fit its template is refused before anything is sent") {
        Sandbox sandbox;
        const std::string csv = "phone,name,user_id\n+919812300000,Asha,u1\n";
        CampaignFixture f(sandbox, csv, "",
                          "message:\n  type: template\n  template: appointment_update\n  body: [\"{{name}}\"]\n");
        auto r = f.wacamp({"run", f.campaign.string(), "--no-progress"});
        CAPTURE(r.err);
        CHECK(r.exit_code == 2);
        CHECK(contains(r.err,
                       "template \"appointment_update\" (en)'s body takes 2 variables ({{1}}, {{2}}); "
                       "message.body gives 1 value; nothing was sent"));
        CHECK(posts(sandbox) == 0);
    }
}
