#include "service/templates.hpp"

#include <nlohmann/json.hpp>

#include "util/text.hpp"

namespace service {

namespace {

using nlohmann::json;

util::Result<json> data_array(const std::string& body) {
    json j = json::parse(body, nullptr, /*allow_exceptions=*/false);
    if (j.is_discarded() || !j.is_object()) {
        return util::fail("the service's template list is not a JSON object");
    }
    auto data = j.find("data");
    if (data == j.end() || !data->is_array()) {
        return util::fail("the service's template list has no \"data\" array");
    }
    return std::move(*data);
}

std::string text(const json& j, const char* key) {
    auto it = j.find(key);
    return it != j.end() && it->is_string() ? it->get<std::string>() : std::string();
}

}  // namespace

util::Result<std::vector<TemplateInfo>> parse_templates(const std::string& body) {
    TRY_ASSIGN(const json data, data_array(body));
    std::vector<TemplateInfo> out;
    for (const json& record : data) {
        if (!record.is_object()) {
            continue;
        }
        TemplateInfo info;
        info.id = text(record, "_id");
        info.status = text(record, "status");
        info.updated_at = text(record, "updatedAt");
        if (auto c = record.find("configuration"); c != record.end() && c->is_object()) {
            info.name = text(*c, "name");
            info.category = text(*c, "category");
            info.language = text(*c, "language");
            info.header = text(*c, "header");
            info.text_header = text(*c, "textHeader");
            info.body = text(*c, "body");
            info.footer = text(*c, "footer");
            info.media = text(*c, "media");
            for (const char* key : {"quickReply", "ctaButton"}) {
                auto list = c->find(key);
                if (list == c->end() || !list->is_array()) {
                    continue;
                }
                for (const json& button : *list) {
                    if (button.is_object() && !text(button, "text").empty()) {
                        info.buttons.push_back(text(button, "text"));
                    }
                }
            }
        }
        out.push_back(std::move(info));
    }
    return out;
}

util::Result<std::string> templates_json(const std::string& body) {
    TRY_ASSIGN(const json data, data_array(body));
    return util::json_safe(data.dump(2, ' ', false, json::error_handler_t::replace));
}

}  // namespace service
