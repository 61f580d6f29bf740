#include "service/messages.hpp"

#include <nlohmann/json.hpp>

#include "util/json_string.hpp"

namespace service {

namespace {

// Invalid UTF-8 in a CSV value must not make the body unsendable: replace bad bytes.
std::string dump(const nlohmann::json& j) {
    return j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

}  // namespace

std::string send_message_body(const OutgoingMessage& message) {
    // Built by hand, once per message, in the key order nlohmann::json gives (sorted), so
    // that bodies read the same in previews and logs as the other requests'.
    fmt::memory_buffer out;
    const auto literal = [&out](std::string_view text) { out.append(text.data(), text.data() + text.size()); };
    if (message.kind == MessageKind::text) {
        literal(R"({"message":{"text":)");
        util::append_json_string(out, message.text);
        literal(R"(},"type":"text","userName":)");
    } else {
        literal(R"({"message":{)");
        if (message.has_label) {
            literal(R"("label":)");
            util::append_json_string(out, message.label);
            literal(",");
        }
        literal(R"("source":)");
        util::append_json_string(out, message.source);
        literal(R"(},"type":"image","userName":)");
    }
    util::append_json_string(out, message.user_name);
    literal(R"(,"wa_id":)");
    util::append_json_string(out, message.wa_id);
    literal("}");
    return fmt::to_string(out);
}

std::string status_update_body(const std::vector<std::string>& ids, const std::string& status,
                               const std::vector<std::string>& subscriber_ids) {
    nlohmann::json j;
    j["ids"] = ids;
    j["status"] = status;
    if (!subscriber_ids.empty()) {
        j["subscriberIds"] = subscriber_ids;
    }
    return dump(j);
}

}  // namespace service
