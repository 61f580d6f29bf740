// Template campaigns, the pure parts: the campaign file's message.type template, the variables of a
// template's text, the rules a row's values must keep, and the send-template body.
#include <doctest/doctest.h>

#include <fmt/format.h>

#include <nlohmann/json.hpp>

#include "campaign/content_rules.hpp"
#include "campaign/template_text.hpp"
#include "campaign_file_fixture.hpp"
#include "runner/template_match.hpp"
#include "service/messages.hpp"

using namespace campaign_file_test;

namespace {

const std::string k_base = k_minimal.substr(0, k_minimal.find("message:"));

// A template message with `form` and the given values.
service::OutgoingMessage template_message(std::shared_ptr<const service::TemplateForm> form,
                                          std::vector<std::string> body, std::string header = {}) {
    service::OutgoingMessage m;
    m.kind = service::MessageKind::template_message;
    m.user_name = "Asha";
    m.wa_id = "919812345678";
    m.form = std::move(form);
    m.body_values = std::move(body);
    m.header_value = std::move(header);
    return m;
}

}  // namespace

TEST_SUITE("campaign template text") {
    TEST_CASE("positional variables are counted by the highest number, each once, gaps named") {
        const auto v = campaign::variables_of("Hi {{1}}, {{2}} and again {{1}}; {{4}}");
        CHECK(v.positional == 4);
        CHECK(v.named.empty());
        CHECK(v.missing == std::vector<int>{3});
    }
    TEST_CASE("named variables are counted once each, in order of first appearance") {
        const auto v = campaign::variables_of("Hi {{customer}}, order {{order_id}} for {{customer}}");
        CHECK(v.positional == 0);
        CHECK(v.named == std::vector<std::string>{"customer", "order_id"});
    }
    TEST_CASE("a text without variables has none; braces that are no variable are text") {
        CHECK(campaign::variables_of("Hello, world").empty());
        CHECK(campaign::variables_of("{{ 1 }} {{Name}} {{}} {{1").empty());
    }
    TEST_CASE("filled_in puts the values where the variables are") {
        CHECK(campaign::filled_in("Hi {{1}}, {{2}}! {{1}}", {}, {"Asha", "20%"}) == "Hi Asha, 20%! Asha");
        CHECK(campaign::filled_in("Hi {{customer}}", {"customer"}, {"Ravi"}) == "Hi Ravi");
        CHECK(campaign::filled_in("Hi {{3}}", {}, {"a"}) == "Hi {{3}}");
        CHECK(campaign::filled_in("{{1}}{{1}}", {}, {"ab"}) == "abab");
        CHECK(campaign::filled_in("a {{ b {{1}} c }} {{", {}, {"x"}) == "a {{ b {{1}} c }} {{");  // no variable
        CHECK(campaign::filled_in("{{1}} {{x y}} {{2", {}, {"v"}) == "v {{x y}} {{2");
        CHECK(campaign::filled_in("", {}, {"v"}).empty());
    }
    TEST_CASE("filled_in_code_points counts the characters filled_in would give, without building it") {
        const std::vector<std::pair<std::string, std::vector<std::string>>> cases = {
            {"Hi {{1}}, {{2}}!", {"Āsha", "20 %"}}, {"{{1}}{{1}}{{1}}", {"😀é"}}, {"no variables at all", {}},
            {"{{ b {{1}} c }} {{", {"x"}},          {"{{9}} stays", {"a"}},      {"", {"a"}}};
        for (const auto& [text, values] : cases) {
            CAPTURE(text);
            CHECK(campaign::filled_in_code_points(text, {}, values) ==
                  campaign::code_points(campaign::filled_in(text, {}, values)));
        }
        CHECK(campaign::filled_in_code_points("Dear {{customer}}", {"customer"}, {"Ravi"}) == 9);
    }
    TEST_CASE("a variable may hold 4 spaces in a row, not 5; no line break, no tab, not empty") {
        CHECK_FALSE(campaign::variable_problem("a    b").has_value());
        CHECK(campaign::variable_problem("a     b") == "holds more than 4 spaces in a row");
        CHECK(campaign::variable_problem("a\nb") == "holds a line break");
        CHECK(campaign::variable_problem("a\tb") == "holds a tab");
        CHECK(campaign::variable_problem("  ") == "is empty");
    }
    TEST_CASE("U+2028 and U+2029 are line breaks; a run of any of Unicode's spaces counts toward 4") {
        CHECK(campaign::variable_problem("a\u2028b") == "holds a line break");
        CHECK(campaign::variable_problem("a\u2029b") == "holds a line break");
        CHECK(campaign::variable_problem("a\u0085b") == "holds a line break");
        CHECK(campaign::variable_problem("a\u00a0\u00a0\u00a0\u00a0\u00a0b") == "holds more than 4 spaces in a row");
        CHECK(campaign::variable_problem("a\u3000\u3000\u3000\u3000\u3000b") == "holds more than 4 spaces in a row");
        CHECK(campaign::variable_problem("a \u00a0 \u3000\u2003b") == "holds more than 4 spaces in a row");
        CHECK_FALSE(campaign::variable_problem("a\u00a0\u00a0\u3000\u2003b").has_value());
        CHECK(campaign::variable_problem("a\u00a0\u00a0 \u00a0\u00a0b") == "holds more than 4 spaces in a row");
        CHECK(campaign::variable_problem("\u00a0\u3000") == "is empty");
        CHECK_FALSE(campaign::variable_problem("Ā\u00a0ş\u3000😀 x").has_value());
    }
}

