#include <doctest/doctest.h>
#include <nlohmann/json.hpp>

#include "sandbox/auth.hpp"
#include "sandbox/validation.hpp"

using nlohmann::json;
using sandbox::check_send_message;
using sandbox::check_status_update;

namespace {

json text_body() {
    return json::parse(R"({"userName": "Asha", "wa_id": "919812345678", "type": "text",
                           "message": {"text": "Hi Asha"}})");
}

json image_body() {
    return json::parse(R"({"userName": "Asha", "wa_id": "919812345678", "type": "image",
                           "message": {"source": "https://cdn.example.com/a.jpg", "label": "For you"}})");
}

// The problem found in `body`, or "" when it is accepted.
std::string send_problem(const json& body) {
    return check_send_message(body).value_or("");
}

std::string status_problem(const json& body) {
    return check_status_update(body).value_or("");
}

}  // namespace

TEST_SUITE("sandbox::check_send_message") {
    TEST_CASE("accepts the two documented shapes") {
        CHECK(send_problem(text_body()) == "");
        CHECK(send_problem(image_body()) == "");
    }
    TEST_CASE("accepts an image without a label") {
        json body = image_body();
        body["message"].erase("label");
        CHECK(send_problem(body) == "");
    }
    TEST_CASE("the body must be an object") {
        CHECK(send_problem(json::array()) == "body must be a JSON object");
        CHECK(send_problem(json("text")) == "body must be a JSON object");
    }
    TEST_CASE("rejects a key the service does not know") {
        json body = text_body();
        body["templateName"] = "x";
        CHECK(send_problem(body) == "unknown key \"templateName\"");
    }
    TEST_CASE("names each missing key") {
        for (const char* key : {"userName", "wa_id", "type", "message"}) {
            json body = text_body();
            body.erase(key);
            CHECK(send_problem(body) == std::string("missing key \"") + key + "\"");
        }
    }
    TEST_CASE("userName must be a non-empty string") {
        json body = text_body();
        body["userName"] = "";
        CHECK(send_problem(body) == "\"userName\" must be a non-empty string");
        body["userName"] = 7;
        CHECK(send_problem(body) == "\"userName\" must be a non-empty string");
    }
    TEST_CASE("wa_id must be 8 to 15 digits in a string") {
        for (json bad : {json("+919812345678"), json("9198 1234 5678"), json("1234567"), json("1234567890123456"),
                         json(919812345678), json("91981234567a")}) {
            json body = text_body();
            body["wa_id"] = bad;
            CHECK_MESSAGE(send_problem(body).find("\"wa_id\"") == 0, bad.dump());
        }
        json body = text_body();
        body["wa_id"] = "12345678";
        CHECK(send_problem(body) == "");
        body["wa_id"] = "123456789012345";
        CHECK(send_problem(body) == "");
    }
    TEST_CASE("type must be text or image") {
        json body = text_body();
        body["type"] = "video";
        CHECK(send_problem(body) == "\"type\" must be \"text\" or \"image\"");
        body["type"] = "TEXT";
        CHECK(send_problem(body) == "\"type\" must be \"text\" or \"image\"");
    }
    TEST_CASE("message must be an object") {
        json body = text_body();
        body["message"] = "Hi";
        CHECK(send_problem(body) == "\"message\" must be an object");
    }
    TEST_CASE("a text message holds exactly a non-empty text") {
        json body = text_body();
        body["message"]["label"] = "x";
        CHECK(send_problem(body) == "unknown key \"message.label\" for type \"text\"");
        body["message"] = json::object();
        CHECK(send_problem(body) == "missing key \"message.text\"");
        body["message"]["text"] = "";
        CHECK(send_problem(body) == "\"message.text\" must be a non-empty string");
        body["message"]["text"] = json::array();
        CHECK(send_problem(body) == "\"message.text\" must be a non-empty string");
    }
    TEST_CASE("a text longer than Meta's 4096 characters is refused, counted in characters") {
        json body = text_body();
        std::string accented;
        for (size_t i = 0; i < sandbox::k_max_text_chars; ++i) {
            accented += "\xc3\xa9";  // é: two bytes, one character
        }
        body["message"]["text"] = accented;
        CHECK(send_problem(body) == "");
        body["message"]["text"] = accented + "!";
        CHECK(send_problem(body) == "\"message.text\" is longer than 4096 characters");
    }
    TEST_CASE("an image message holds a source URL and an optional string label, nothing else") {
        json body = image_body();
        body["message"]["text"] = "x";
        CHECK(send_problem(body) == "unknown key \"message.text\" for type \"image\"");
        body = image_body();
        body["message"].erase("source");
        CHECK(send_problem(body) == "missing key \"message.source\"");
        body = image_body();
        body["message"]["label"] = 3;
        CHECK(send_problem(body) == "\"message.label\" must be a string");
        body["message"]["label"] = std::string(sandbox::k_max_label_chars + 1, 'x');
        CHECK(send_problem(body) == "\"message.label\" is longer than 1024 characters");
    }
    TEST_CASE("the image source must be an http(s) URL with a host") {
        for (json bad : {json("ftp://cdn.example.com/a.jpg"), json("cdn.example.com/a.jpg"), json("https://"),
                         json("https:///a.jpg"), json("https://cdn.example.com/a b.jpg"), json(""), json(1)}) {
            json body = image_body();
            body["message"]["source"] = bad;
            CHECK_MESSAGE(send_problem(body) == "\"message.source\" must be an http(s) URL", bad.dump());
        }
        json body = image_body();
        body["message"]["source"] = "HTTP://cdn.example.com/a.jpg";
        CHECK(send_problem(body) == "");
    }
}

