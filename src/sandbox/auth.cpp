#include "sandbox/auth.hpp"

#include "util/text.hpp"

namespace sandbox {

namespace {

// Compares without stopping at the first difference, as a real service would.
bool same_secret(std::string_view a, std::string_view b) {
    unsigned char diff = a.size() == b.size() ? 0 : 1;
    for (size_t i = 0; i < a.size() && i < b.size(); ++i) {
        diff |= static_cast<unsigned char>(a[i] ^ b[i]);
    }
    return diff == 0;
}

std::optional<std::string> check_one(const std::optional<std::string>& value, std::string_view where,
                                     std::string_view expected) {
    if (!value) {
        return "no apiKey " + std::string(where);
    }
    if (!same_secret(*value, expected)) {
        return "the apiKey " + std::string(where) + " is not valid";
    }
    return std::nullopt;
}

}  // namespace

std::optional<std::string> check_api_key(KeyIn where, const PresentedKey& presented, std::string_view expected) {
    switch (where) {
    case KeyIn::header: return check_one(presented.header, "header", expected);
    case KeyIn::query: return check_one(presented.query, "query parameter", expected);
    case KeyIn::both:
        if (auto e = check_one(presented.header, "header", expected)) {
            return e;
        }
        return check_one(presented.query, "query parameter", expected);
    case KeyIn::either: break;
    }
    if (!presented.header && !presented.query) {
        return std::string("no apiKey header or query parameter");
    }
    if (presented.header) {
        if (auto e = check_one(presented.header, "header", expected)) {
            return e;
        }
    }
    if (presented.query) {
        return check_one(presented.query, "query parameter", expected);
    }
    return std::nullopt;
}

std::optional<std::string> check_bearer(const std::optional<std::string>& authorization, std::string_view expected) {
    if (!authorization) {
        return std::string("no Authorization header");
    }
    std::string_view value(*authorization);
    constexpr std::string_view scheme = "bearer ";
    if (value.size() <= scheme.size() || !util::starts_with_nocase(value, scheme)) {
        return std::string("the Authorization header is not \"Bearer TOKEN\"");
    }
    value.remove_prefix(scheme.size());
    while (!value.empty() && value.front() == ' ') {
        value.remove_prefix(1);
    }
    if (!same_secret(value, expected)) {
        return std::string("the Bearer token is not valid");
    }
    return std::nullopt;
}

}  // namespace sandbox