TEST_SUITE("campaign template content rules") {
    TEST_CASE("the body filled in may be 1,024 characters, not 1,025") {
        auto form = std::make_shared<service::TemplateForm>();
        form->body_text = "Hi {{1}}";  // 3 characters besides the variable
        CHECK_FALSE(campaign::content_problem(template_message(form, {std::string(1021, 'x')})).has_value());
        const auto over = campaign::content_problem(template_message(form, {std::string(1022, 'x')}));
        REQUIRE(over.has_value());
        CHECK(*over == "the template's body renders to 1025 characters, over WhatsApp's limit of 1024");
    }
    TEST_CASE("a text header filled in may be 60 characters, not 61") {
        auto form = std::make_shared<service::TemplateForm>();
        form->header = service::TemplateHeader::text;
        form->header_text = "News: {{1}}";  // 6 besides the variable
        CHECK_FALSE(campaign::content_problem(template_message(form, {}, std::string(54, 'h'))).has_value());
        CHECK(campaign::content_problem(template_message(form, {}, std::string(55, 'h'))).has_value());
    }
    TEST_CASE("a media header must be an absolute http(s) link; a variable with 5 spaces is refused") {
        auto form = std::make_shared<service::TemplateForm>();
        form->header = service::TemplateHeader::image;
        CHECK(campaign::content_problem(template_message(form, {}, "cdn/a.jpg"))->find("not an absolute") !=
              std::string::npos);
        CHECK_FALSE(campaign::content_problem(template_message(form, {}, "https://cdn.example/a.jpg")).has_value());
        const auto spaced = campaign::content_problem(template_message(form, {"a     b"}, "https://cdn.example/a.jpg"));
        REQUIRE(spaced.has_value());
        CHECK(spaced->starts_with("message.body[0] holds more than 4 spaces in a row"));
    }
}

