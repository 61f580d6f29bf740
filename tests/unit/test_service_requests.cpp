#include <doctest/doctest.h>
#include <nlohmann/json.hpp>

#include "service/messages.hpp"
#include "service/requests.hpp"

namespace {

service::ServiceConfig config() {
    service::ServiceConfig c;
    c.base_url = "http://127.0.0.1:8080/";
    c.api_key = "k3y/with+chars";
    c.access_token = "tok-123";
    c.headers = {{"authtype", "Key"}};
    return c;
}

std::string header(const service::HttpRequest& r, const std::string& name) {
    return service::find_header(r.headers, name);
}

}  // namespace

TEST_SUITE("service::requests") {
    TEST_CASE("templates: key in header and query by default") {
        auto r = service::list_templates_request(config());
        CHECK(r.method == service::Method::get);
        CHECK(r.url == "http://127.0.0.1:8080/whatsapp-automation/wa/templates?apiKey=k3y%2Fwith%2Bchars");
        CHECK(header(r, "apiKey") == "k3y/with+chars");
        CHECK(header(r, "User-Agent") == "wacamp/" WACAMP_VERSION);
        CHECK(header(r, "authtype") == "Key");
        CHECK(header(r, "Content-Type").empty());
    }
    TEST_CASE("the key travels only where configured") {
        auto c = config();
        c.api_key_in = {.header = true, .query = false};
        auto header_only = service::send_message_request(c, "{}");
        CHECK(header_only.url.find('?') == std::string::npos);
        CHECK(header(header_only, "apiKey") == c.api_key);
        c.api_key_in = {.header = false, .query = true};
        auto query_only = service::send_message_request(c, "{}");
        CHECK(query_only.url.find("apiKey=") != std::string::npos);
        CHECK(header(query_only, "apiKey").empty());
    }
    TEST_CASE("send-message is a JSON POST") {
        auto r = service::send_message_request(config(), R"({"a":1})");
        CHECK(r.method == service::Method::post);
        CHECK(r.body == R"({"a":1})");
        CHECK(header(r, "Content-Type") == "application/json");
    }
    TEST_CASE("status update is a PUT with the Bearer token and no API key") {
        auto r = service::status_update_request(config(), "{}");
        CHECK(r.method == service::Method::put);
        CHECK(r.url == "http://127.0.0.1:8080/inbox/users/status-update");
        CHECK(header(r, "Authorization") == "Bearer tok-123");
        CHECK(header(r, "apiKey").empty());
        CHECK(header(r, "Content-Type") == "application/json");
    }
    TEST_CASE("redacted_url hides the key wherever it is in the query") {
        CHECK(service::redacted_url("http://h/p?apiKey=SECRET") == "http://h/p?apiKey=***");
        CHECK(service::redacted_url("http://h/p?a=1&apiKey=SECRET&b=2") == "http://h/p?a=1&apiKey=***&b=2");
        CHECK(service::redacted_url("http://h/p") == "http://h/p");
    }
}

TEST_SUITE("service::messages") {
    TEST_CASE("text body has exactly the documented keys") {
        service::OutgoingMessage m;
        m.user_name = "Asha";
        m.wa_id = "919812345678";
        m.text = "Hi \"Asha\"";
        auto j = nlohmann::json::parse(service::send_message_body(m));
        CHECK(j == nlohmann::json::parse(
                       R"({"userName":"Asha","wa_id":"919812345678","type":"text","message":{"text":"Hi \"Asha\""}})"));
    }
    TEST_CASE("image body leaves label out unless given") {
        service::OutgoingMessage m;
        m.user_name = "A";
        m.wa_id = "1";
        m.kind = service::MessageKind::image;
        m.source = "https://cdn/x.png";
        auto j = nlohmann::json::parse(service::send_message_body(m));
        CHECK(j["type"] == "image");
        CHECK(j["message"] == nlohmann::json::parse(R"({"source":"https://cdn/x.png"})"));
        m.has_label = true;
        m.label = "For A";
        j = nlohmann::json::parse(service::send_message_body(m));
        CHECK(j["message"]["label"] == "For A");
        CHECK(j["message"].size() == 2);
    }
    TEST_CASE("invalid UTF-8 still gives valid JSON") {
        service::OutgoingMessage m;
        m.user_name = std::string("bad\xff");
        m.wa_id = "1";
        m.text = "t";
        auto parsed = nlohmann::json::parse(service::send_message_body(m), nullptr, false);
        CHECK_FALSE(parsed.is_discarded());
    }
    TEST_CASE("the hand-built body is byte for byte what nlohmann::json would write") {
        // The body is built without a DOM on the send path; nlohmann's output is the reference.
        const std::string values[] = {"",
                                      "Asha",
                                      "quote \" backslash \\ slash /",
                                      "tab\tnewline\ncr\r\x01\x1f\x7f",
                                      "नमस्ते 😀 Åsa",
                                      "{{not a placeholder}} <b>&amp;</b>"};
        for (const auto& v : values) {
            for (bool image : {false, true}) {
                for (bool label : {false, true}) {
                    service::OutgoingMessage m;
                    m.user_name = v + "name";
                    m.wa_id = "919812345678";
                    m.kind = image ? service::MessageKind::image : service::MessageKind::text;
                    m.text = v;
                    m.source = "https://cdn/" + v;
                    m.has_label = image && label;
                    m.label = v + "label";
                    nlohmann::json j;
                    j["userName"] = m.user_name;
                    j["wa_id"] = m.wa_id;
                    j["type"] = image ? "image" : "text";
                    if (image) {
                        j["message"]["source"] = m.source;
                        if (m.has_label) {
                            j["message"]["label"] = m.label;
                        }
                    } else {
                        j["message"]["text"] = m.text;
                    }
                    CHECK(service::send_message_body(m) == j.dump());
                }
            }
        }
    }
    TEST_CASE("status update leaves subscriberIds out when there are none") {
        auto j = nlohmann::json::parse(service::status_update_body({"u1", "u2"}, "DELETED", {}));
        CHECK(j == nlohmann::json::parse(R"({"ids":["u1","u2"],"status":"DELETED"})"));
        j = nlohmann::json::parse(service::status_update_body({"u1"}, "DELETED", {"s1"}));
        CHECK(j["subscriberIds"] == nlohmann::json::parse(R"(["s1"])"));
    }
}
