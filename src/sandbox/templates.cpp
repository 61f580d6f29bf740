#include "sandbox/templates.hpp"

#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

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

}  // namespace sandbox
