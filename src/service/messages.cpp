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

using Out = fmt::memory_buffer;

void literal(Out& out, std::string_view text) {
    out.append(text.data(), text.data() + text.size());
}

// {"type":"header","parameters":[…]}: the header's text, or its media by link. Keys sorted, as
// nlohmann::json writes them.
void append_header(Out& out, const OutgoingMessage& m) {
    literal(out, R"({"parameters":[{)");
    const auto media = [&](std::string_view kind) {
        const bool type_first = kind > "type";  // "video": keys sorted
        if (type_first) {
            literal(out, R"("type":")");
            literal(out, kind);
            literal(out, "\",");
        }
        literal(out, "\"");
        literal(out, kind);
        literal(out, "\":{");
        if (kind == "document" && !m.filename.empty()) {
            literal(out, R"("filename":)");
            util::append_json_string(out, m.filename);
            literal(out, ",");
        }
        literal(out, R"("link":)");
        util::append_json_string(out, m.header_value);
        literal(out, "}");
        if (!type_first) {
            literal(out, R"(,"type":")");
            literal(out, kind);
            literal(out, "\"");
        }
    };
    switch (m.form->header) {
    case TemplateHeader::none: break;
    case TemplateHeader::text:
        literal(out, R"("text":)");
        util::append_json_string(out, m.header_value);
        literal(out, R"(,"type":"text")");
        break;
    case TemplateHeader::image: media("image"); break;
    case TemplateHeader::video: media("video"); break;
    case TemplateHeader::document: media("document"); break;
    }
    literal(out, R"(}],"type":"header"})");
}

void append_body(Out& out, const OutgoingMessage& m) {
    literal(out, R"({"parameters":[)");
    for (std::size_t i = 0; i < m.body_values.size(); ++i) {
        literal(out, i == 0 ? "{" : ",{");
        if (i < m.form->body_names.size()) {
            literal(out, R"("parameter_name":)");
            util::append_json_string(out, m.form->body_names[i]);
            literal(out, ",");
        }
        literal(out, R"("text":)");
        util::append_json_string(out, m.body_values[i]);
        literal(out, R"(,"type":"text"})");
    }
    literal(out, R"(],"type":"body"})");
}

void append_params(Out& out, const OutgoingMessage& m) {
    literal(out, "[");
    if (m.form == nullptr) {
        literal(out, "]");
        return;
    }
    bool first = true;
    const auto next = [&] {
        literal(out, first ? "" : ",");
        first = false;
    };
    if (m.form->header != TemplateHeader::none) {
        next();
        append_header(out, m);
    }
    if (!m.body_values.empty()) {
        next();
        append_body(out, m);
    }
    for (std::size_t i = 0; i < m.button_texts.size() && i < m.form->button_indexes.size(); ++i) {
        next();
        fmt::format_to(std::back_inserter(out), R"({{"index":"{}","parameters":[{{"text":)", m.form->button_indexes[i]);
        util::append_json_string(out, m.button_texts[i]);
        literal(out, R"(,"type":"text"}],"sub_type":"url","type":"button"})");
    }
    literal(out, "]");
}

}  // namespace

std::string template_params(const OutgoingMessage& message) {
    Out out;
    append_params(out, message);
    return fmt::to_string(out);
}

std::string send_template_body(const OutgoingMessage& message) {
    // Built by hand like send_message_body, keys sorted: the params, then the template's id.
    Out out;
    literal(out, R"({"params":)");
    append_params(out, message);
    literal(out, R"(,"templateId":)");
    util::append_json_string(out, message.form ? std::string_view(message.form->id) : std::string_view());
    literal(out, R"(,"userName":)");
    util::append_json_string(out, message.user_name);
    literal(out, R"(,"wa_id":)");
    util::append_json_string(out, message.wa_id);
    literal(out, "}");
    return fmt::to_string(out);
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
