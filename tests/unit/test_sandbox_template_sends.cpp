#include <doctest/doctest.h>
#include <nlohmann/json.hpp>

#include "sandbox/template_sends.hpp"
#include "sandbox/templates.hpp"
#include "sandbox/validation.hpp"

using nlohmann::json;
using sandbox::TemplateBook;

namespace {

// The built-in records' ids.
const std::string k_appointment = "65a1c3e9f2b4d6a8c0e1f203";   // text header, body {{1}} {{2}}
const std::string k_spring_offer = "65b2d4fa03c5e7b9d1f20314";  // PENDING
const std::string k_spring_sale = "65d4f61c25e7a9dbf3142536";   // image header, body {{1}} {{2}}
const std::string k_thank_you = "65e5072d36f8baec04253647";     // fixed text header, no variables
const std::string k_shipped_es = "6607294f581adc0e26475869";    // no header, body {{1}} {{2}}

json image_header(const std::string& link = "https://cdn.example.com/a.jpg") {
    return {{"type", "header"}, {"parameters", json::array({{{"type", "image"}, {"image", {{"link", link}}}}})}};
}

json body(std::initializer_list<std::string> texts) {
    json parameters = json::array();
    for (const auto& text : texts) {
        parameters.push_back({{"type", "text"}, {"text", text}});
    }
    return {{"type", "body"}, {"parameters", parameters}};
}

// The code the built-in book answers, 0 when it sends.
int code_of(const std::string& id, const json& params, const std::vector<std::string>& paused = {}) {
    const TemplateBook book(sandbox::builtin_templates(), paused);
    auto refusal = book.check(id, params);
    return refusal ? refusal->code : 0;
}

std::string details_of(const std::string& id, const json& params) {
    const TemplateBook book(sandbox::builtin_templates(), {});
    auto refusal = book.check(id, params);
    return refusal ? refusal->details : "";
}

}  // namespace

