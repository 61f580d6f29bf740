#include "service/messages.hpp"

#include <nlohmann/json.hpp>

namespace service {

namespace {

// Invalid UTF-8 in a CSV value must not make the body unsendable: replace bad bytes.
std::string dump(const nlohmann::json& j) {
    return j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

} // namespace

std::string send_message_body(const OutgoingMessage& message) {
    nlohmann::json j;
    j["userName"] = message.user_name;
    j["wa_id"] = message.wa_id;
    if (message.kind == MessageKind::text) {
        j["type"] = "text";
        j["message"] = {{"text", message.text}};
    } else {
        j["type"] = "image";
        nlohmann::json m = {{"source", message.source}};
        if (message.has_label) {
            m["label"] = message.label;
        }
        j["message"] = std::move(m);
    }
    return dump(j);
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

} // namespace service
