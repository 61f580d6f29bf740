#pragma once
// One request in flight through libcurl: its buffers, the callbacks that fill them, and what a
// failure means. Internal to the service's CurlTransport.

#include <curl/curl.h>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_map>

#include "service/config.hpp"
#include "service/http.hpp"

namespace service::detail {

// The lowest last-stream-id of the GOAWAY frames each connection received (by libcurl's number
// of the connection), as libcurl's informational texts tell them.
using GoawayBook = std::unordered_map<long, std::uint32_t>;

// One request in flight: its handle, buffers and what came back.
struct Transfer {
    std::uint64_t id = 0;
    CURL* easy = nullptr;
    curl_slist* headers = nullptr;  // owned by the transport's header cache
    HttpRequest request;
    HttpResponse response;
    std::chrono::steady_clock::time_point started;
    std::size_t body_handed = 0;     // bytes of request.body given to libcurl (on_read)
    bool body_with_headers = false;  // request.body is CURLOPT_POSTFIELDS: sent with the headers
    int requests_begun = 0;          // requests libcurl began on a connection (on_prereq)
    bool body_capped = false;        // the answer's body passed its cap (on_body): cut short there
    std::size_t header_bytes = 0;    // kept of the last response's headers
    bool answer_begun = false;       // a status line came back (on_header)
    char error_buffer[CURL_ERROR_SIZE] = {};
    // What libcurl's informational texts (on_debug) said of the first request, over HTTP/2 only.
    long connection = -1;             // libcurl's number of the connection it went out on
    std::uint32_t stream_id = 0;      // its HTTP/2 stream
    bool refused_by_libcurl = false;  // "REFUSED_STREAM, retrying a fresh connect"
    bool resend_decided = false;      // libcurl chose to send the request again (texts after are not of the first)
    GoawayBook* goaways = nullptr;    // the transport's, shared by its transfers
};

// What is kept of a response's headers; past it further headers are dropped.
inline constexpr std::size_t k_max_kept_headers = 64 * 1024;

// Parsed URLs and header lists, one per distinct value (a campaign has two or three), kept
// for the transport's life instead of being made and freed for every request.
class RequestCache {
public:
    RequestCache() = default;
    ~RequestCache();
    RequestCache(const RequestCache&) = delete;
    RequestCache& operator=(const RequestCache&) = delete;
    // `url` parsed for CURLOPT_CURLU; null when curl cannot parse it (then CURLOPT_URL, and
    // curl reports what is wrong with it).
    CURLU* url(const std::string& url);
    // `headers` as a header list, with "Expect:" (no 100-continue round trip).
    curl_slist* headers(const Headers& headers);

private:
    std::unordered_map<std::string, CURLU*> m_urls;
    std::unordered_map<std::string, curl_slist*> m_header_lists;
    std::string m_key;  // scratch
};

// CURLOPT_WRITEFUNCTION and CURLOPT_HEADERFUNCTION, with the Transfer as their data: the body
// (its first max_body bytes, at most k_max_body_cap: past them on_body sets the response's
// body_cut, and with PastCap::end stops the transfer and sets body_capped), and the headers by
// lower-cased name (those of the last response only).
size_t on_body(char* data, size_t size, size_t count, void* user);
size_t on_header(char* data, size_t size, size_t count, void* user);

// CURLOPT_READFUNCTION: hands out the request's body, once. There is deliberately no seek
// function: libcurl can then never rewind the body to send the request a second time.
size_t on_read(char* buffer, size_t size, size_t count, void* user);

// CURLOPT_DEBUGFUNCTION (with CURLOPT_VERBOSE) for HTTP/2 requests: reads the few texts of
// libcurl 7.88 that tell which connection and stream a request went out on, whether libcurl
// saw it refused (REFUSED_STREAM), and the GOAWAY frames a connection received (into the
// transport's GoawayBook). Nothing else is kept: the texts may quote the URL, and its API key.
int on_debug(CURL* easy, curl_infotype type, char* data, size_t size, void* user);

// Whether the service said it never processed the request of `transfer`, which failed with no
// answer: libcurl saw its stream refused (RST_STREAM with REFUSED_STREAM), or its connection
// received a GOAWAY whose last-stream-id is below the stream (RFC 9113 §6.8, §8.7).
bool never_processed(const Transfer& transfer);

// CURLOPT_PREREQFUNCTION, called before each request libcurl makes on a connection: the
// first goes, any other (libcurl's own retry on a fresh connection) is aborted, so that no
// request leaves without the caller knowing. libcurl 7.88 calls it in MSTATE_DO, which every
// request passes, a retry included (back through MSTATE_CONNECT): with a body from
// CURLOPT_POSTFIELDS, which libcurl can always rewind, it is the one guard.
int on_prereq(void* user, char* primary_ip, char* local_ip, int primary_port, int local_port);

// CURLOPT_PREREQFUNCTION for a request that follows redirects: each hop is a request of its
// own. Only counts them (a request that follows redirects is one that may be made twice).
int on_prereq_following(void* user, char* primary_ip, char* local_ip, int primary_port, int local_port);

// Sets on `easy` what only image checks use: HEAD, and redirects followed to http(s) URLs (the
// service's requests follow none: a 3xx is their answer). Set for every request of `easy`'s:
// a reused handle keeps the last request's options.
void configure_fetch(CURL* easy, const HttpRequest& request);

// Whether the service may have received the whole request of `transfer`, which failed: a
// request with a body from on_read only once a byte of it was handed to libcurl, any other
// once libcurl began sending it.
bool request_may_have_arrived(const Transfer& transfer);

// The Completion of `transfer`, which libcurl ended with `code`: its response (also when
// on_body cut it short), or what went wrong.
Completion completion_of(Transfer& transfer, CURLcode code);

// The Completion of `transfer`, given up at `now` when its deadline passed unanswered.
Completion expired_completion(Transfer& transfer, std::chrono::steady_clock::time_point now);

// The CURLOPT_HTTP_VERSION that speaks `version` to `url`: HTTP/1.1 alone for http1_1; else
// HTTP/2 by ALPN on https (HTTP/1.1 when the server offers only that), HTTP/1.1 on plain http.
long curl_http_version(HttpVersion version, std::string_view url);

// Whether the environment names a proxy for libcurl (it reads these at every request).
bool proxy_in_environment();

// What kind of failure curl's `code` is.
TransportFailure failure_of(CURLcode code);

// `message` with the request's URL masked: curl's messages may quote it, and its query carries
// the API key.
std::string scrub(std::string message, const HttpRequest& request);

}  // namespace service::detail
