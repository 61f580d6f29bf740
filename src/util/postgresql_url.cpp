#include "util/postgresql_url.hpp"

namespace util {

bool is_postgresql_url(std::string_view text) {
    return text.starts_with("postgresql://") || text.starts_with("postgres://");
}

std::optional<UrlPassword> url_password(std::string_view url) {
    const std::size_t scheme = url.find("://");
    if (scheme == std::string_view::npos) {
        return std::nullopt;
    }
    const std::size_t start = scheme + 3;
    const std::size_t end = url.find_first_of("@/?", start);
    if (end != std::string_view::npos && url[end] == '@') {
        const std::size_t colon = url.find(':', start);
        if (colon < end) {
            return UrlPassword{colon + 1, end - colon - 1, false};
        }
    }
    const std::size_t query = url.find('?', start);
    for (std::size_t at = query; at != std::string_view::npos; at = url.find('&', at + 1)) {
        if (url.substr(at + 1).starts_with("password=")) {
            const std::size_t value = at + 1 + std::string_view("password=").size();
            const std::size_t value_end = std::min(url.find('&', value), url.size());
            return UrlPassword{value, value_end - value, true};
        }
    }
    return std::nullopt;
}

std::string url_without_password(std::string_view url) {
    std::string out(url);
    // A URL may name its password twice (user:pw@ and password=): leave out each.
    while (auto password = url_password(out)) {
        if (!password->in_query) {
            out.erase(password->at - 1, password->size + 1);  // with its ':'
            continue;
        }
        // `?password=…&next=…` → `?next=…`; `…&password=…` → `…`.
        const std::size_t start = password->at - std::string_view("password=").size() - 1;
        const std::size_t end = password->at + password->size;
        if (out[start] == '?' && end < out.size()) {
            out.erase(start + 1, end + 1 - (start + 1));
        } else {
            out.erase(start, end - start);
        }
    }
    return out;
}

}  // namespace util
