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

namespace {

// Walks `text` as interpolate() reads it: `literal(c)` for each character it keeps (a `$$` gives
// one '$'), `variable(name)` for each `${NAME}`, which may fail. Fails on an unterminated `${` or
// an empty name.
template <typename Literal, typename Variable>
Result<void> walk(std::string_view text, Literal&& literal, Variable&& variable) {
    for (size_t i = 0; i < text.size(); ++i) {
        if (text[i] != '$' || i + 1 >= text.size()) {
            literal(text[i]);
            continue;
        }
        if (text[i + 1] == '$') {
            literal('$');
            ++i;
            continue;
        }
        if (text[i + 1] != '{') {
            literal('$');
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
        TRY(variable(name));
        i = close;
    }
    return {};
}

}  // namespace

Result<std::string> interpolate(std::string_view text, const Environment& env) {
    std::string out;
    out.reserve(text.size());
    TRY(walk(
        text, [&](char c) { out.push_back(c); },
        [&](const std::string& name) -> Result<void> {
            auto value = env.get(name);
            if (!value) {
                return fail("environment variable " + name + " is not set");
            }
            out += *value;
            return {};
        }));
    return out;
}

std::vector<std::string> variables_in(std::string_view text) {
    std::vector<std::string> names;
    // A malformed reference names what it could before it: interpolate() refuses the text anyway.
    (void)walk(
        text, [](char) {},
        [&](const std::string& name) -> Result<void> {
            names.push_back(name);
            return {};
        });
    return names;
}

}  // namespace util