TEST_SUITE("service send-template body") {
    TEST_CASE("an image header, positional body variables and a URL button, in Meta's shape") {
        auto form = std::make_shared<service::TemplateForm>();
        form->id = "65a1c3e9f2b4d6a8c0e1f203";
        form->header = service::TemplateHeader::image;
        form->button_indexes = {1};
        auto m = template_message(form, {"Asha", "20%"}, "https://cdn.example/a.jpg");
        m.button_texts = {"order-7"};
        const auto body = nlohmann::json::parse(service::send_template_body(m));
        const auto expected = nlohmann::json::parse(R"({
          "params": [
            {"type": "header", "parameters": [{"type": "image", "image": {"link": "https://cdn.example/a.jpg"}}]},
            {"type": "body", "parameters": [{"type": "text", "text": "Asha"}, {"type": "text", "text": "20%"}]},
            {"type": "button", "sub_type": "url", "index": "1", "parameters": [{"type": "text", "text": "order-7"}]}
          ],
          "templateId": "65a1c3e9f2b4d6a8c0e1f203", "userName": "Asha", "wa_id": "919812345678"})");
        CHECK(body == expected);
        CHECK(service::request_body(m) == service::send_template_body(m));
    }
    TEST_CASE("named variables carry parameter_name; a document its filename; no variables, params []") {
        auto form = std::make_shared<service::TemplateForm>();
        form->id = "id1";
        form->header = service::TemplateHeader::document;
        form->body_names = {"customer"};
        auto m = template_message(form, {"Ravi"}, "https://cdn.example/a.pdf");
        m.filename = "invoice.pdf";
        const auto body = nlohmann::json::parse(service::send_template_body(m));
        CHECK(body["params"][0]["parameters"][0]["document"]["filename"] == "invoice.pdf");
        CHECK(body["params"][1]["parameters"][0]["parameter_name"] == "customer");
        auto bare = std::make_shared<service::TemplateForm>();
        bare->id = "id2";
        CHECK(service::send_template_body(template_message(bare, {})) ==
              R"({"params":[],"templateId":"id2","userName":"Asha","wa_id":"919812345678"})");
    }
}

