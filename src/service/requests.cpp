#include "service/requests.hpp"

#include "util/text.hpp"

namespace service {

namespace {

std::string join(std::string_view base, std::string_view path) {
    while (!base.empty() && base.back() == '/') {
        base.remove_suffix(1);
    }
    return std::string(base) + std::string(path);
}

// The request skeleton shared by all operations: URL, fixed headers, timeout.
HttpRequest base_request(const ServiceConfig& config, Method method, std::string_view path) {
    HttpRequest request;
    request.method = method;
    request.url = join(config.base_url, path);
    request.timeout = config.timeout;
    request.headers.emplace_back("User-Agent", user_agent());
    request.headers.emplace_back("Accept", "application/json");
    for (const auto& header : config.headers) {
        request.headers.push_back(header);
    }
    return request;
}

void add_api_key(const ServiceConfig& config, HttpRequest& request) {
    if (config.api_key_in.query) {
        request.url += "?apiKey=" + url_encode(config.api_key);
    }
    if (config.api_key_in.header) {
        request.headers.emplace_back("apiKey", config.api_key);
    }
}

void add_json_body(HttpRequest& request, std::string body) {
    request.headers.emplace_back("Content-Type", "application/json");
    request.body = std::move(body);
}

}  // namespace

std::string user_agent() {
    return "wacamp/" WACAMP_VERSION;
}

HttpRequest list_templates_request(const ServiceConfig& config) {
    HttpRequest request = base_request(config, Method::get, k_templates_path);
    add_api_key(config, request);
    request.max_body = k_max_body_cap;  // read in full: an account may have thousands
    return request;
}

HttpRequest send_message_request(const ServiceConfig& config, std::string body) {
    HttpRequest request = base_request(config, Method::post, k_send_message_path);
    add_api_key(config, request);
    add_json_body(request, std::move(body));
    return request;
}

HttpRequest send_template_request(const ServiceConfig& config, std::string body) {
    HttpRequest request = base_request(config, Method::post, k_send_template_path);
    add_api_key(config, request);
    add_json_body(request, std::move(body));
    return request;
}

HttpRequest status_update_request(const ServiceConfig& config, std::string body) {
    HttpRequest request = base_request(config, Method::put, k_status_update_path);
    request.headers.emplace_back("Authorization", "Bearer " + config.access_token);
    add_json_body(request, std::move(body));
    return request;
}

std::string redacted_url(std::string_view url) {
    std::string out(url);
    size_t query = out.find('?');
    if (query == std::string::npos) {
        return out;
    }
    size_t pos = query;
    while (pos < out.size()) {
        size_t key_start = pos + 1;
        size_t eq = out.find('=', key_start);
        size_t amp = out.find('&', key_start);
        if (eq != std::string::npos && (amp == std::string::npos || eq < amp) &&
            out.compare(key_start, eq - key_start, "apiKey") == 0) {
            size_t value_end = amp == std::string::npos ? out.size() : amp;
            out.replace(eq + 1, value_end - eq - 1, "***");
            amp = out.find('&', eq);
        }
        if (amp == std::string::npos) {
            break;
        }
        pos = amp;
    }
    return out;
}

std::string url_encode(std::string_view text) {
    std::string out;
    out.reserve(text.size());
    for (unsigned char c : text) {
        bool unreserved = (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' ||
                          c == '.' || c == '_' || c == '~';
        if (unreserved) {
            out.push_back(static_cast<char>(c));
        } else {
            out.push_back('%');
            const auto hex = util::hex_digits(c, util::HexCase::upper);
            out.append(hex.data(), hex.size());
        }
    }
    return out;
}

}  // namespace service
