// The dry run of a template campaign shows what each person will read: for every APPROVED template
// of the sandbox, the dry-run log's `message` (the params array as it would be sent) and `preview`
// equal texts written here by hand, --preview draws them as a phone shows them, and the reports of
// the log (csv, text, html) show the preview.
#include <doctest/doctest.h>
#include <fmt/format.h>

#include "fixtures.hpp"

using namespace e2e;
using nlohmann::json;

namespace {

// Two people: Asha (row 1) and Ravi (row 2).
const std::string k_csv =
    "phone,name,user_id,photo,discount,order\n"
    "+919812345678,Asha,u-1,a.jpg,20%,A-17\n"
    "+919812345679,Ravi,u-2,r.jpg,15%,R-42\n";

struct Expected {
    std::string name;
    std::string message_yaml;
    json params;        // row 1's
    json preview;       // row 1's
    std::string phone;  // row 1's, as --preview draws it
};

std::vector<Expected> expected_templates() {
    return {
        {"appointment_update",
         "message:\n  type: template\n  template: appointment_update\n  body: [\"{{name}}\", \"Monday 10:00\"]\n",
         json::parse(R"([{"type":"body","parameters":[{"type":"text","text":"Asha"},
                                                    {"type":"text","text":"Monday 10:00"}]}])"),
         json{{"header", "Appointment update"},
              {"body", "Hi Asha,\nyour appointment is confirmed for Monday 10:00.\nReply STOP to opt out."},
              {"footer", "Sent by the sandbox"}},
         "  ┌\n"
         "  │ Appointment update\n"
         "  │ Hi Asha,\n"
         "  │ your appointment is confirmed for Monday 10:00.\n"
         "  │ Reply STOP to opt out.\n"
         "  │ Sent by the sandbox\n"
         "  └\n"},
        {"spring_sale",
         "message:\n  type: template\n  template: spring_sale\n"
         "  header: {image: \"https://cdn.example.com/offers/{{photo}}\"}\n"
         "  body: [\"{{name}}\", \"{{discount}}\"]\n",
         json::parse(R"([{"type":"header","parameters":[{"type":"image",
                                                      "image":{"link":"https://cdn.example.com/offers/a.jpg"}}]},
                         {"type":"body","parameters":[{"type":"text","text":"Asha"},{"type":"text","text":"20%"}]}])"),
         json{{"header", "[image] https://cdn.example.com/offers/a.jpg"},
              {"body", "Hi Asha, our spring sale is on: 20% off everything until Sunday."},
              {"footer", "Reply STOP to opt out"}},
         "  ┌\n"
         "  │ [image] https://cdn.example.com/offers/a.jpg\n"
         "  │ Hi Asha, our spring sale is on: 20% off everything until Sunday.\n"
         "  │ Reply STOP to opt out\n"
         "  └\n"},
        {"thank_you", "message:\n  type: template\n  template: thank_you\n", json::array(),
         json{{"header", "Thank you"}, {"body", "Thank you for shopping with us. We hope to see you again soon."}},
         "  ┌\n"
         "  │ Thank you\n"
         "  │ Thank you for shopping with us. We hope to see you again soon.\n"
         "  └\n"},
        {"order_shipped (en)",
         "message:\n  type: template\n  template: order_shipped\n  language: en\n"
         "  body: [\"{{name}}\", \"{{order}}\"]\n",
         json::parse(R"([{"type":"body","parameters":[{"type":"text","text":"Asha"},{"type":"text","text":"A-17"}]}])"),
         json{{"body", "Hi Asha, your order A-17 has shipped."}},
         "  ┌\n"
         "  │ Hi Asha, your order A-17 has shipped.\n"
         "  └\n"},
        {"order_shipped (es)",
         "message:\n  type: template\n  template: order_shipped\n  language: es\n"
         "  body: [\"{{name}}\", \"{{order}}\"]\n",
         json::parse(R"([{"type":"body","parameters":[{"type":"text","text":"Asha"},{"type":"text","text":"A-17"}]}])"),
         json{{"body", "Hola Asha, tu pedido A-17 ha sido enviado."}},
         "  ┌\n"
         "  │ Hola Asha, tu pedido A-17 ha sido enviado.\n"
         "  └\n"},
    };
}

std::filesystem::path dry_log(const CampaignFixture& f) {
    return f.dir.path() / "results" / "e2e.dry-run.jsonl";
}

// The `preview` written as the csv report's cell and the text report's line show it.
std::string as_lines(const json& preview) {
    std::string text;
    for (const char* part : {"header", "body", "footer"}) {
        if (preview.contains(part)) {
            text += (text.empty() ? "" : "\n") + preview[part].get<std::string>();
        }
    }
    return text;
}

}  // namespace

TEST_SUITE("e2e: template preview") {
    TEST_CASE("each sandbox template's dry run logs the params as sent and the preview written here by hand") {
        Sandbox sandbox;
        for (const auto& t : expected_templates()) {
            CAPTURE(t.name);
            CampaignFixture f(sandbox, k_csv, "", t.message_yaml);
            auto r = f.wacamp({"run", f.campaign.string(), "--dry-run", "--preview", "1"});
            CAPTURE(r.err);
            REQUIRE(r.exit_code == 0);
            CHECK(contains(r.out, t.phone));

            const auto results = of_event(read_jsonl(dry_log(f)), "result");
            REQUIRE(results.size() == 2);
            CHECK(results[0]["status"] == "dry_run");
            CHECK(results[0]["message"] == t.params);
            CHECK(results[0]["preview"] == t.preview);
            CHECK_FALSE(results[0]["message"].is_object());
            // Row 2 has its own values: Ravi's name wherever Asha's was (thank_you has none).
            if (!t.params.empty()) {
                CHECK(contains(results[1]["preview"].dump(), "Ravi"));
                CHECK_FALSE(contains(results[1]["preview"].dump(), "Asha"));
            } else {
                CHECK(results[1]["preview"] == t.preview);
            }

            auto csv = f.wacamp({"report", dry_log(f).string(), "--format", "csv"});
            CAPTURE(csv.err);
            REQUIRE(csv.exit_code == 0);
            CHECK(contains(csv.out.substr(0, csv.out.find('\n')), ",preview,defaults"));
            CHECK(contains(csv.out, "\"" + as_lines(t.preview) + "\""));

            auto html = f.wacamp({"report", dry_log(f).string(), "--format", "html"});
            REQUIRE(html.exit_code == 0);
            CHECK(contains(html.out, R"(<div class="bubble">)"));
            const std::string body = t.preview["body"].get<std::string>();
            CHECK(contains(html.out, fmt::format(R"(<div class="text">{}</div>)", body)));
            if (t.preview.contains("header")) {
                CHECK(contains(html.out, fmt::format(R"(<div class="head text">{}</div>)",
                                                     t.preview["header"].get<std::string>())));
            }
        }
    }

    TEST_CASE("the text report shows the preview on one line where a text message shows its text") {
        Sandbox sandbox;
        CampaignFixture f(sandbox, k_csv, "", expected_templates()[3].message_yaml);
        REQUIRE(f.wacamp({"run", f.campaign.string(), "--dry-run"}).exit_code == 0);
        auto text = f.wacamp({"report", dry_log(f).string()});
        CAPTURE(text.err);
        REQUIRE(text.exit_code == 0);
        CHECK(contains(text.out, "Hi Asha, your order A-17 has shipped."));
    }
}
