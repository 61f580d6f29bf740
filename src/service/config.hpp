#pragma once
// How to reach the service: address, credentials and transport settings.

#include <chrono>
#include <string>
#include <utility>
#include <vector>

#include "service/base_url.hpp"

namespace service {

// Where the API key travels; the interface document shows both, so both is the default.
struct ApiKeyIn {
    bool header = true;
    bool query = true;
};

// Which HTTP version to speak (service.http). On https:// both automatic and http2 ask for
// HTTP/2 by ALPN and take HTTP/1.1 when the server offers only that; on plain http://
// automatic speaks HTTP/1.1, and a campaign file refuses http2 there (prior knowledge, h2c,
// fails in libcurl 7.88 once requests share the connection).
enum class HttpVersion { automatic, http1_1, http2 };

struct ServiceConfig {
    std::string base_url;      // e.g. "https://api.example.com" (no trailing slash needed)
    std::string api_key;       // secret: never printed or logged
    std::string access_token;  // secret: Bearer token for status update (cleanup only)
    ApiKeyIn api_key_in;
    std::vector<std::pair<std::string, std::string>> headers;  // fixed extra headers
    std::chrono::milliseconds timeout{15'000};                 // whole-request timeout
    std::string ca_file;                                       // extra CA bundle; TLS verify stays on
    InsecureHttp insecure_http = InsecureHttp::refuse;         // service.allow_insecure_http
    HttpVersion http = HttpVersion::automatic;                 // service.http
};

}  // namespace service
