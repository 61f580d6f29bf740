#include "util/env.hpp"

#include <cstdlib>

namespace util {

std::optional<std::string> ProcessEnvironment::get(const std::string& name) const {
    const char* value = std::getenv(name.c_str());
    if (value == nullptr) {
        return std::nullopt;
    }
    return std::string(value);
}

std::optional<std::string> MapEnvironment::get(const std::string& name) const {
    auto it = m_vars.find(name);
    if (it == m_vars.end()) {
        return std::nullopt;
    }
    return it->second;
}

Result<std::string> interpolate(std::string_view text, const Environment& env) {
    std::string out;
    out.reserve(text.size());
    for (size_t i = 0; i < text.size(); ++i) {
        if (text[i] != '$' || i + 1 >= text.size()) {
            out.push_back(text[i]);
            continue;
        }
        if (text[i + 1] == '$') {
            out.push_back('$');
            ++i;
            continue;
        }
        if (text[i + 1] != '{') {
            out.push_back('$');
            continue;
        }
        size_t close = text.find('}', i + 2);
        if (close == std::string_view::npos) {
            return fail("unterminated \"${\" in \"" + std::string(text) + "\"");
        }
        std::string name(text.substr(i + 2, close - i - 2));
        if (name.empty()) {
            return fail("empty variable name \"${}\"");
        }
        auto value = env.get(name);
        if (!value) {
            return fail("environment variable " + name + " is not set");
        }
        out += *value;
        i = close;
    }
    return out;
}

}  // namespace util
