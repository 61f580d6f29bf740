#include "service/base_url.hpp"

#include <algorithm>
#include <charconv>

#include "util/text.hpp"

namespace service {

namespace {

// The length of the scheme and "://" of `url` (7 or 8), or 0 when it is neither http nor https.
size_t scheme_length(std::string_view url) {
    if (util::starts_with_nocase(url, "http://")) {
        return 7;
    }
    return util::starts_with_nocase(url, "https://") ? 8 : 0;
}

// The authority of `url` (what stands between "scheme://" and the path).
std::string_view authority_of(std::string_view url) {
    const size_t start = scheme_length(url);
    const std::string_view rest = url.substr(start);
    return rest.substr(0, rest.find('/'));
}

// The host of `authority` without port or IPv6 brackets.
std::string_view host_of(std::string_view authority) {
    if (authority.starts_with('[')) {
        const size_t close = authority.find(']');
        return authority.substr(1, close == std::string_view::npos ? std::string_view::npos : close - 1);
    }
    return authority.substr(0, authority.find(':'));
}

// Whether `host` is an IPv4 address in 127.0.0.0/8.
bool ipv4_loopback(std::string_view host) {
    int parts = 0;
    int first = -1;
    while (!host.empty()) {
        const size_t dot = host.find('.');
        const std::string_view part = host.substr(0, dot);
        int value = -1;
        const auto [end, error] = std::from_chars(part.data(), part.data() + part.size(), value);
        if (part.empty() || error != std::errc() || end != part.data() + part.size() || value > 255) {
            return false;
        }
        first = parts == 0 ? value : first;
        ++parts;
        host = dot == std::string_view::npos ? std::string_view() : host.substr(dot + 1);
        if (dot != std::string_view::npos && host.empty()) {
            return false;
        }
    }
    return parts == 4 && first == 127;
}

bool loopback(std::string_view host) {
    const std::string low = util::ascii_lower(host);
    return low == "localhost" || low == "::1" || ipv4_loopback(low);
}

// `host` (lower case, IPv6 in brackets), with the three names of this machine's loopback that
// a user writes for one service (localhost, 127.0.0.1, [::1]) spelled one way: 127.0.0.1.
std::string one_loopback_name(std::string host) {
    return host == "localhost" || host == "[::1]" ? std::string(k_loopback_account_host) : host;
}

// `url` as it may be shown: a user name and password before '@' replaced by "***".
std::string shown(std::string_view url) {
    const size_t start = url.find("://") == std::string_view::npos ? 0 : url.find("://") + 3;
    const std::string_view rest = url.substr(start);
    const size_t at = rest.substr(0, rest.find('/')).rfind('@');
    if (at == std::string_view::npos) {
        return "\"" + std::string(url) + "\"";
    }
    return "\"" + std::string(url.substr(0, start)) + "***" + std::string(rest.substr(at)) + "\"";
}

}  // namespace

bool insecure_http(std::string_view url) {
    return scheme_length(url) == 7 && !loopback(host_of(authority_of(url)));
}

std::string insecure_http_warning(std::string_view url) {
    return "service.allow_insecure_http: the API key travels unencrypted over plain http:// to " +
           std::string(host_of(authority_of(url)));
}

util::Result<std::string> check_base_url(std::string_view url, InsecureHttp insecure) {
    const size_t scheme = scheme_length(url);
    if (scheme == 0 || scheme == url.size() || url[scheme] == '/') {
        return util::fail("must start with http:// or https:// and name a host, got " + shown(url));
    }
    const std::string_view authority = authority_of(url);
    if (authority.find('@') != std::string_view::npos) {
        // Never repeat it: the part before '@' is a password more often than not.
        return util::fail("must not hold a user name or password, got " + shown(url) +
                          ": the service authenticates with service.api_key, from the environment");
    }
    if (!util::valid_host_port(authority)) {
        return util::fail("must name a host, and a port from 1 to 65535 if any, got " + shown(url));
    }
    // Operation paths are appended to it, so a query, a fragment or a space would corrupt them.
    if (url.find_first_of("?# \t\r\n") != std::string_view::npos) {
        return util::fail("must not hold a query, a fragment or spaces, got " + shown(url));
    }
    if (insecure == InsecureHttp::refuse && insecure_http(url)) {
        return util::fail("plain http:// would send the API key unencrypted to " + std::string(host_of(authority)) +
                          ": use https://, or set service.allow_insecure_http: true if the network is trusted");
    }
    std::string trimmed(url);
    while (trimmed.ends_with('/')) {
        trimmed.pop_back();
    }
    return trimmed;
}

std::string account_of(std::string_view url) {
    const bool https = util::starts_with_nocase(url, "https://");
    const std::string authority = util::ascii_lower(authority_of(url));
    const size_t host_end = authority.starts_with('[') ? authority.find(']') + 1 : authority.find(':');
    const std::string host = one_loopback_name(authority.substr(0, host_end));
    if (host_end == std::string::npos || host_end >= authority.size()) {
        return host;
    }
    const std::string_view port = std::string_view(authority).substr(host_end + 1);
    if (port == (https ? "443" : "80")) {
        return host;
    }
    return host + ":" + std::string(port);
}

}  // namespace service