TEST_SUITE("sandbox::TemplateBook") {
    TEST_CASE("sends an APPROVED template whose params fill exactly its header and body") {
        CHECK(code_of(k_spring_sale, json::array({image_header(), body({"Asha", "20%"})})) == 0);
        CHECK(code_of(k_shipped_es, json::array({body({"Asha", "A-17"})})) == 0);
    }
    TEST_CASE("a template without variables takes empty params") {
        CHECK(code_of(k_thank_you, json::array()) == 0);
        CHECK(code_of(k_thank_you, json::array({body({"x"})})) == 132000);
    }
    TEST_CASE("an unknown templateId, or a template not APPROVED, is 132001") {
        CHECK(code_of("000000000000000000000000", json::array()) == 132001);
        CHECK(code_of(k_spring_offer, json::array({image_header(), body({"Asha", "20%"})})) == 132001);
        CHECK(details_of(k_spring_offer, json::array()) == "template spring_offer has status PENDING, not APPROVED");
    }
    TEST_CASE("a paused template is 132015, a disabled one 132016") {
        CHECK(code_of(k_thank_you, json::array(), {"thank_you"}) == 132015);
        auto records = sandbox::builtin_templates();
        records[4]["status"] = "DISABLED";
        records[5]["status"] = "PAUSED";
        const TemplateBook book(records, {});
        CHECK(book.check(k_thank_you, json::array())->code == 132016);
        CHECK(book.check(k_shipped_es, json::array())->code == 132000);  // es is still APPROVED
    }
    TEST_CASE("a body parameter count that differs is 132000, saying both counts") {
        CHECK(code_of(k_spring_sale, json::array({image_header(), body({"Asha"})})) == 132000);
        CHECK(code_of(k_spring_sale, json::array({image_header()})) == 132000);
        CHECK(details_of(k_shipped_es, json::array({body({"a", "b", "c"})})) ==
              "body: number of localizable_params (3) does not match the expected number of params (2)");
    }
    TEST_CASE("a media header missing, of the wrong kind or without an http(s) link is 132018") {
        CHECK(code_of(k_spring_sale, json::array({body({"Asha", "20%"})})) == 132018);
        json video = {{"type", "header"},
                      {"parameters", json::array({{{"type", "video"}, {"video", {{"link", "https://x.example/v"}}}}})}};
        CHECK(code_of(k_spring_sale, json::array({video, body({"Asha", "20%"})})) == 132018);
        CHECK(details_of(k_spring_sale, json::array({video, body({"Asha", "20%"})})) ==
              "header: the template's header is image; params gives video");
        CHECK(code_of(k_spring_sale, json::array({image_header("ftp://x/a.jpg"), body({"Asha", "20%"})})) == 132018);
    }
    TEST_CASE("a header for a template without one, or with a fixed text header, is 132018") {
        CHECK(code_of(k_shipped_es, json::array({image_header(), body({"a", "b"})})) == 132018);
        json text = {{"type", "header"}, {"parameters", json::array({{{"type", "text"}, {"text", "Hi"}}})}};
        CHECK(code_of(k_thank_you, json::array({text})) == 132018);
    }
    TEST_CASE("a text header's variables are counted like the body's") {
        auto records = sandbox::builtin_templates();
        records[0]["configuration"]["textHeader"] = "Update for {{1}}";
        const TemplateBook book(records, {});
        json text = {{"type", "header"}, {"parameters", json::array({{{"type", "text"}, {"text", "Asha"}}})}};
        CHECK_FALSE(book.check(k_appointment, json::array({text, body({"Asha", "Monday"})})));
        CHECK(book.check(k_appointment, json::array({body({"Asha", "Monday"})}))->code == 132000);
    }
    TEST_CASE("a parameter of the wrong shape or with text WhatsApp refuses is 132018") {
        json number = {
            {"type", "body"},
            {"parameters", json::array({{{"type", "text"}, {"text", 7}}, {{"type", "text"}, {"text", "b"}}})}};
        CHECK(code_of(k_shipped_es, json::array({number})) == 132018);
        CHECK(code_of(k_shipped_es, json::array({body({"a\nb", "c"})})) == 132018);
        CHECK(code_of(k_shipped_es, json::array({body({"a", "b"}), body({"a", "b"})})) == 132018);
        CHECK(code_of(k_shipped_es, json::array({json{{"type", "footer"}}, body({"a", "b"})})) == 132018);
        CHECK(code_of(k_shipped_es, json::array({json("body")})) == 132018);
    }
    TEST_CASE("named variables need each parameter_name, once per name") {
        auto records = sandbox::builtin_templates();
        records[6]["configuration"]["body"] = "Hola {{customer}}, tu pedido {{order_id}} ha sido enviado.";
        const TemplateBook book(records, {});
        json named = {
            {"type", "body"},
            {"parameters", json::array({{{"type", "text"}, {"text", "Asha"}, {"parameter_name", "customer"}},
                                        {{"type", "text"}, {"text", "A-17"}, {"parameter_name", "order_id"}}})}};
        CHECK_FALSE(book.check(k_shipped_es, json::array({named})));
        CHECK(book.check(k_shipped_es, json::array({body({"Asha", "A-17"})}))->code == 132018);
    }
    TEST_CASE("button components are not checked") {
        json button = {{"type", "button"}, {"sub_type", "url"}, {"index", "0"}, {"parameters", json::array()}};
        CHECK(code_of(k_shipped_es, json::array({body({"a", "b"}), button})) == 0);
    }
    TEST_CASE("--paused-template must name a template the sandbox has") {
        CHECK(sandbox::check_template_names(sandbox::builtin_templates(), {"spring_sale", "order_shipped"}));
        auto unknown = sandbox::check_template_names(sandbox::builtin_templates(), {"spring_sale", "nope"});
        REQUIRE_FALSE(unknown);
        CHECK(unknown.error().message == "--paused-template nope: the sandbox has no template of that name");
    }
}

TEST_SUITE("sandbox::check_send_template") {
    json valid() {
        return json{
            {"userName", "Asha"}, {"wa_id", "919812345678"}, {"templateId", k_thank_you}, {"params", json::array()}};
    }
    TEST_CASE("takes exactly userName, wa_id, templateId and params") {
        CHECK_FALSE(sandbox::check_send_template(valid()));
        json extra = valid();
        extra["type"] = "template";
        CHECK(sandbox::check_send_template(extra) == "unknown key \"type\"");
        json missing = valid();
        missing.erase("params");
        CHECK(sandbox::check_send_template(missing) == "missing key \"params\"");
    }
    TEST_CASE("templateId is a non-empty string and params an array") {
        json id = valid();
        id["templateId"] = "";
        CHECK(sandbox::check_send_template(id) == "\"templateId\" must be a non-empty string");
        json params = valid();
        params["params"] = json::object();
        CHECK(sandbox::check_send_template(params) == "\"params\" must be an array");
        json wa_id = valid();
        wa_id["wa_id"] = "+919812345678";
        CHECK(sandbox::check_send_template(wa_id).value_or("").find("\"wa_id\"") == 0);
    }
}
