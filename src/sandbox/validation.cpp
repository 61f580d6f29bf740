#include "sandbox/validation.hpp"

#include <algorithm>
#include <nlohmann/json.hpp>

#include "util/text.hpp"

namespace sandbox {

namespace {

using Json = nlohmann::json;

std::string in_quotes(std::string_view name) {
    return "\"" + std::string(name) + "\"";
}

// The first key of `object` not in `allowed`, named with `prefix` ("message.").
std::optional<std::string> unknown_key(const Json& object, std::initializer_list<std::string_view> allowed,
                                       std::string_view prefix) {
    for (const auto& item : object.items()) {
        if (std::find(allowed.begin(), allowed.end(), item.key()) == allowed.end()) {
            return "unknown key " + in_quotes(std::string(prefix) + item.key());
        }
    }
    return std::nullopt;
}

std::optional<std::string> missing_key(const Json& object, std::initializer_list<std::string_view> required,
                                       std::string_view prefix) {
    for (auto key : required) {
        if (!object.contains(key)) {
            return "missing key " + in_quotes(std::string(prefix) + std::string(key));
        }
    }
    return std::nullopt;
}

bool is_non_empty_string(const Json& value) {
    return value.is_string() && !value.get_ref<const std::string&>().empty();
}

// Counts code points: continuation bytes (10xxxxxx) do not start a character.
size_t utf8_length(std::string_view text) {
    return static_cast<size_t>(
        std::count_if(text.begin(), text.end(), [](char c) { return (static_cast<unsigned char>(c) & 0xC0) != 0x80; }));
}

std::optional<std::string> check_text_message(const Json& message) {
    if (auto e = unknown_key(message, {"text"}, "message.")) {
        return e.value() + " for type \"text\"";
    }
    if (auto e = missing_key(message, {"text"}, "message.")) {
        return e;
    }
    const auto& text = message["text"];
    if (!is_non_empty_string(text)) {
        return "\"message.text\" must be a non-empty string";
    }
    if (utf8_length(text.get_ref<const std::string&>()) > k_max_text_chars) {
        return "\"message.text\" is longer than " + std::to_string(k_max_text_chars) + " characters";
    }
    return std::nullopt;
}

std::optional<std::string> check_image_message(const Json& message) {
    if (auto e = unknown_key(message, {"source", "label"}, "message.")) {
        return e.value() + " for type \"image\"";
    }
    if (auto e = missing_key(message, {"source"}, "message.")) {
        return e;
    }
    const auto& source = message["source"];
    if (!source.is_string() || !is_http_url(source.get_ref<const std::string&>())) {
        return "\"message.source\" must be an http(s) URL";
    }
    if (message.contains("label")) {
        const auto& label = message["label"];
        if (!label.is_string()) {
            return "\"message.label\" must be a string";
        }
        if (utf8_length(label.get_ref<const std::string&>()) > k_max_label_chars) {
            return "\"message.label\" is longer than " + std::to_string(k_max_label_chars) + " characters";
        }
    }
    return std::nullopt;
}

// The keys every send has: exactly `keys`, a non-empty userName and a wa_id.
std::optional<std::string> check_send_keys(const Json& body, std::initializer_list<std::string_view> keys) {
    if (!body.is_object()) {
        return "body must be a JSON object";
    }
    if (auto e = unknown_key(body, keys, "")) {
        return e;
    }
    if (auto e = missing_key(body, keys, "")) {
        return e;
    }
    if (!is_non_empty_string(body["userName"])) {
        return "\"userName\" must be a non-empty string";
    }
    const auto& wa_id = body["wa_id"];
    if (!wa_id.is_string() || !is_wa_id(wa_id.get_ref<const std::string&>())) {
        return "\"wa_id\" must be a string of 8 to 15 digits (country code first, no '+')";
    }
    return std::nullopt;
}

}  // namespace

bool is_wa_id(std::string_view wa_id) {
    return wa_id.size() >= 8 && wa_id.size() <= 15 &&
           std::all_of(wa_id.begin(), wa_id.end(), [](char c) { return c >= '0' && c <= '9'; });
}

bool is_http_url(std::string_view url) {
    size_t rest = 0;
    if (util::starts_with_nocase(url, "https://")) {
        rest = 8;
    } else if (util::starts_with_nocase(url, "http://")) {
        rest = 7;
    } else {
        return false;
    }
    if (rest >= url.size() || url[rest] == '/') {
        return false;  // no host
    }
    return std::none_of(url.begin(), url.end(),
                        [](char c) { return static_cast<unsigned char>(c) <= 0x20 || c == 0x7F; });
}

std::optional<std::string> check_send_message(const Json& body) {
    if (auto e = check_send_keys(body, {"userName", "wa_id", "type", "message"})) {
        return e;
    }
    const auto& type = body["type"];
    if (type != "text" && type != "image") {
        return "\"type\" must be \"text\" or \"image\"";
    }
    const auto& message = body["message"];
    if (!message.is_object()) {
        return "\"message\" must be an object";
    }
    return type == "text" ? check_text_message(message) : check_image_message(message);
}

std::optional<std::string> check_send_template(const Json& body) {
    if (auto e = check_send_keys(body, {"userName", "wa_id", "templateId", "params"})) {
        return e;
    }
    if (!is_non_empty_string(body["templateId"])) {
        return "\"templateId\" must be a non-empty string";
    }
    if (!body["params"].is_array()) {
        return "\"params\" must be an array";
    }
    return std::nullopt;
}

std::optional<std::string> check_status_update(const Json& body) {
    if (!body.is_object()) {
        return "body must be a JSON object";
    }
    if (auto e = unknown_key(body, {"ids", "status", "subscriberIds"}, "")) {
        return e;
    }
    if (auto e = missing_key(body, {"ids", "status"}, "")) {
        return e;
    }
    const auto& ids = body["ids"];
    if (!ids.is_array() || ids.empty() ||
        !std::all_of(ids.begin(), ids.end(), [](const Json& id) { return is_non_empty_string(id); })) {
        return "\"ids\" must be a non-empty array of non-empty strings";
    }
    if (!is_non_empty_string(body["status"])) {
        return "\"status\" must be a non-empty string";
    }
    if (body.contains("subscriberIds")) {
        const auto& subscribers = body["subscriberIds"];
        if (!subscribers.is_array() ||
            !std::all_of(subscribers.begin(), subscribers.end(), [](const Json& id) { return id.is_string(); })) {
            return "\"subscriberIds\" must be an array of strings";
        }
    }
    return std::nullopt;
}

bool is_json_content_type(std::string_view content_type) {
    auto media = content_type.substr(0, content_type.find(';'));
    while (!media.empty() && (media.back() == ' ' || media.back() == '\t')) {
        media.remove_suffix(1);
    }
    while (!media.empty() && (media.front() == ' ' || media.front() == '\t')) {
        media.remove_prefix(1);
    }
    return media.size() == 16 && util::starts_with_nocase(media, "application/json");
}

}  // namespace sandbox
