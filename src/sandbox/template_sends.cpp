#include "sandbox/template_sends.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <nlohmann/json.hpp>

#include "sandbox/validation.hpp"
#include "util/text.hpp"

namespace sandbox {

namespace {

using Json = nlohmann::json;
using Refusal = std::optional<TemplateRefusal>;

Refusal refuse(int code, std::string details) {
    return TemplateRefusal{code, std::move(details)};
}

std::string string_at(const nlohmann::ordered_json& object, const char* key) {
    const auto it = object.find(key);
    return it != object.end() && it->is_string() ? it->get<std::string>() : std::string();
}

// How many values `variables` take: one per {{n}} up to the highest, or one per name.
std::size_t wanted(const campaign::TemplateVariables& variables) {
    return variables.named.empty() ? static_cast<std::size_t>(variables.positional) : variables.named.size();
}

bool is_media(const std::string& kind) {
    return kind == "image" || kind == "video" || kind == "document";
}

// The component's `parameters`, or why it has none Meta would read.
Refusal parameters_of(const Json& component, std::string_view where, const Json*& out) {
    const auto it = component.find("parameters");
    if (it == component.end() || !it->is_array()) {
        return refuse(k_params_problem, fmt::format("{}: \"parameters\" must be an array", where));
    }
    out = &*it;
    return std::nullopt;
}

// A text parameter: {"type": "text", "text": VALUE} (plus "parameter_name" for named variables).
Refusal check_text_parameter(const Json& parameter, std::string_view where,
                             const campaign::TemplateVariables& variables) {
    if (!parameter.is_object() || parameter.value("type", Json()) != "text" || !parameter.contains("text") ||
        !parameter["text"].is_string()) {
        return refuse(k_params_problem, fmt::format("{}: expected {{\"type\": \"text\", \"text\": …}}", where));
    }
    if (auto why = campaign::variable_problem(parameter["text"].get_ref<const std::string&>())) {
        return refuse(k_params_problem, fmt::format("{}: the text {}", where, *why));
    }
    const auto name = parameter.find("parameter_name");
    if (variables.named.empty()) {
        if (name != parameter.end()) {
            return refuse(k_params_problem, fmt::format("{}: \"parameter_name\" for a positional variable", where));
        }
        return std::nullopt;
    }
    if (name == parameter.end() || !name->is_string() ||
        std::find(variables.named.begin(), variables.named.end(), name->get<std::string>()) == variables.named.end()) {
        return refuse(k_params_problem,
                      fmt::format("{}: \"parameter_name\" must name one of the template's variables", where));
    }
    return std::nullopt;
}

// The text parameters of the header or body `component` (null: absent) for `variables`.
Refusal check_text_component(const Json* component, std::string_view part,
                             const campaign::TemplateVariables& variables) {
    const Json* parameters = nullptr;
    if (component != nullptr) {
        if (auto bad = parameters_of(*component, part, parameters)) {
            return bad;
        }
    }
    const std::size_t given = parameters != nullptr ? parameters->size() : 0;
    if (given != wanted(variables)) {
        return refuse(k_params_count_mismatch,
                      fmt::format("{}: number of localizable_params ({}) does not match the expected number of "
                                  "params ({})",
                                  part, given, wanted(variables)));
    }
    for (std::size_t i = 0; i < given; ++i) {
        if (auto bad = check_text_parameter((*parameters)[i], fmt::format("{}.parameters[{}]", part, i), variables)) {
            return bad;
        }
    }
    return std::nullopt;
}

// A media header's one parameter: {"type": KIND, KIND: {"link": URL}} (a document may add "filename").
Refusal check_media_header(const Json* component, const std::string& kind) {
    if (component == nullptr) {
        return refuse(k_params_problem,
                      fmt::format("header: the template's header is {}; params has no header component", kind));
    }
    const Json* parameters = nullptr;
    if (auto bad = parameters_of(*component, "header", parameters)) {
        return bad;
    }
    if (parameters->size() != 1) {
        return refuse(k_params_count_mismatch,
                      fmt::format("header: number of params ({}) does not match the expected number of params (1)",
                                  parameters->size()));
    }
    const Json& parameter = (*parameters)[0];
    const Json type = parameter.is_object() ? parameter.value("type", Json()) : Json();
    if (type != kind) {
        return refuse(k_params_problem, fmt::format("header: the template's header is {}; params gives {}", kind,
                                                    type.is_string() ? type.get<std::string>() : "no type"));
    }
    const auto media = parameter.find(kind);
    const bool linked = media != parameter.end() && media->is_object() && media->contains("link") &&
                        (*media)["link"].is_string() && is_http_url((*media)["link"].get_ref<const std::string&>());
    if (!linked) {
        return refuse(k_params_problem, fmt::format("header.parameters[0]: \"{}.link\" must be an http(s) URL", kind));
    }
    if (media->contains("filename") && (kind != "document" || !(*media)["filename"].is_string())) {
        return refuse(k_params_problem, "header.parameters[0]: \"filename\" is for a document's name, a string");
    }
    return std::nullopt;
}

// The header and body components of `params`, at most one each; buttons are left unchecked.
struct Components {
    const Json* header = nullptr;
    const Json* body = nullptr;
};

Refusal split(const Json& params, Components& out) {
    for (std::size_t i = 0; i < params.size(); ++i) {
        const Json& component = params[i];
        const Json type = component.is_object() ? component.value("type", Json()) : Json();
        const Json** slot = type == "header" ? &out.header : type == "body" ? &out.body : nullptr;
        if (type == "button") {
            continue;  // what a button takes is not in the template list (docs/decisions/service.md)
        }
        if (slot == nullptr) {
            return refuse(k_params_problem,
                          fmt::format("params[{}]: \"type\" must be \"header\", \"body\" or \"button\"", i));
        }
        if (*slot != nullptr) {
            return refuse(k_params_problem,
                          fmt::format("params[{}]: a second {} component", i, type.get<std::string>()));
        }
        *slot = &component;
    }
    return std::nullopt;
}

}  // namespace

TemplateBook::TemplateBook(const nlohmann::ordered_json& records, const std::vector<std::string>& paused)
    : m_paused(paused.begin(), paused.end()) {
    for (const auto& record : records) {
        const std::string id = string_at(record, "_id");
        const auto configuration = record.find("configuration");
        if (id.empty() || configuration == record.end() || !configuration->is_object()) {
            continue;
        }
        Entry entry;
        entry.name = string_at(*configuration, "name");
        entry.status = string_at(record, "status");
        entry.header = util::ascii_lower(string_at(*configuration, "header"));
        entry.header_variables = campaign::variables_of(string_at(*configuration, "textHeader"));
        entry.body_variables = campaign::variables_of(string_at(*configuration, "body"));
        m_by_id.emplace(id, std::move(entry));
    }
}

std::optional<TemplateRefusal> TemplateBook::check(const std::string& template_id, const Json& params) const {
    const auto found = m_by_id.find(template_id);
    if (found == m_by_id.end()) {
        return refuse(k_template_missing,
                      fmt::format("templateId {} is not one of the account's templates", template_id));
    }
    const Entry& t = found->second;
    if (t.status == "PAUSED" || m_paused.count(t.name) > 0) {
        return refuse(k_template_paused, fmt::format("template {} is paused", t.name));
    }
    if (t.status == "DISABLED") {
        return refuse(k_template_disabled, fmt::format("template {} is disabled", t.name));
    }
    if (t.status != "APPROVED") {
        return refuse(k_template_missing, fmt::format("template {} has status {}, not APPROVED", t.name,
                                                      t.status.empty() ? "(none)" : t.status));
    }
    Components components;
    if (auto bad = split(params, components)) {
        return bad;
    }
    if (is_media(t.header)) {
        if (auto bad = check_media_header(components.header, t.header)) {
            return bad;
        }
    } else if (t.header.empty() || t.header == "none" || (t.header == "text" && t.header_variables.empty())) {
        if (components.header != nullptr) {
            return refuse(k_params_problem, fmt::format("header: template {} takes no header parameter", t.name));
        }
    } else if (t.header == "text") {
        if (auto bad = check_text_component(components.header, "header", t.header_variables)) {
            return bad;
        }
    }  // any other header kind: not checked
    return check_text_component(components.body, "body", t.body_variables);
}

util::Result<void> check_template_names(const nlohmann::ordered_json& records, const std::vector<std::string>& names,
                                        std::string_view option) {
    for (const auto& name : names) {
        const bool known = std::any_of(records.begin(), records.end(), [&](const auto& record) {
            const auto configuration = record.find("configuration");
            return configuration != record.end() && configuration->is_object() &&
                   string_at(*configuration, "name") == name;
        });
        if (!known) {
            return util::fail(std::string(option) + " " + name + ": the sandbox has no template of that name");
        }
    }
    return {};
}

}  // namespace sandbox