TEST_SUITE("sandbox::check_status_update") {
    TEST_CASE("accepts ids and status, with or without subscriberIds") {
        CHECK(status_problem(json::parse(R"({"ids": ["u1", "u2"], "status": "DELETED"})")) == "");
        CHECK(status_problem(json::parse(R"({"ids": ["u1"], "status": "DELETED", "subscriberIds": ["s1"]})")) == "");
        CHECK(status_problem(json::parse(R"({"ids": ["u1"], "status": "DELETED", "subscriberIds": []})")) == "");
    }
    TEST_CASE("rejects unknown and missing keys") {
        CHECK(status_problem(json::parse(R"({"ids": ["u1"], "status": "DELETED", "force": true})")) ==
              "unknown key \"force\"");
        CHECK(status_problem(json::parse(R"({"status": "DELETED"})")) == "missing key \"ids\"");
        CHECK(status_problem(json::parse(R"({"ids": ["u1"]})")) == "missing key \"status\"");
        CHECK(status_problem(json::array()) == "body must be a JSON object");
    }
    TEST_CASE("ids must be a non-empty array of non-empty strings") {
        for (const char* ids : {R"([])", R"("u1")", R"([1])", R"([""])", R"(["u1", null])"}) {
            json body = json::parse(R"({"status": "DELETED"})");
            body["ids"] = json::parse(ids);
            CHECK_MESSAGE(status_problem(body) == "\"ids\" must be a non-empty array of non-empty strings", ids);
        }
    }
    TEST_CASE("status must be a non-empty string") {
        CHECK(status_problem(json::parse(R"({"ids": ["u1"], "status": ""})")) ==
              "\"status\" must be a non-empty string");
        CHECK(status_problem(json::parse(R"({"ids": ["u1"], "status": 3})")) ==
              "\"status\" must be a non-empty string");
    }
    TEST_CASE("subscriberIds must be an array of strings") {
        CHECK(status_problem(json::parse(R"({"ids": ["u1"], "status": "DELETED", "subscriberIds": "s1"})")) ==
              "\"subscriberIds\" must be an array of strings");
        CHECK(status_problem(json::parse(R"({"ids": ["u1"], "status": "DELETED", "subscriberIds": [2]})")) ==
              "\"subscriberIds\" must be an array of strings");
    }
}

