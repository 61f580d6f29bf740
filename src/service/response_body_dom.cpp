#include <nlohmann/json.hpp>

#include "service/response_body.hpp"
#include "util/utf8.hpp"

namespace service {

namespace {

using nlohmann::json;

constexpr std::size_t k_max_error_text = 300;

std::string string_at(const json& j, const char* key) {
    auto it = j.find(key);
    if (it != j.end() && it->is_string()) {
        return it->get<std::string>();
    }
    return {};
}

std::string find_message_id(const json& j) {
    if (auto data = j.find("data"); data != j.end() && data->is_object()) {
        if (auto id = string_at(*data, "messageId"); !id.empty()) {
            return id;
        }
    }
    for (const char* key : {"messageId", "id"}) {
        if (auto id = string_at(j, key); !id.empty()) {
            return id;
        }
    }
    if (auto messages = j.find("messages");
        messages != j.end() && messages->is_array() && !messages->empty() && (*messages)[0].is_object()) {
        return string_at((*messages)[0], "id");
    }
    return {};
}

}  // namespace

std::string clip_error_text(std::string text) {
    for (char& c : text) {
        if (c == '\n' || c == '\r' || c == '\t') {
            c = ' ';
        }
    }
    return util::clip_utf8(text, k_max_error_text);
}

BodyFacts read_body_dom(const std::string& body) {
    BodyFacts facts;
    json j = json::parse(body, nullptr, /*allow_exceptions=*/false);
    if (j.is_discarded() || !j.is_object()) {
        facts.error_text = clip_error_text(body);
        return facts;
    }
    facts.is_json = true;
    if (auto s = j.find("success"); s != j.end() && s->is_boolean() && !s->get<bool>()) {
        facts.success_false = true;
    }
    if (auto e = j.find("error"); e != j.end()) {
        if (e->is_object()) {
            if (auto code = e->find("code"); code != e->end() && code->is_number_integer()) {
                facts.error_code = code->get<long long>();
            }
            facts.error_text = string_at(*e, "message");
            if (auto data = e->find("error_data"); data != e->end() && data->is_object()) {
                if (auto details = string_at(*data, "details"); !details.empty()) {
                    facts.error_text += facts.error_text.empty() ? details : " — " + details;
                }
            }
        } else if (e->is_string()) {
            facts.error_text = e->get<std::string>();
        }
    }
    if (facts.error_text.empty()) {
        facts.error_text = string_at(j, "message");
    }
    facts.error_text = clip_error_text(facts.error_text);
    facts.message_id = find_message_id(j);
    return facts;
}

BodyFacts read_body(const std::string& body) {
    if (auto scanned = scan_body(body)) {
        return std::move(*scanned);
    }
    return read_body_dom(body);
}

}  // namespace service
