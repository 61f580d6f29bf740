#include <doctest/doctest.h>

#include <optional>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "service/response_body.hpp"

namespace {

// A body and the facts read_body must find in it.
struct Expected {
    Expected(std::string body_, bool success_false_ = false, std::optional<long long> error_code_ = {},
             std::string error_text_ = {}, std::string message_id_ = {}, std::string top_id_ = {})
        : body(std::move(body_)),
          success_false(success_false_),
          error_code(error_code_),
          error_text(std::move(error_text_)),
          message_id(std::move(message_id_)),
          top_id(std::move(top_id_)) {}
    std::string body;
    bool success_false;
    std::optional<long long> error_code;
    std::string error_text;
    std::string message_id;
    std::string top_id;
};

// JSON objects, from the service's envelope, from Meta, and with odd types, empty ids, repeated
// keys and arrays.
const std::vector<Expected> k_objects = {
    {R"({})"},
    {R"({"success":true,"data":{"messageId":"d1"}})", false, {}, "", "d1"},
    {R"({"success":false})", true},
    {R"({"messageId":"a","messageId":"b"})", false, {}, "", "b"},
    {R"({"messageId":"","id":"m2"})", false, {}, "", "", "m2"},
    {R"({"id":"t","data":{"messageId":"d","other":[1,{"a":null}]}})", false, {}, "", "d", "t"},
    {R"({"id":"t","messages":[{"id":"wamid.F"}]})", false, {}, "", "wamid.F", "t"},
    {R"({"messages":[{"id":"first"},{"id":"second"}]})", false, {}, "", "first"},
    {R"({"messages":[{"x":1},{"id":"second"}]})"},
    {R"({"messaging_product":"whatsapp","contacts":[{"input":"+1","wa_id":"1"}],"messages":[{"id":"wamid.X"}]})",
     false,
     {},
     "",
     "wamid.X"},
    {R"({"error":{"message":"(#131026) Message undeliverable","type":"OAuthException","code":131026,)"
     R"("error_data":{"details":"more"},"fbtrace_id":"x"}})",
     false, 131026, "(#131026) Message undeliverable — more"},
    {R"({"error":{"code":-1,"message":7}})", false, -1},
    {R"({"error":{"code":131048,"message":"spam"},"message":"top"})", false, 131048, "spam"},
    {R"({"error":{"error_data":{"details":"only details"}}})", false, {}, "only details"},
    {R"({"error":"plain text"})", false, {}, "plain text"},
    {R"({"message":"top"})", false, {}, "top"},
    {R"({"success":"false","messageId":"x"})", false, {}, "", "x"},
    {R"({"error":{"message":"line\nbreak\tand tab"}})", false, {}, "line break and tab"},
    {R"({"error":{"message":"né \u00e9 \ud83d\ude00"}})", false, {}, "né é 😀"},
    {R"({"error":{"code":1.5,"message":"m"}})", false, {}, "m"},
};

void check_facts(const Expected& e) {
    CAPTURE(e.body);
    const auto facts = service::read_body(e.body);
    CHECK(facts.is_json);
    CHECK(facts.success_false == e.success_false);
    CHECK(facts.error_code == e.error_code);
    CHECK(facts.error_text == e.error_text);
    CHECK(facts.message_id == e.message_id);
    CHECK(facts.top_id == e.top_id);
}

// Checks that `body` is read as no JSON object: its text, on one line and clipped, is the error.
void check_not_json(const std::string& body, const std::string& error_text) {
    CAPTURE(body);
    const auto facts = service::read_body(body);
    CHECK_FALSE(facts.is_json);
    CHECK_FALSE(facts.success_false);
    CHECK_FALSE(facts.error_code.has_value());
    CHECK(facts.error_text == error_text);
    CHECK(facts.message_id.empty());
    CHECK(facts.top_id.empty());
}

// Whether read_body (simdjson first) and nlohmann alone read `body` the same.
void check_same_as_nlohmann(const std::string& body) {
    CAPTURE(body);
    const auto fast = service::read_body(body);
    const auto slow = service::detail::read_body_nlohmann(body);
    CHECK(fast.is_json == slow.is_json);
    CHECK(fast.success_false == slow.success_false);
    CHECK(fast.error_code == slow.error_code);
    CHECK(fast.error_text == slow.error_text);
    CHECK(fast.message_id == slow.message_id);
    CHECK(fast.top_id == slow.top_id);
}

// Pieces of answers, glued at random into bodies mostly near JSON.
const std::vector<std::string> k_pieces = {
    "{",
    "}",
    "[",
    "]",
    ",",
    ":",
    "\"",
    " ",
    "\n",
    "\t",
    "\\",
    "\\u",
    "d800",
    "dc00",
    "00e9",
    "\\n",
    "\\/",
    "\"success\"",
    "\"error\"",
    "\"code\"",
    "\"message\"",
    "\"messageId\"",
    "\"id\"",
    "\"data\"",
    "\"messages\"",
    "\"error_data\"",
    "\"details\"",
    "true",
    "false",
    "null",
    "0",
    "-0",
    "-",
    "1",
    "131026",
    "9223372036854775807",
    "9223372036854775808",
    "18446744073709551616",
    "1e400",
    "1e2",
    "0.5",
    ".",
    "e",
    "+",
    "\xEF\xBB\xBF",
    "\xff",
    "\xc3",
    "\xc3\xa9",
    "\x01",
    std::string(1, '\0'),
    "x",
    "é",
    "\"wamid.A\"",
};

}  // namespace

TEST_SUITE("service::read_body") {
    TEST_CASE("simdjson's reading is nlohmann's, on every kind of answer and on near-JSON at random") {
        for (const auto& e : k_objects) {
            check_same_as_nlohmann(e.body);
        }
        std::mt19937 random(20261207);  // fixed: the same bodies every run
        std::uniform_int_distribution<std::size_t> piece(0, k_pieces.size() - 1);
        std::uniform_int_distribution<int> length(1, 40);
        for (int i = 0; i < 20'000; ++i) {
            std::string body = i % 2 == 0 ? R"({"success":false,"error":{"code":1,"message":)" : "";
            for (int n = length(random); n > 0; --n) {
                body += k_pieces[piece(random)];
            }
            check_same_as_nlohmann(body);
            check_same_as_nlohmann(body + "}}");
        }
    }
    TEST_CASE("the members that matter are found in every documented place, whatever else the object holds") {
        for (const auto& e : k_objects) {
            check_facts(e);
        }
    }
    TEST_CASE("a body that is no JSON object gives its text, on one line, as the error") {
        check_not_json("Bad\ngateway", "Bad gateway");
        check_not_json(R"([1,2])", "[1,2]");
        check_not_json("not json", "not json");
        check_not_json(R"({"success":false} trailing)", R"({"success":false} trailing)");
        check_not_json("<html><body>OK</body></html>", "<html><body>OK</body></html>");
        check_not_json(R"("a string")", R"("a string")");
        check_not_json("", "");
    }
    TEST_CASE("a body cut short is no JSON object, whatever its start said") {
        const std::string cut = R"({"success":false,"error":{"code":131026,"message":"m"},"data":{"messageId":"x")";
        check_not_json(cut, cut);
    }
    TEST_CASE("a member named twice counts as its last value") {
        check_facts({R"({"messageId":"a","messageId":5})"});
        check_facts({R"({"success":false,"success":true})"});
        check_facts({R"({"success":false,"success":"no"})"});
        check_facts({R"({"error":{"code":131026,"message":"a"},"error":{"message":"b"}})", false, {}, "b"});
        check_facts({R"({"error":{"code":4,"code":"x"}})"});
        check_facts({R"({"data":{"messageId":"d"},"data":{}})"});
        check_facts({R"({"messages":[{"id":"a"}],"messages":[{"x":1},{"id":"b"}]})"});
    }
    TEST_CASE("deep nesting is read through: the members after it still count") {
        const std::string deep = std::string(5000, '[') + std::string(5000, ']');
        check_facts({R"({"skip":)" + deep + R"(,"error":{"code":131047,"x":)" + deep + R"(},"data":{"messageId":"d"}})",
                     false, 131047, "", "d"});
    }
    TEST_CASE("an error code that is no 64-bit integer is not a code") {
        check_facts({R"({"error":{"code":99999999999999999999,"message":"m"}})", false, {}, "m"});
        check_facts({R"({"error":{"code":9223372036854775808,"message":"m"}})", false, {}, "m"});
        check_facts({R"({"error":{"code":1e2,"message":"m"}})", false, {}, "m"});
        check_facts({R"({"error":{"code":"131026","message":"m"}})", false, {}, "m"});
        check_facts({R"({"error":{"code":-9223372036854775808}})", false, -9223372036854775807LL - 1});
        check_facts({R"({"error":{"code":9223372036854775807}})", false, 9223372036854775807LL});
    }
    TEST_CASE("a number past a double's range makes the body no JSON") {
        check_not_json(R"({"x":1e400,"messageId":"m"})", R"({"x":1e400,"messageId":"m"})");
    }
    TEST_CASE("bytes that are not UTF-8 read as U+FFFD: the code and the rest of the text are kept") {
        check_facts({"{\"error\":{\"code\":131026,\"message\":\"bad \xff name\"}}", false, 131026, "bad \uFFFD name"});
        check_facts({"{\"messageId\":\"id\xc3\"}", false, {}, "", "id\uFFFD"});
        const auto facts = service::read_body("<html>\xfe\xff</html>");
        CHECK_FALSE(facts.is_json);
        CHECK(facts.error_text == "<html>\uFFFD\uFFFD</html>");
    }
    TEST_CASE("a lone surrogate escape makes the body no JSON") {
        check_not_json(R"({"messageId":"x","message":"\ud800"})", R"({"messageId":"x","message":"\ud800"})");
    }
    TEST_CASE("the body ends at a NUL byte, as nlohmann reads it") {
        check_facts({std::string("{\"messageId\":\"x\"}\0junk", 22), false, {}, "", "x"});
    }
    // simdjson reads the body first and nlohmann where simdjson refuses it: both read these alike.
    TEST_CASE("what simdjson refuses and nlohmann takes still reads as nlohmann reads it") {
        check_facts({"\xEF\xBB\xBF{\"messageId\":\"bom\"}", false, {}, "", "bom"});  // a byte-order mark
        check_facts({R"({"x":123456789012345678901234567890,"messageId":"big"})", false, {}, "", "big"});
        check_facts({R"({"x":-99999999999999999999,"messageId":"small"})", false, {}, "", "small"});
        const std::string deep = std::string(1100, '[') + std::string(1100, ']');  // past simdjson's 1024
        check_facts({R"({"x":)" + deep + R"(,"messageId":"deep"})", false, {}, "", "deep"});
    }
    TEST_CASE("a long body (a template list) is read as a short one, past simdjson's 64 KiB") {
        std::string filler;
        for (int i = 0; i < 3000; ++i) {
            filler += R"({"name":"template_)" + std::to_string(i) + R"(","status":"APPROVED"},)";
        }
        const std::string body = R"({"success":true,"data":[)" + filler + R"({}],"messageId":"long"})";
        REQUIRE(body.size() > 64 * 1024);
        check_facts({body, false, {}, "", "long"});
        check_same_as_nlohmann(body);
        check_same_as_nlohmann(body.substr(0, body.size() - 1));  // cut short
    }
    TEST_CASE("an error code written -0 is the code 0, and -0.0 none, as nlohmann reads them") {
        check_facts({R"({"error":{"code":-0}})", false, 0});
        check_facts({R"({"error":{"code":-0.0}})"});
        check_facts({R"({"error":{"code":0}})", false, 0});
    }
    TEST_CASE("escapes, a NUL escape and white space read the same whichever parser reads them") {
        check_facts({R"({"error":{"message":"a\u0000b \/ \"q\""}})", false, {}, std::string("a\0b / \"q\"", 9)});
        check_facts({" \n{ \"messageId\" : \"w\" }\r\n\t", false, {}, "", "w"});
        check_not_json("{\"messageId\":\"x\u0001\"}", "{\"messageId\":\"x\u0001\"}");
    }
    TEST_CASE("the error text is clipped at 300 bytes, not inside a UTF-8 character") {
        const auto facts = service::read_body(R"({"error":{"message":")" + std::string(299, 'x') + "é and more\"}}");
        CHECK(facts.error_text == std::string(299, 'x') + "…");
        CHECK(service::read_body(std::string(1000, 'y')).error_text == std::string(300, 'y') + "…");
    }
}
