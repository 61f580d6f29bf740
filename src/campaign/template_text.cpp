#include "campaign/template_text.hpp"

#include <algorithm>

namespace campaign {

namespace {

// A variable at `at` ("{{…}}"): its inside and the length of the whole; nullopt when `at`
// starts none.
struct Found {
    std::string_view inside;
    std::size_t length = 0;
};

std::optional<Found> variable_at(std::string_view text, std::size_t at) {
    if (text.compare(at, 2, "{{") != 0) {
        return std::nullopt;
    }
    const auto close = text.find("}}", at + 2);
    if (close == std::string_view::npos) {
        return std::nullopt;
    }
    const auto inside = text.substr(at + 2, close - at - 2);
    return Found{inside, close + 2 - at};
}

bool is_number(std::string_view s) {
    return !s.empty() && s.size() <= 3 && std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; });
}

bool is_name(std::string_view s) {
    return !s.empty() && s.front() >= 'a' && s.front() <= 'z' && std::all_of(s.begin(), s.end(), [](char c) {
        return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_';
    });
}

}  // namespace

TemplateVariables variables_of(std::string_view text) {
    TemplateVariables out;
    std::vector<bool> used;
    for (std::size_t i = 0; i < text.size(); ++i) {
        const auto found = variable_at(text, i);
        if (!found) {
            continue;
        }
        if (is_number(found->inside)) {
            const int n = std::stoi(std::string(found->inside));
            if (n > 0) {
                out.positional = std::max(out.positional, n);
                used.resize(static_cast<std::size_t>(out.positional) + 1);
                used[static_cast<std::size_t>(n)] = true;
            }
        } else if (is_name(found->inside)) {
            if (std::find(out.named.begin(), out.named.end(), found->inside) == out.named.end()) {
                out.named.emplace_back(found->inside);
            }
        }
        i += found->length - 1;
    }
    for (int n = 1; n < out.positional; ++n) {
        if (!used[static_cast<std::size_t>(n)]) {
            out.missing.push_back(n);
        }
    }
    return out;
}

std::string filled_in(std::string_view text, const std::vector<std::string>& names,
                      const std::vector<std::string>& values) {
    std::string out;
    out.reserve(text.size());
    for (std::size_t i = 0; i < text.size();) {
        const auto found = variable_at(text, i);
        if (!found) {
            out += text[i++];
            continue;
        }
        const std::string* value = nullptr;
        if (is_number(found->inside) && names.empty()) {
            const auto n = static_cast<std::size_t>(std::stoi(std::string(found->inside)));
            value = n >= 1 && n <= values.size() ? &values[n - 1] : nullptr;
        } else if (is_name(found->inside)) {
            const auto it = std::find(names.begin(), names.end(), found->inside);
            const auto at = static_cast<std::size_t>(it - names.begin());
            value = it != names.end() && at < values.size() ? &values[at] : nullptr;
        }
        out += value != nullptr ? std::string_view(*value) : text.substr(i, found->length);
        i += found->length;
    }
    return out;
}

std::optional<std::string> variable_problem(std::string_view value) {
    if (value.find_first_not_of(" \t\r\n") == std::string_view::npos) {
        return "is empty";
    }
    if (value.find_first_of("\r\n") != std::string_view::npos) {
        return "holds a line break";
    }
    if (value.find('\t') != std::string_view::npos) {
        return "holds a tab";
    }
    if (value.find("     ") != std::string_view::npos) {
        return "holds more than 4 spaces in a row";
    }
    return std::nullopt;
}

}  // namespace campaign