TEST_SUITE("sandbox::is_json_content_type") {
    TEST_CASE("accepts application/json with or without parameters, in any case") {
        CHECK(sandbox::is_json_content_type("application/json"));
        CHECK(sandbox::is_json_content_type("application/json; charset=utf-8"));
        CHECK(sandbox::is_json_content_type("Application/JSON;charset=UTF-8"));
    }
    TEST_CASE("rejects anything else") {
        CHECK_FALSE(sandbox::is_json_content_type(""));
        CHECK_FALSE(sandbox::is_json_content_type("text/plain"));
        CHECK_FALSE(sandbox::is_json_content_type("application/x-www-form-urlencoded"));
        CHECK_FALSE(sandbox::is_json_content_type("application/jsonp"));
    }
}

TEST_SUITE("sandbox::check_api_key") {
    using sandbox::KeyIn;
    using sandbox::PresentedKey;
    const std::string key = "k-123456";
    const PresentedKey none{};
    const PresentedKey header{key, std::nullopt};
    const PresentedKey query{std::nullopt, key};
    const PresentedKey both{key, key};
    const PresentedKey wrong_query{key, std::string("nope-nope")};

    TEST_CASE("either: one right key is enough, a wrong one present is refused") {
        CHECK_FALSE(sandbox::check_api_key(KeyIn::either, header, key));
        CHECK_FALSE(sandbox::check_api_key(KeyIn::either, query, key));
        CHECK_FALSE(sandbox::check_api_key(KeyIn::either, both, key));
        CHECK(sandbox::check_api_key(KeyIn::either, none, key));
        CHECK(sandbox::check_api_key(KeyIn::either, wrong_query, key));
    }
    TEST_CASE("header or query: only that place is read") {
        CHECK_FALSE(sandbox::check_api_key(KeyIn::header, header, key));
        CHECK(sandbox::check_api_key(KeyIn::header, query, key) == "no apiKey header");
        CHECK_FALSE(sandbox::check_api_key(KeyIn::query, query, key));
        CHECK(sandbox::check_api_key(KeyIn::query, header, key) == "no apiKey query parameter");
    }
    TEST_CASE("both: each place must hold the right key") {
        CHECK_FALSE(sandbox::check_api_key(KeyIn::both, both, key));
        CHECK(sandbox::check_api_key(KeyIn::both, header, key));
        CHECK(sandbox::check_api_key(KeyIn::both, query, key));
        CHECK(sandbox::check_api_key(KeyIn::both, wrong_query, key));
    }
    TEST_CASE("the problem never quotes a key") {
        auto problem = sandbox::check_api_key(KeyIn::either, PresentedKey{std::string("leaky-guess"), {}}, key);
        REQUIRE(problem);
        CHECK(problem->find("leaky") == std::string::npos);
        CHECK(problem->find(key) == std::string::npos);
    }
}

TEST_SUITE("sandbox::check_bearer") {
    TEST_CASE("accepts the token with the Bearer scheme in any case") {
        CHECK_FALSE(sandbox::check_bearer(std::string("Bearer tok-9876"), "tok-9876"));
        CHECK_FALSE(sandbox::check_bearer(std::string("bearer tok-9876"), "tok-9876"));
    }
    TEST_CASE("refuses a missing header, another scheme or another token") {
        CHECK(sandbox::check_bearer(std::nullopt, "tok-9876") == "no Authorization header");
        CHECK(sandbox::check_bearer(std::string("tok-9876"), "tok-9876"));
        CHECK(sandbox::check_bearer(std::string("Basic tok-9876"), "tok-9876"));
        CHECK(sandbox::check_bearer(std::string("Bearer tok-98765"), "tok-9876") == "the Bearer token is not valid");
        CHECK(sandbox::check_bearer(std::string("Bearer "), "tok-9876"));
    }
}
