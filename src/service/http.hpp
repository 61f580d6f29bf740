#pragma once
// HTTP requests and their completions, and the transport interface that carries them.
// The real transport is CurlTransport (libcurl's multi interface); tests may use fakes.

#include <chrono>
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

namespace service {

enum class Method { get, post, put, head };

// What a transfer does with the answer's body past the request's max_body.
enum class PastCap {
    end,   // ends the transfer there: a broken server may answer without end
    read,  // reads the rest and drops it: the connection stays open for the next request
};

// The most any request keeps of an answer's body: the template list of an account with
// thousands of templates is a few MB (docs/decisions.md "The template list, read in full").
inline constexpr std::size_t k_max_body_cap = 16 * 1024 * 1024;

using Headers = std::vector<std::pair<std::string, std::string>>;

struct HttpRequest {
    Method method = Method::get;
    std::string url;  // may carry the API key in its query: never log it (see redacted_url)
    Headers headers;
    std::string body;
    std::chrono::milliseconds timeout{15'000};
    // Redirects followed, to http(s) URLs only; 0 (the service's requests): none, a 3xx is the answer.
    int max_redirects = 0;
    // The most of the answer's body kept (at most k_max_body_cap): past it the answer comes back
    // as a response with its body cut short there and `body_cut` set (see `past_cap`).
    std::size_t max_body = 64 * 1024;
    PastCap past_cap = PastCap::end;
};

struct HttpResponse {
    long status = 0;
    Headers headers;  // names lower-cased
    std::string body;
    bool body_cut = false;  // the body passed the request's max_body: `body` is its beginning
    std::string url;        // the URL that answered, when redirects were followed (else empty)
    int redirects = 0;      // how many were followed
    // Answered over HTTP/2: the connection carries many requests at once.
    bool multiplexed = false;
};

// Why no response came back.
enum class TransportFailure {
    timeout,          // no complete answer in time
    connect,          // connection refused or unreachable: the request never left
    dns,              // the host name did not resolve: the request never left
    connection_lost,  // reset, or closed with nothing received, after the request left
    tls,              // TLS handshake failed: the request never left
    certificate,      // the service's certificate failed verification: the request never left
    other,
};

struct TransportError {
    TransportFailure failure = TransportFailure::other;
    bool request_sent = false;  // true when the service may have received (and acted on) it
    std::string message;        // for people; never contains the URL
};

struct Completion {
    std::uint64_t id = 0;
    std::variant<HttpResponse, TransportError> result;
    std::chrono::milliseconds latency{0};
};

// How HttpTransport::poll waits.
enum class Wait {
    first_progress,  // returns as soon as a request finishes (or the wait ends)
    // Sleeps the whole wait, then returns what finished meanwhile: for a caller that must
    // wake at that time anyway (its next request is due), so that an answer arriving just
    // before costs no wake-up of its own. An answer is read up to the wait late.
    whole,
};

// Carries many requests at once on one thread.
class HttpTransport {
public:
    virtual ~HttpTransport() = default;
    // Starts `request`; a later poll() returns its Completion tagged with `id`.
    virtual void start(std::uint64_t id, HttpRequest request) = 0;
    // Waits at most `max_wait` (see Wait) for progress; returns the requests that finished
    // (maybe none). Requests started since the last call leave here.
    virtual std::vector<Completion> poll(std::chrono::microseconds max_wait, Wait wait = Wait::first_progress) = 0;
    // Number of requests started and not yet returned by poll().
    virtual std::size_t in_flight() const = 0;
};

// Performs one request to completion on `transport` (which must be otherwise idle).
Completion perform(HttpTransport& transport, HttpRequest request);

// Returns `method` as HTTP spells it: "GET", "POST", "PUT" or "HEAD".
std::string_view method_name(Method method);

// Returns the value of header `name` (case-insensitive) in `headers`, or "" if absent.
std::string find_header(const Headers& headers, std::string_view name);

}  // namespace service
