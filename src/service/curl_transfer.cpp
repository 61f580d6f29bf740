#include "service/curl_transfer.hpp"

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <string_view>

#include "service/requests.hpp"

namespace service::detail {

size_t on_body(char* data, size_t size, size_t count, void* user) {
    auto* transfer = static_cast<Transfer*>(user);
    transfer->response.body.append(data, size * count);
    return size * count;
}

size_t on_header(char* data, size_t size, size_t count, void* user) {
    auto* transfer = static_cast<Transfer*>(user);
    std::string_view line(data, size * count);
    if (line.rfind("HTTP/", 0) == 0) {
        transfer->response.headers.clear();  // a new response (after 100-continue or a redirect)
        return size * count;
    }
    size_t colon = line.find(':');
    if (colon == std::string_view::npos) {
        return size * count;
    }
    std::string name(line.substr(0, colon));
    std::transform(name.begin(), name.end(), name.begin(),
                   [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    std::string_view value = line.substr(colon + 1);
    while (!value.empty() && (value.front() == ' ' || value.front() == '\t')) {
        value.remove_prefix(1);
    }
    while (!value.empty() && (value.back() == '\r' || value.back() == '\n' || value.back() == ' ')) {
        value.remove_suffix(1);
    }
    transfer->response.headers.emplace_back(std::move(name), std::string(value));
    return size * count;
}

bool proxy_in_environment() {
    for (const char* name : {"http_proxy", "https_proxy", "HTTPS_PROXY", "all_proxy", "ALL_PROXY", "no_proxy",
                             "NO_PROXY"}) {
        if (const char* value = std::getenv(name); value != nullptr && *value != '\0') {
            return true;
        }
    }
    return false;
}

TransportFailure failure_of(CURLcode code) {
    switch (code) {
    case CURLE_OPERATION_TIMEDOUT: return TransportFailure::timeout;
    case CURLE_COULDNT_CONNECT: return TransportFailure::connect;
    case CURLE_COULDNT_RESOLVE_HOST:
    case CURLE_COULDNT_RESOLVE_PROXY: return TransportFailure::dns;
    case CURLE_GOT_NOTHING:
    case CURLE_SEND_ERROR:
    case CURLE_RECV_ERROR:
    case CURLE_PARTIAL_FILE: return TransportFailure::connection_lost;
    case CURLE_SSL_CONNECT_ERROR:
    case CURLE_PEER_FAILED_VERIFICATION:
    case CURLE_SSL_CERTPROBLEM:
    case CURLE_SSL_CIPHER:
    case CURLE_SSL_CACERT_BADFILE: return TransportFailure::tls;
    default: return TransportFailure::other;
    }
}

std::string scrub(std::string message, const HttpRequest& request) {
    const std::string safe = redacted_url(request.url);
    for (size_t pos = 0; (pos = message.find(request.url, pos)) != std::string::npos;) {
        message.replace(pos, request.url.size(), safe);
        pos += safe.size();
    }
    return message;
}

} // namespace service::detail
