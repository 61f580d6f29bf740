#include "sandbox/templates.hpp"

#include <charconv>

#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "sandbox/options.hpp"

namespace sandbox {

util::Result<nlohmann::ordered_json> load_templates(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    if (!in) {
        return util::fail(path + ": cannot read the templates file");
    }
    std::stringstream text;
    text << in.rdbuf();
    nlohmann::ordered_json doc;
    try {
        doc = nlohmann::ordered_json::parse(text.str());
    } catch (const nlohmann::ordered_json::parse_error& e) {
        return util::fail(path + ": byte " + std::to_string(e.byte) + ": not valid JSON");
    }
    if (doc.is_object() && doc.contains("data")) {
        doc = doc["data"];
    }
    if (!doc.is_array()) {
        return util::fail(path + ": expected an array of template records (or {\"data\": [...]})");
    }
    for (size_t i = 0; i < doc.size(); ++i) {
        if (!doc[i].is_object()) {
            return util::fail(path + ": record " + std::to_string(i + 1) + " is not an object");
        }
    }
    return doc;
}

std::string templates_user(const nlohmann::ordered_json& records) {
    if (!records.empty() && records[0].contains("_user") && records[0]["_user"].is_string()) {
        return records[0]["_user"].get<std::string>();
    }
    return k_builtin_user;
}

util::Result<TemplateChange> parse_template_change(std::string_view text, ChangeKind kind) {
    const std::string option = kind == ChangeKind::recategorize ? "--recategorize" : "--pause-template";
    const std::string form = kind == ChangeKind::recategorize ? "NAME=CATEGORY@N" : "NAME@N";
    const auto fail = [&](const std::string& why) {
        return util::fail(option + " " + std::string(text) + ": " + why + " (" + form + ")");
    };
    const auto at = text.rfind('@');
    if (at == std::string_view::npos) {
        return fail("no @N");
    }
    TemplateChange change;
    const std::string_view count = text.substr(at + 1);
    const auto [end, ec] = std::from_chars(count.data(), count.data() + count.size(), change.after);
    if (count.empty() || ec != std::errc{} || end != count.data() + count.size() || change.after < 0) {
        return fail("N is not a whole number of 0 or more");
    }
    std::string_view name = text.substr(0, at);
    if (kind == ChangeKind::recategorize) {
        const auto eq = name.find('=');
        if (eq == std::string_view::npos || eq + 1 == name.size()) {
            return fail("no category");
        }
        change.category = std::string(name.substr(eq + 1));
        name = name.substr(0, eq);
    }
    if (name.empty()) {
        return fail("no template name");
    }
    change.name = std::string(name);
    return change;
}

nlohmann::ordered_json changed_templates(const nlohmann::ordered_json& records,
                                         const std::vector<TemplateChange>& changes, long accepted) {
    nlohmann::ordered_json out = records;
    for (const auto& change : changes) {
        if (change.after > accepted || !out.is_array()) {
            continue;
        }
        for (auto& record : out) {
            if (!record.is_object() || !record.contains("configuration") || !record["configuration"].is_object() ||
                record["configuration"].value("name", "") != change.name) {
                continue;
            }
            if (change.category.empty()) {
                record["status"] = "PAUSED";
            } else {
                record["configuration"]["category"] = change.category;
            }
        }
    }
    return out;
}

}  // namespace sandbox
