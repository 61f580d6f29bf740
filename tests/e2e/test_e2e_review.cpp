// A dry run a person can review: content rules, the rendered message in every record, the
// reports of a dry-run log, --preview.
#include <doctest/doctest.h>

#include "fixtures.hpp"

using namespace e2e;

namespace {

std::string repeat(std::string_view piece, std::size_t times) {
    std::string out;
    for (std::size_t i = 0; i < times; ++i) {
        out += piece;
    }
    return out;
}

// Rows 1–5: a short text, exactly 4,096 characters (in 2-byte letters), 4,097, a text that
// renders empty, and one whose {{when}} falls back to its (empty) default.
std::string text_rules_csv() {
    return "phone,name,user_id,body,when\n"
           "+919812300001,Asha,u1,hello,monday\n"
           "+919812300002,Ravi,u2," +
           repeat("\xc3\xa9", 4095) +
           ",x\n"
           "+919812300003,Mina,u3," +
           repeat("\xc3\xa9", 4096) +
           ",x\n"
           "+919812300004,Zoe,u4,,\n"
           "+919812300005,Ali,u5,hi,\n";
}

const std::string k_text_message = "message:\n  type: text\n  text: \"{{body|}}{{when|}}\"\n";

std::string image_csv() {
    return "phone,name,user_id,image,caption\n"
           "+919812300001,Asha,u1,https://cdn.example.com/a.png,short\n"
           "+919812300002,Ravi,u2,not a url,short\n"
           "+919812300003,Mina,u3,https://cdn.example.com/b.png," +
           repeat("x", 1025) +
           "\n"
           "+919812300004,Zoe,u4,https://cdn.example.com/c.png,=HYPERLINK(\"http://evil\")\n";
}

const std::string k_image_message =
    "message:\n  type: image\n  source: \"{{image}}\"\n  label: \"{{caption|For you}}\"\n";

}  // namespace

