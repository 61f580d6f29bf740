#pragma once
// One request in flight through libcurl: its buffers, the callbacks that fill them, and what a
// failure means. Internal to the service's CurlTransport.

#include <cstddef>
#include <cstdint>
#include <curl/curl.h>
#include <string>

#include "service/http.hpp"

namespace service::detail {

// One request in flight: its handle, buffers and what came back.
struct Transfer {
    std::uint64_t id = 0;
    CURL* easy = nullptr;
    curl_slist* headers = nullptr;  // owned by the transport's header cache
    HttpRequest request;
    HttpResponse response;
    char error_buffer[CURL_ERROR_SIZE] = {};
};

// CURLOPT_WRITEFUNCTION and CURLOPT_HEADERFUNCTION, with the Transfer as their data: the body,
// and the headers by lower-cased name (those of the last response only).
size_t on_body(char* data, size_t size, size_t count, void* user);
size_t on_header(char* data, size_t size, size_t count, void* user);

// Whether the environment names a proxy for libcurl (it reads these at every request).
bool proxy_in_environment();

// What kind of failure curl's `code` is.
TransportFailure failure_of(CURLcode code);

// `message` with the request's URL masked: curl's messages may quote it, and its query carries
// the API key.
std::string scrub(std::string message, const HttpRequest& request);

} // namespace service::detail
