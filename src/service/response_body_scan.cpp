#include <cstdint>
#include <utility>

#include "service/response_body.hpp"
#include "util/json_scan.hpp"

namespace service {

// Reads the members that matter, skipping the rest: an answer a message costs a DOM
// otherwise (a fifth of the send path's instructions).
std::optional<BodyFacts> scan_body(std::string_view body) {
    util::JsonScanner in(body);
    if (in.peek() != '{') {
        return std::nullopt;
    }
    BodyFacts facts;
    facts.is_json = true;
    std::string error_message, details, top_message, data_message_id, top_message_id, top_id, first_message_id;
    const auto string_or_skip = [&in](std::string& out) {
        return in.peek() == '"' ? in.read_string(out) : in.skip_value();
    };
    const auto read_error = [&]() {
        if (in.peek() == '"') {
            return in.read_string(error_message);
        }
        if (in.peek() != '{') {
            return in.skip_value();
        }
        return in.read_object([&](std::string_view key) {
            if (key == "code") {
                const char c = in.peek();
                if (c != '-' && (c < '0' || c > '9')) {
                    return in.skip_value();
                }
                std::int64_t code = 0;
                if (!in.read_int(code)) {
                    return false;  // a fraction or an exponent: not an integer code
                }
                facts.error_code = code;
                return true;
            }
            if (key == "message") {
                return string_or_skip(error_message);
            }
            if (key == "error_data" && in.peek() == '{') {
                return in.read_object(
                    [&](std::string_view k) { return k == "details" ? string_or_skip(details) : in.skip_value(); });
            }
            return in.skip_value();
        });
    };
    const bool read = in.read_object([&](std::string_view key) {
        if (key == "success") {
            if (in.peek() == 't' || in.peek() == 'f') {
                bool value = true;
                if (!in.read_bool(value)) {
                    return false;
                }
                facts.success_false = !value;
                return true;
            }
            return in.skip_value();
        }
        if (key == "error") {
            return read_error();
        }
        if (key == "message") {
            return string_or_skip(top_message);
        }
        if (key == "messageId") {
            return string_or_skip(top_message_id);
        }
        if (key == "id") {
            return string_or_skip(top_id);
        }
        if (key == "data" && in.peek() == '{') {
            return in.read_object([&](std::string_view k) {
                return k == "messageId" ? string_or_skip(data_message_id) : in.skip_value();
            });
        }
        if (key == "messages" && in.peek() == '[') {
            bool first = true;
            return in.read_array([&]() {
                if (std::exchange(first, false) && in.peek() == '{') {
                    return in.read_object([&](std::string_view k) {
                        return k == "id" ? string_or_skip(first_message_id) : in.skip_value();
                    });
                }
                return in.skip_value();
            });
        }
        return in.skip_value();
    });
    if (!read || !in.finish()) {
        return std::nullopt;
    }
    facts.error_text = error_message;
    if (!details.empty()) {
        facts.error_text += facts.error_text.empty() ? details : " — " + details;
    }
    if (facts.error_text.empty()) {
        facts.error_text = top_message;
    }
    facts.error_text = clip_error_text(facts.error_text);
    for (const std::string* id : {&data_message_id, &top_message_id, &top_id, &first_message_id}) {
        if (!id->empty()) {
            facts.message_id = *id;
            break;
        }
    }
    return facts;
}

}  // namespace service
