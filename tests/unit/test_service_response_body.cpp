#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "service/response_body.hpp"

namespace {

// Bodies the scanner reads itself; for each, the DOM reader must find the same facts.
const std::vector<std::string> k_ordinary_bodies = {
    R"({})",
    R"({"success":true,"data":{"messageId":"d1"}})",
    R"({"success":false})",
    R"({"messageId":"a","messageId":"b"})",
    R"({"messageId":"","id":"m2"})",
    R"({"id":"t","data":{"messageId":"d","other":[1,{"a":null}]}})",
    R"({"messages":[{"id":"first"},{"id":"second"}]})",
    R"({"messages":[{"x":1},{"id":"second"}]})",
    R"({"messaging_product":"whatsapp","contacts":[{"input":"+1","wa_id":"1"}],"messages":[{"id":"wamid.X"}]})",
    R"({"error":{"message":"(#131026) Message undeliverable","type":"OAuthException","code":131026,)"
    R"("error_data":{"details":"more"},"fbtrace_id":"x"}})",
    R"({"error":{"code":-1,"message":7}})",
    R"({"error":{"code":131048,"message":"spam"},"message":"top"})",
    R"({"error":{"error_data":{"details":"only details"}}})",
    R"({"error":"plain text"})",
    R"({"message":"top"})",
    R"({"success":"false","messageId":"x"})",
    R"({"error":{"message":"line\nbreak\tand tab"}})",
    R"({"error":{"message":"né \u00e9 \ud83d\ude00"}})",
};

}  // namespace

TEST_SUITE("service::read_body") {
    TEST_CASE("the scanner and the DOM give the same facts") {
        for (const auto& body : k_ordinary_bodies) {
            CAPTURE(body);
            const auto scanned = service::scan_body(body);
            REQUIRE(scanned.has_value());
            const auto dom = service::read_body_dom(body);
            CHECK(scanned->is_json == dom.is_json);
            CHECK(scanned->success_false == dom.success_false);
            CHECK(scanned->error_code == dom.error_code);
            CHECK(scanned->error_text == dom.error_text);
            CHECK(scanned->message_id == dom.message_id);
        }
    }
    TEST_CASE("the scanner leaves unusual bodies to the DOM") {
        CHECK_FALSE(service::scan_body(R"([1,2])").has_value());
        CHECK_FALSE(service::scan_body("not json").has_value());
        CHECK_FALSE(service::scan_body(R"({"success":false} trailing)").has_value());
        CHECK_FALSE(service::scan_body(R"({"error":{"code":1.5,"message":"m"}})").has_value());
    }
    TEST_CASE("a body that is no JSON object gives its text, on one line, as the error") {
        const auto facts = service::read_body("Bad\ngateway");
        CHECK_FALSE(facts.is_json);
        CHECK(facts.error_text == "Bad gateway");
    }
}