TEST_SUITE("e2e: review") {
    TEST_CASE("content rules: validate, the dry run and run refuse the same rows, naming the limit") {
        Sandbox sandbox;
        CampaignFixture f(sandbox, text_rules_csv(), "", k_text_message);

        auto v = f.wacamp({"validate", f.campaign.string(), "--rows"});
        CHECK(v.exit_code == 0);
        CHECK(contains(v.out, "row 3: message.text renders to 4097 characters, over WhatsApp's limit of 4096"));
        CHECK(contains(v.out, "row 4: message.text is empty after rendering"));
        CHECK_FALSE(contains(v.out, "row 2:"));
        CHECK(contains(v.out, "5 rows: 3 to send, 2 invalid"));

        auto d = f.wacamp({"run", f.campaign.string(), "--dry-run"});
        CHECK(d.exit_code == 0);
        CHECK(contains(d.out, "would send 3"));
        const auto dry = read_jsonl(f.dir.path() / "results" / "e2e.dry-run.jsonl");
        REQUIRE(dry.size() == 7);
        CHECK(dry[1]["message"] == nlohmann::json{{"text", "hellomonday"}});
        CHECK_FALSE(dry[1].contains("defaults"));
        CHECK(dry[3]["status"] == "invalid");
        CHECK(dry[3]["message"]["text"].get<std::string>().size() == 2 * 4096 + 1);  // kept for review
        CHECK(dry[4]["status"] == "invalid");
        CHECK(dry[4]["message"] == nlohmann::json{{"text", ""}});
        CHECK(dry[4]["defaults"] == nlohmann::json::array({"body", "when"}));
        CHECK(dry[5]["message"] == nlohmann::json{{"text", "hi"}});
        CHECK(dry[5]["defaults"] == nlohmann::json::array({"when"}));

        auto r = f.wacamp({"run", f.campaign.string(), "--yes"});
        CHECK(r.exit_code == 0);
        CHECK(send_requests(sandbox) == 3);
        const auto status = f.final_status();
        CHECK(status.at(2) == "sent");
        CHECK(status.at(3) == "invalid");
        CHECK(status.at(4) == "invalid");
    }

    TEST_CASE("an image campaign: a source that is no URL and a caption over 1,024 are invalid") {
        Sandbox sandbox;
        CampaignFixture f(sandbox, image_csv(), "", k_image_message);
        auto d = f.wacamp({"run", f.campaign.string(), "--dry-run", "--preview", "1"});
        CHECK(d.exit_code == 0);
        CHECK(contains(d.out, "would send 2"));
        CHECK(
            contains(d.out, "row 2: message.source renders to \"not a url\", not an absolute http:// or https:// URL"));
        CHECK(contains(d.out, "row 3: message.label renders to 1025 characters, over WhatsApp's limit of 1024"));
        CHECK(contains(d.out, "row 1 → 919812300001"));
        CHECK_FALSE(contains(d.out, "row 4 → "));  // --preview 1
        const auto dry = read_jsonl(f.dir.path() / "results" / "e2e.dry-run.jsonl");
        REQUIRE(dry.size() == 6);
        CHECK(dry[1]["message"] == nlohmann::json{{"label", "short"}, {"source", "https://cdn.example.com/a.png"}});
        CHECK(dry[2]["message"]["source"] == "not a url");
        CHECK(dry[2]["error"].get<std::string>().find("message.source") != std::string::npos);
    }

    TEST_CASE("report on a dry-run log: CSV columns for a spreadsheet, formula-safe; text and HTML show messages") {
        Sandbox sandbox;
        CampaignFixture f(sandbox, image_csv(), "", k_image_message);
        REQUIRE(f.wacamp({"run", f.campaign.string(), "--dry-run"}).exit_code == 0);
        const auto dry_log = (f.dir.path() / "results" / "e2e.dry-run.jsonl").string();

        auto csv = run_wacamp({"report", dry_log, "--format", "csv"});
        REQUIRE(csv.exit_code == 0);
        CHECK(csv.out.starts_with(
            "row,wa_id,user_name,status,attempts,http_status,message_id,cause,error_code,error,at,price,"
            "caption,source,defaults\n"));
        CHECK(contains(csv.out, ",short,https://cdn.example.com/a.png,\n"));
        CHECK(contains(csv.out, "\"'=HYPERLINK(\"\"http://evil\"\")\",https://cdn.example.com/c.png"));

        auto text = run_wacamp({"report", dry_log});
        REQUIRE(text.exit_code == 0);
        CHECK(contains(text.out, "Messages"));
        CHECK(contains(text.out, "longest"));
        CHECK(contains(text.out, "row 3 (1,025)"));

        auto html = run_wacamp({"report", dry_log, "--format", "html"});
        REQUIRE(html.exit_code == 0);
        CHECK(contains(html.out, "<section id=\"messages\">"));
        CHECK(contains(html.out, "=HYPERLINK(&quot;http://evil&quot;)"));
        CHECK_FALSE(contains(html.out, "<img"));
    }

    TEST_CASE("the text report and HTML count the placeholders that fell back to their default") {
        Sandbox sandbox;
        CampaignFixture f(sandbox, text_rules_csv(), "", k_text_message);
        REQUIRE(f.wacamp({"run", f.campaign.string(), "--dry-run"}).exit_code == 0);
        const auto dry_log = (f.dir.path() / "results" / "e2e.dry-run.jsonl").string();
        auto text = run_wacamp({"report", dry_log});
        CHECK(contains(text.out, "{{when}} 2"));  // rows 4 (invalid: empty) and 5
        auto csv = run_wacamp({"report", dry_log, "--format", "csv"});
        CHECK(csv.out.starts_with(
            "row,wa_id,user_name,status,attempts,http_status,message_id,cause,error_code,error,at,price,"
            "text,defaults\n"));
        CHECK(contains(csv.out, ",hi,when\n"));
        auto json = run_wacamp({"report", dry_log, "--format", "json"});
        const auto summary = nlohmann::json::parse(json.out);
        CHECK(summary["messages"]["rendered"] == 5);
        CHECK(summary["messages"]["defaults"]["when"] == 2);
        CHECK(summary["messages"]["longest"][0]["row"] == 3);
        auto html = run_wacamp({"report", dry_log, "--format", "html"});
        CHECK(contains(html.out, "<code>{{when}}</code>"));
    }

    TEST_CASE("--preview N prints N messages; without --dry-run it is refused") {
        Sandbox sandbox;
        CampaignFixture f(sandbox, numbers_csv(8));
        auto d = f.wacamp({"run", f.campaign.string(), "--dry-run", "--preview", "5"});
        CHECK(d.exit_code == 0);
        CHECK(contains(d.out, "\"text\":\"Hi Person 4\""));
        CHECK_FALSE(contains(d.out, "\"text\":\"Hi Person 5\""));
        auto none = f.wacamp({"run", f.campaign.string(), "--dry-run", "--preview", "0"});
        CHECK_FALSE(contains(none.out, "\"text\":\"Hi Person 0\""));
        auto refused = f.wacamp({"run", f.campaign.string(), "--preview", "5", "--yes"});
        CHECK(refused.exit_code == 2);
        CHECK(send_requests(sandbox) == 0);
        CHECK(f.wacamp({"run", f.campaign.string(), "--dry-run", "--preview", "1001"}).exit_code == 2);
    }
}
