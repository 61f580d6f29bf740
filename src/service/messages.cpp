#include "service/messages.hpp"

#include <nlohmann/json.hpp>

#include "util/json_string.hpp"
#include "util/text.hpp"

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

namespace {

// {"type":"header","parameters":[…]}: the header's text, or its media by link.
nlohmann::json header_component(const OutgoingMessage& m) {
    nlohmann::json parameter;
    switch (m.form->header) {
    case TemplateHeader::none: return nullptr;
    case TemplateHeader::text: parameter = {{"type", "text"}, {"text", m.header_value}}; break;
    case TemplateHeader::image: parameter = {{"type", "image"}, {"image", {{"link", m.header_value}}}}; break;
    case TemplateHeader::video: parameter = {{"type", "video"}, {"video", {{"link", m.header_value}}}}; break;
    case TemplateHeader::document: {
        nlohmann::json document = {{"link", m.header_value}};
        if (!m.filename.empty()) {
            document["filename"] = m.filename;
        }
        parameter = {{"type", "document"}, {"document", std::move(document)}};
        break;
    }
    }
    return {{"type", "header"}, {"parameters", nlohmann::json::array({std::move(parameter)})}};
}

nlohmann::json template_params(const OutgoingMessage& m) {
    auto params = nlohmann::json::array();
    if (auto header = header_component(m); !header.is_null()) {
        params.push_back(std::move(header));
    }
    if (!m.body_values.empty()) {
        auto parameters = nlohmann::json::array();
        for (std::size_t i = 0; i < m.body_values.size(); ++i) {
            nlohmann::json parameter = {{"type", "text"}, {"text", m.body_values[i]}};
            if (i < m.form->body_names.size()) {
                parameter["parameter_name"] = m.form->body_names[i];
            }
            parameters.push_back(std::move(parameter));
        }
        params.push_back({{"type", "body"}, {"parameters", std::move(parameters)}});
    }
    for (std::size_t i = 0; i < m.button_texts.size() && i < m.form->button_indexes.size(); ++i) {
        params.push_back({{"type", "button"},
                          {"sub_type", "url"},
                          {"index", std::to_string(m.form->button_indexes[i])},
                          {"parameters", nlohmann::json::array({{{"type", "text"}, {"text", m.button_texts[i]}}})}});
    }
    return params;
}

}  // namespace

std::string send_template_body(const OutgoingMessage& message) {
    nlohmann::json j;
    j["params"] = message.form ? template_params(message) : nlohmann::json::array();
    j["templateId"] = message.form ? message.form->id : std::string();
    j["userName"] = message.user_name;
    j["wa_id"] = message.wa_id;
    return dump(j);
}

std::string request_body(const OutgoingMessage& message) {
    return message.kind == MessageKind::template_message ? send_template_body(message) : send_message_body(message);
}

MarketingHold marketing_hold_of(MessageKind kind, std::string_view category) {
    if (kind != MessageKind::template_message || category.empty() || util::ascii_lower(category) == "marketing") {
        return MarketingHold::applies;
    }
    return MarketingHold::not_applicable;
}

MarketingHold marketing_hold_of(const OutgoingMessage& message) {
    return marketing_hold_of(message.kind, message.form != nullptr ? message.form->category : std::string_view());
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
