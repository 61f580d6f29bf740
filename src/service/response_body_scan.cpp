#include <cstdint>
#include <utility>

#include "service/response_body.hpp"
#include "util/json_scan.hpp"

namespace service {

namespace {

// One pass over an answer's body: the members that matter are read, the rest skipped. Each
// reader returns false when the body is not JSON as expected (scan_body then gives up).
class BodyScan {
public:
    explicit BodyScan(std::string_view body) : m_in(body) {}

    std::optional<BodyFacts> run() {
        if (m_in.peek() != '{') {
            return std::nullopt;
        }
        m_facts.is_json = true;
        if (!m_in.read_object([this](std::string_view key) { return member(key); }) || !m_in.finish()) {
            return std::nullopt;
        }
        return facts();
    }

private:
    // A string member into `out`; any other value skipped.
    bool string_or_skip(std::string& out) { return m_in.peek() == '"' ? m_in.read_string(out) : m_in.skip_value(); }

    // A top-level member.
    bool member(std::string_view key) {
        if (key == "success") {
            return success();
        }
        if (key == "error") {
            return error();
        }
        if (key == "message") {
            return string_or_skip(m_top_message);
        }
        if (key == "messageId") {
            return string_or_skip(m_top_message_id);
        }
        if (key == "id") {
            return string_or_skip(m_top_id);
        }
        if (key == "data" && m_in.peek() == '{') {
            return m_in.read_object([this](std::string_view k) {
                return k == "messageId" ? string_or_skip(m_data_message_id) : m_in.skip_value();
            });
        }
        if (key == "messages" && m_in.peek() == '[') {
            return messages();
        }
        return m_in.skip_value();
    }

    // "success": only a boolean counts.
    bool success() {
        if (m_in.peek() != 't' && m_in.peek() != 'f') {
            return m_in.skip_value();
        }
        bool value = true;
        if (!m_in.read_bool(value)) {
            return false;
        }
        m_facts.success_false = !value;
        return true;
    }

    // "error": a string, or Meta's object with code, message and error_data.details.
    bool error() {
        if (m_in.peek() == '"') {
            return m_in.read_string(m_error_message);
        }
        if (m_in.peek() != '{') {
            return m_in.skip_value();
        }
        return m_in.read_object([this](std::string_view key) {
            if (key == "code") {
                return code();
            }
            if (key == "message") {
                return string_or_skip(m_error_message);
            }
            if (key == "error_data" && m_in.peek() == '{') {
                return m_in.read_object([this](std::string_view k) {
                    return k == "details" ? string_or_skip(m_details) : m_in.skip_value();
                });
            }
            return m_in.skip_value();
        });
    }

    // "error.code": an integer; anything else is skipped, a fraction or an exponent refused.
    bool code() {
        const char c = m_in.peek();
        if (c != '-' && (c < '0' || c > '9')) {
            return m_in.skip_value();
        }
        std::int64_t code = 0;
        if (!m_in.read_int(code)) {
            return false;
        }
        m_facts.error_code = code;
        return true;
    }

    // "messages": the first element's "id" (Meta's answer).
    bool messages() {
        bool first = true;
        return m_in.read_array([this, &first]() {
            if (std::exchange(first, false) && m_in.peek() == '{') {
                return m_in.read_object([this](std::string_view k) {
                    return k == "id" ? string_or_skip(m_first_message_id) : m_in.skip_value();
                });
            }
            return m_in.skip_value();
        });
    }

    // The facts, once the whole body was read: the error text from its parts, the first id found.
    BodyFacts facts() {
        m_facts.error_text = m_error_message;
        if (!m_details.empty()) {
            m_facts.error_text += m_facts.error_text.empty() ? m_details : " — " + m_details;
        }
        if (m_facts.error_text.empty()) {
            m_facts.error_text = m_top_message;
        }
        m_facts.error_text = clip_error_text(m_facts.error_text);
        for (const std::string* id : {&m_data_message_id, &m_top_message_id, &m_top_id, &m_first_message_id}) {
            if (!id->empty()) {
                m_facts.message_id = *id;
                break;
            }
        }
        return std::move(m_facts);
    }

    util::JsonScanner m_in;
    BodyFacts m_facts;
    std::string m_error_message, m_details, m_top_message;
    std::string m_data_message_id, m_top_message_id, m_top_id, m_first_message_id;
};

}  // namespace

// Reads the members that matter, skipping the rest: an answer a message costs a DOM
// otherwise (a fifth of the send path's instructions).
std::optional<BodyFacts> scan_body(std::string_view body) {
    return BodyScan(body).run();
}

}  // namespace service