namespace {

// The body as nlohmann::json writes it (sorted keys, bad bytes replaced): what the hand-built
// body must equal byte for byte.
std::string dom_body(const service::OutgoingMessage& m) {
    nlohmann::json params = nlohmann::json::array();
    const auto& f = *m.form;
    if (f.header != service::TemplateHeader::none) {
        nlohmann::json p;
        if (f.header == service::TemplateHeader::text) {
            p = {{"type", "text"}, {"text", m.header_value}};
        } else {
            const char* kind = f.header == service::TemplateHeader::image   ? "image"
                               : f.header == service::TemplateHeader::video ? "video"
                                                                            : "document";
            nlohmann::json media = {{"link", m.header_value}};
            if (f.header == service::TemplateHeader::document && !m.filename.empty()) {
                media["filename"] = m.filename;
            }
            p = {{"type", kind}, {kind, media}};
        }
        params.push_back({{"type", "header"}, {"parameters", nlohmann::json::array({p})}});
    }
    if (!m.body_values.empty()) {
        nlohmann::json list = nlohmann::json::array();
        for (std::size_t i = 0; i < m.body_values.size(); ++i) {
            nlohmann::json p = {{"type", "text"}, {"text", m.body_values[i]}};
            if (i < f.body_names.size()) {
                p["parameter_name"] = f.body_names[i];
            }
            list.push_back(p);
        }
        params.push_back({{"type", "body"}, {"parameters", list}});
    }
    for (std::size_t i = 0; i < m.button_texts.size(); ++i) {
        params.push_back({{"type", "button"},
                          {"sub_type", "url"},
                          {"index", std::to_string(f.button_indexes[i])},
                          {"parameters", nlohmann::json::array({{{"type", "text"}, {"text", m.button_texts[i]}}})}});
    }
    nlohmann::json j = {{"params", params}, {"templateId", f.id}, {"userName", m.user_name}, {"wa_id", m.wa_id}};
    return j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

}  // namespace

TEST_SUITE("service send-template body") {
    TEST_CASE("the hand-built body is byte for byte what a JSON library writes, for every header kind") {
        const std::string awkward = "Asha \"A\" \\ \x01 caf\xC3\xA9 \xFF end";  // quotes, control, bad UTF-8
        for (const auto header :
             {service::TemplateHeader::none, service::TemplateHeader::text, service::TemplateHeader::image,
              service::TemplateHeader::video, service::TemplateHeader::document}) {
            for (const bool named : {false, true}) {
                CAPTURE(static_cast<int>(header));
                CAPTURE(named);
                auto form = std::make_shared<service::TemplateForm>();
                form->id = "65a1c3e9f2b4d6a8c0e1f203";
                form->header = header;
                form->button_indexes = {0, 2};
                if (named) {
                    form->body_names = {"customer", "offer"};
                }
                auto m = template_message(form, {awkward, "20%"}, "https://cdn.example/a.jpg?x=\"1\"");
                m.filename = named ? "invoice \"7\".pdf" : "";
                m.button_texts = {"order-7", awkward};
                CHECK(service::send_template_body(m) == dom_body(m));
                const auto params = nlohmann::json::parse(service::template_params(m));
                CHECK(params == nlohmann::json::parse(service::send_template_body(m))["params"]);
                m.body_values.clear();
                m.button_texts.clear();
                CHECK(service::send_template_body(m) == dom_body(m));
            }
        }
    }
}

TEST_SUITE("campaign::load_campaign template messages") {
    TEST_CASE("a template message reads its template, language, header, body and buttons") {
        Folder folder;
        auto c = folder.load(k_base + R"(message:
  type: template
  template: spring_offer
  language: en
  header: {image: "https://cdn.example.com/{{name}}.jpg"}
  body: ["{{name}}", "{{phone|soon}}"]
  buttons: [{index: 0, text: "{{name}}"}]
)");
        REQUIRE(c.ok());
        const auto& t = c->message.templated;
        CHECK(c->message.type == campaign::MessageType::template_message);
        CHECK(t.name == "spring_offer");
        CHECK(t.language == "en");
        CHECK(t.header == campaign::HeaderKind::image);
        CHECK(t.header_value == "https://cdn.example.com/{{name}}.jpg");
        REQUIRE(t.body.size() == 2);
        CHECK_FALSE(t.named);
        CHECK(t.body[1].value == "{{phone|soon}}");
        REQUIRE(t.buttons.size() == 1);
        CHECK(t.buttons[0].index == 0);
    }
    TEST_CASE("a mapping body names its variables") {
        Folder folder;
        auto c = folder.load(k_base + "message:\n  type: template\n  template: t\n  body: {customer: \"{{name}}\"}\n");
        REQUIRE(c.ok());
        CHECK(c->message.templated.named);
        CHECK(c->message.templated.body[0].name == "customer");
    }
    TEST_CASE("keys of the other message types, and a top-level template:, are refused with their lines") {
        Folder folder;
        const auto problems = folder.problems(k_base + R"(template: {name: other}
message:
  type: template
  template: t
  text: "Hi"
  header: {text: "a", image: "https://x.example/a.jpg", filename: "a.pdf"}
  buttons: [{index: 0, text: "a"}, {index: 0, text: "b"}]
)");
        CAPTURE(problems);
        CHECK(problems.find("\n8: template: a template campaign names its template in message.template") !=
              std::string::npos);
        CHECK(problems.find("\n12: message.text: not allowed with type template") != std::string::npos);
        CHECK(problems.find("message.header: has text and image: a template has one header") != std::string::npos);
        CHECK(problems.find("message.header.filename: only applies to a document header") != std::string::npos);
        CHECK(problems.find("button 0 is given twice") != std::string::npos);
        const auto on_text = folder.problems(k_base + "message:\n  type: text\n  text: hi\n  header: {text: a}\n");
        CHECK(on_text.find("message.header: only applies to type template") != std::string::npos);
    }
    TEST_CASE("a secret in a template's header, body or buttons is refused") {
        Folder folder;
        const auto problems =
            folder.problems(k_base + "message:\n  type: template\n  template: t\n  body: [\"${WACAMP_API_KEY}\"]\n");
        CAPTURE(problems);
        CHECK(problems.find("11: message.body[0]: names ${WACAMP_API_KEY}, which holds a secret") != std::string::npos);
        CHECK(problems.find("key-0123456789") == std::string::npos);
    }
}

TEST_SUITE("runner::match_template") {
    namespace {
    service::TemplateInfo info(std::string name, std::string language, std::string header, std::string text_header,
                               std::string body, std::string status = "APPROVED") {
        service::TemplateInfo t;
        t.id = "id-" + name + "-" + language;
        t.name = std::move(name);
        t.language = std::move(language);
        t.category = "MARKETING";
        t.status = std::move(status);
        t.header = std::move(header);
        t.text_header = std::move(text_header);
        t.body = std::move(body);
        return t;
    }

    campaign::Campaign campaign_for(std::string name, std::vector<campaign::TemplateVariable> body,
                                    campaign::HeaderKind header = campaign::HeaderKind::none, bool named = false) {
        campaign::Campaign c;
        c.file = "spring.yaml";
        c.message.type = campaign::MessageType::template_message;
        c.message.templated.name = std::move(name);
        c.message.templated.body = std::move(body);
        c.message.templated.header = header;
        c.message.templated.named = named;
        return c;
    }

    // match_template of `c` against `list`, read record by record as a template list is.
    util::Result<std::string> match(campaign::Campaign& c, const std::vector<service::TemplateInfo>& list) {
        runner::TemplateShortlist shortlist(c.message.templated.name);
        for (const auto& t : list) {
            shortlist.add(t);
        }
        return runner::match_template(c, shortlist);
    }

    const std::vector<service::TemplateInfo> k_list = {
        info("offer", "en", "image", "", "Hi {{1}}, {{2}} off"),
        info("offer", "hi", "image", "", "Namaste {{1}}, {{2}}"),
        info("update", "en", "text", "Order {{1}}", "Hi {{customer}}, it ships {{when}}"),
        info("plain", "en", "", "", "Thanks for shopping with us"),
        info("pending", "en", "", "", "Hi {{1}}", "PENDING"),
    };
    }  // namespace

    TEST_CASE("a template that fits is found, and its id, category and text are filled in") {
        auto c = campaign_for("offer", {{"", "{{name}}"}, {"", "20%"}}, campaign::HeaderKind::image);
        c.message.templated.language = "hi";
        REQUIRE(match(c, k_list).ok());
        CHECK(c.message.templated.id == "id-offer-hi");
        CHECK(c.message.templated.category == "MARKETING");
        CHECK(c.message.templated.body_text == "Namaste {{1}}, {{2}}");
    }
    TEST_CASE("named variables, a text header with a variable, and a template without variables") {
        auto named =
            campaign_for("update", {{"when", "{{date}}"}, {"customer", "{{name}}"}}, campaign::HeaderKind::text, true);
        CHECK(match(named, k_list).ok());
        auto plain = campaign_for("plain", {});
        CHECK(match(plain, k_list).ok());
    }
    TEST_CASE("each mismatch is refused, naming the template and the difference") {
        const auto why = [](campaign::Campaign c) {
            auto r = match(c, k_list);
            return r ? std::string() : r.error().message;
        };
        CHECK(why(campaign_for("nope", {})) ==
              "spring.yaml: the account has no template \"nope\" (it has: offer, pending, plain, update); nothing was "
              "sent");
        CHECK(why(campaign_for("offer", {{"", "a"}, {"", "b"}}, campaign::HeaderKind::image)) ==
              "spring.yaml: template \"offer\" exists in several languages (en, hi): set message.language; nothing was "
              "sent");
        auto french = campaign_for("plain", {});
        french.message.templated.language = "fr";
        CHECK(why(french) == "spring.yaml: template \"plain\" has no language \"fr\" (it has: en); nothing was sent");
        CHECK(why(campaign_for("pending", {{"", "a"}})) ==
              "spring.yaml: template \"pending\" (en) has status PENDING, not APPROVED; nothing was sent");
        auto one = campaign_for("offer", {{"", "a"}}, campaign::HeaderKind::image);
        one.message.templated.language = "en";
        CHECK(why(one) ==
              "spring.yaml: template \"offer\" (en)'s body takes 2 variables ({{1}}, {{2}}); message.body "
              "gives 1 value; nothing was sent");
        auto no_header = campaign_for("offer", {{"", "a"}, {"", "b"}});
        no_header.message.templated.language = "en";
        CHECK(why(no_header) ==
              "spring.yaml: template \"offer\" (en) has an image header; message.header gives no header; nothing was "
              "sent");
        CHECK(why(campaign_for("plain", {{"", "a"}})) ==
              "spring.yaml: template \"plain\" (en)'s body has no variables; message.body gives 1 value; nothing was "
              "sent");
        const auto wrong_names = why(campaign_for("update", {{"customer", "a"}}, campaign::HeaderKind::text, true));
        CHECK(wrong_names.find("takes the named variables {{customer}}, {{when}}") != std::string::npos);
    }

    TEST_CASE("a mismatch is named with the line of the key that must change") {
        const auto why = [](campaign::Campaign c) {
            c.lines = {{"message", 8}, {"message.template", 10}, {"message.body", 13}};
            auto r = match(c, k_list);
            return r ? std::string() : r.error().message;
        };
        CHECK(why(campaign_for("nope", {})).starts_with("spring.yaml:10: the account has no template \"nope\""));
        auto one = campaign_for("offer", {{"", "a"}}, campaign::HeaderKind::image);
        one.message.templated.language = "en";
        CHECK(why(one).starts_with("spring.yaml:13: template \"offer\" (en)'s body takes 2 variables"));
        auto no_header = campaign_for("offer", {{"", "a"}, {"", "b"}});
        no_header.message.templated.language = "en";
        // No message.header in the file: the line of message.
        CHECK(why(no_header).starts_with("spring.yaml:8: template \"offer\" (en) has an image header"));
    }

    // Two records of one name and language, as an account can have them (the service lists both).
    std::vector<service::TemplateInfo> twins(std::string second_status) {
        auto marketing = info("sale", "en", "", "", "Hi {{1}}");
        marketing.id = "65f0a1b2c3d4e5f6a7b8c901";
        auto utility = marketing;
        utility.id = "65f0a1b2c3d4e5f6a7b8c902";
        utility.category = "UTILITY";
        utility.status = std::move(second_status);
        return {marketing, utility, info("other", "en", "", "", "x")};
    }
    TEST_CASE("several records of one name and language, none told apart: refused, naming each _id, status, category") {
        for (const std::string language : {"", "en"}) {
            CAPTURE(language);
            auto c = campaign_for("sale", {{"", "{{name}}"}});
            c.message.templated.language = language;
            auto r = match(c, twins("APPROVED"));
            REQUIRE_FALSE(r.ok());
            CHECK(r.error().message ==
                  "spring.yaml: template \"sale\" (en) has 2 records (_id 65f0a1b2c3d4e5f6a7b8c901 (APPROVED, "
                  "MARKETING), _id 65f0a1b2c3d4e5f6a7b8c902 (APPROVED, UTILITY)): set message.template_id to the _id "
                  "of the one to send; nothing was sent");
        }
    }
    TEST_CASE("several records of one name and language, exactly one APPROVED: that one is used, and said") {
        auto c = campaign_for("sale", {{"", "{{name}}"}});
        auto r = match(c, twins("PAUSED"));
        REQUIRE(r.ok());
        CHECK(c.message.templated.id == "65f0a1b2c3d4e5f6a7b8c901");
        CHECK(c.message.templated.category == "MARKETING");
        CHECK(*r ==
              "template \"sale\" (en) has 2 records; using _id 65f0a1b2c3d4e5f6a7b8c901, the only one APPROVED "
              "(message.template_id picks a record)");
        auto single = campaign_for("other", {});
        auto alone = match(single, twins("PAUSED"));
        REQUIRE(alone.ok());
        CHECK(alone->empty());  // one record: nothing to say
    }
    TEST_CASE("message.template_id picks one of several records; an _id none of them has is refused") {
        auto c = campaign_for("sale", {{"", "{{name}}"}});
        c.message.templated.template_id = "65f0a1b2c3d4e5f6a7b8c902";
        auto r = match(c, twins("APPROVED"));
        REQUIRE(r.ok());
        CHECK(c.message.templated.id == "65f0a1b2c3d4e5f6a7b8c902");
        CHECK(c.message.templated.category == "UTILITY");
        CHECK(r->empty());
        auto wrong = campaign_for("sale", {{"", "{{name}}"}});
        wrong.message.templated.template_id = "65f0a1b2c3d4e5f6a7b8c9ff";
        auto refused = match(wrong, twins("APPROVED"));
        REQUIRE_FALSE(refused.ok());
        CHECK(refused.error().message.find("message.template_id 65f0a1b2c3d4e5f6a7b8c9ff is none of template "
                                           "\"sale\"'s records (_id 65f0a1b2c3d4e5f6a7b8c901 (APPROVED, "
                                           "MARKETING), _id 65f0a1b2c3d4e5f6a7b8c902") != std::string::npos);
        // The chosen record must be APPROVED itself.
        auto paused = campaign_for("sale", {{"", "{{name}}"}});
        paused.message.templated.template_id = "65f0a1b2c3d4e5f6a7b8c902";
        auto not_approved = match(paused, twins("PAUSED"));
        REQUIRE_FALSE(not_approved.ok());
        CHECK(not_approved.error().message.find("has status PAUSED, not APPROVED") != std::string::npos);
    }
    TEST_CASE("an account with thousands of templates is named by its first 20 names and its count") {
        std::vector<service::TemplateInfo> many;
        for (int i = 0; i < 2000; ++i) {
            many.push_back(info(fmt::format("t{:04}", i), "en", "", "", "x"));
        }
        auto c = campaign_for("nope", {});
        auto r = match(c, many);
        REQUIRE_FALSE(r.ok());
        CHECK(r.error().message.find("(it has: t0000, t0001, ") != std::string::npos);
        CHECK(r.error().message.find("t0019, … (the first 20 names of 2000 records") != std::string::npos);
        CHECK(r.error().message.find("t0020") == std::string::npos);
    }
}

TEST_SUITE("campaign::load_campaign message.template_id") {
    TEST_CASE("24 hex digits, kept lower-case; anything else is refused with its line") {
        Folder folder;
        auto c = folder.load(k_base +
                             "message:\n  type: template\n  template: t\n  template_id: 65F0A1B2C3D4E5F6A7B8C901\n");
        REQUIRE(c.ok());
        CHECK(c->message.templated.template_id == "65f0a1b2c3d4e5f6a7b8c901");
        const auto problems =
            folder.problems(k_base + "message:\n  type: template\n  template: t\n  template_id: 65f0a1b2\n");
        CAPTURE(problems);
        CHECK(problems.find(": message.template_id: must be a template record's _id: 24 hex digits") !=
              std::string::npos);
        const auto on_text = folder.problems(k_base +
                                             "message:\n  type: text\n  text: hi\n  template_id: "
                                             "65f0a1b2c3d4e5f6a7b8c901\n");
        CHECK(on_text.find("message.template_id: only applies to type template") != std::string::npos);
    }
}

TEST_SUITE("campaign::load_campaign message.paused_regions") {
    TEST_CASE("default [US]; codes in any case, kept upper-case; [] pauses none; a code of no region is refused") {
        Folder folder;
        auto plain = folder.load(k_base + "message:\n  type: template\n  template: t\n");
        REQUIRE(plain.ok());
        CHECK(plain->message.templated.paused_regions == std::vector<std::string>{"US"});
        auto given =
            folder.load(k_base + "message:\n  type: template\n  template: t\n  paused_regions: [us, ca, US]\n");
        REQUIRE(given.ok());
        CHECK(given->message.templated.paused_regions == std::vector<std::string>{"US", "CA"});
        auto none = folder.load(k_base + "message:\n  type: template\n  template: t\n  paused_regions: []\n");
        REQUIRE(none.ok());
        CHECK(none->message.templated.paused_regions.empty());
        const auto problems =
            folder.problems(k_base + "message:\n  type: template\n  template: t\n  paused_regions: [US, USA]\n");
        CAPTURE(problems);
        CHECK(problems.find(": message.paused_regions: item 2: expected an ISO 3166-1 alpha-2 region code like "
                            "US, got \"USA\"") != std::string::npos);
        const auto on_text = folder.problems(k_base + "message:\n  type: text\n  text: hi\n  paused_regions: [US]\n");
        CHECK(on_text.find("message.paused_regions: only applies to type template") != std::string::npos);
    }
}
