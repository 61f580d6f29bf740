#include "service/curl_transfer.hpp"

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <cstring>
#include <optional>
#include <string_view>

#include <fmt/format.h>

#include "service/requests.hpp"
#include "util/text.hpp"

namespace service::detail {

RequestCache::~RequestCache() {
    for (auto& [text, url] : m_urls) {
        curl_url_cleanup(url);
    }
    for (auto& [key, list] : m_header_lists) {
        curl_slist_free_all(list);
    }
}

CURLU* RequestCache::url(const std::string& url) {
    auto [it, inserted] = m_urls.try_emplace(url, nullptr);
    if (inserted) {
        it->second = curl_url();
        if (it->second == nullptr || curl_url_set(it->second, CURLUPART_URL, url.c_str(), 0) != CURLUE_OK) {
            curl_url_cleanup(it->second);
            it->second = nullptr;
        }
    }
    return it->second;
}

curl_slist* RequestCache::headers(const Headers& headers) {
    m_key.clear();
    for (const auto& [name, value] : headers) {
        m_key.append(name).append(": ").append(value).push_back('\n');
    }
    auto [it, inserted] = m_header_lists.try_emplace(m_key, nullptr);
    if (inserted) {
        for (const auto& [name, value] : headers) {
            it->second = curl_slist_append(it->second, (name + ": " + value).c_str());
        }
        it->second = curl_slist_append(it->second, "Expect:");
    }
    return it->second;
}

size_t on_body(char* data, size_t size, size_t count, void* user) {
    auto* transfer = static_cast<Transfer*>(user);
    const size_t bytes = size * count;
    const size_t room = std::min(k_max_body_cap, transfer->request.max_body) - transfer->response.body.size();
    if (bytes > room) {
        transfer->response.body.append(data, room);
        transfer->response.body_cut = true;
        if (transfer->request.past_cap == PastCap::read) {
            return bytes;
        }
        // A broken server may answer without end: keep what classifies the answer and stop
        // (CURLE_WRITE_ERROR; completion_of still reads the status and these bytes).
        transfer->body_capped = true;
        return 0;
    }
    transfer->response.body.append(data, bytes);
    return bytes;
}

size_t on_header(char* data, size_t size, size_t count, void* user) {
    auto* transfer = static_cast<Transfer*>(user);
    std::string_view line(data, size * count);
    if (line.rfind("HTTP/", 0) == 0) {
        transfer->answer_begun = true;
        transfer->response.headers.clear();  // a new response (after 100-continue or a redirect)
        transfer->header_bytes = 0;
        return size * count;
    }
    size_t colon = line.find(':');
    if (colon == std::string_view::npos || transfer->header_bytes + line.size() > k_max_kept_headers) {
        return size * count;
    }
    transfer->header_bytes += line.size();
    std::string name = util::ascii_lower(line.substr(0, colon));
    const std::string_view value = util::trim(line.substr(colon + 1));
    transfer->response.headers.emplace_back(std::move(name), std::string(value));
    return size * count;
}

size_t on_read(char* buffer, size_t size, size_t count, void* user) {
    auto* transfer = static_cast<Transfer*>(user);
    const std::string& body = transfer->request.body;
    const size_t bytes = std::min(size * count, body.size() - transfer->body_handed);
    std::memcpy(buffer, body.data() + transfer->body_handed, bytes);
    transfer->body_handed += bytes;
    return bytes;
}

namespace {

// The number after `prefix` in `text` (decimal), if `prefix` is there and a digit follows.
std::optional<unsigned long long> number_after(std::string_view text, std::string_view prefix) {
    const size_t at = text.find(prefix);
    if (at == std::string_view::npos) {
        return std::nullopt;
    }
    unsigned long long value = 0;
    size_t i = at + prefix.size();
    if (i >= text.size() || std::isdigit(static_cast<unsigned char>(text[i])) == 0) {
        return std::nullopt;
    }
    for (; i < text.size() && std::isdigit(static_cast<unsigned char>(text[i])) != 0 && value < (1ULL << 40); ++i) {
        value = value * 10 + static_cast<unsigned long long>(text[i] - '0');
    }
    return value;
}

}  // namespace

int on_debug(CURL*, curl_infotype type, char* data, size_t size, void* user) {
    if (type != CURLINFO_TEXT) {
        return 0;
    }
    auto* transfer = static_cast<Transfer*>(user);
    const std::string_view text(data, size);
    // libcurl 7.88's words (lib/url.c, lib/connect.c, lib/http2.c, lib/transfer.c). Only the
    // first request counts: once libcurl decided to make another (which on_prereq aborts),
    // the texts are of that one.
    if (text.rfind("Connection died, retrying", 0) == 0 || text.rfind("Issue another request", 0) == 0) {
        transfer->resend_decided = true;
        return 0;
    }
    if (transfer->resend_decided) {
        return 0;
    }
    if (text.rfind("Re-using existing connection #", 0) == 0) {
        transfer->connection = static_cast<long>(number_after(text, "#").value_or(0));
        return 0;
    }
    if (text.rfind("Connected to ", 0) == 0) {
        if (auto n = number_after(text, "(#")) {
            transfer->connection = static_cast<long>(*n);
        }
        return 0;
    }
    if (text.rfind("Using Stream ID: ", 0) == 0 && transfer->stream_id == 0) {
        transfer->stream_id = static_cast<std::uint32_t>(number_after(text, "Using Stream ID: ").value_or(0));
        return 0;
    }
    if (text.rfind("REFUSED_STREAM, retrying a fresh connect", 0) == 0) {
        transfer->refused_by_libcurl = true;
        return 0;
    }
    // "recveived GOAWAY, error=0, last_stream=13" (so spelt in 7.88), told to whichever request
    // read the frame: it is of that request's connection.
    if (text.find("GOAWAY, error=") != std::string_view::npos && transfer->connection >= 0 &&
        transfer->goaways != nullptr) {
        if (auto last = number_after(text, "last_stream=")) {
            const auto id = static_cast<std::uint32_t>(std::min<unsigned long long>(*last, 0x7fffffffULL));
            auto [it, inserted] = transfer->goaways->try_emplace(transfer->connection, id);
            it->second = std::min(it->second, id);
        }
    }
    return 0;
}

bool never_processed(const Transfer& t) {
    if (t.answer_begun) {
        return false;
    }
    if (t.refused_by_libcurl) {
        return true;
    }
    if (t.stream_id == 0 || t.connection < 0 || t.goaways == nullptr) {
        return false;
    }
    const auto it = t.goaways->find(t.connection);
    return it != t.goaways->end() && it->second < t.stream_id;
}

int on_prereq(void* user, char*, char*, int, int) {
    auto* transfer = static_cast<Transfer*>(user);
    return ++transfer->requests_begun > 1 ? CURL_PREREQFUNC_ABORT : CURL_PREREQFUNC_OK;
}

int on_prereq_following(void* user, char*, char*, int, int) {
    ++static_cast<Transfer*>(user)->requests_begun;
    return CURL_PREREQFUNC_OK;
}

void configure_fetch(CURL* e, const HttpRequest& r) {
    curl_easy_setopt(e, CURLOPT_NOBODY, r.method == Method::head ? 1L : 0L);
    curl_easy_setopt(e, CURLOPT_FOLLOWLOCATION, r.max_redirects > 0 ? 1L : 0L);
    curl_easy_setopt(e, CURLOPT_MAXREDIRS, static_cast<long>(r.max_redirects));
    curl_easy_setopt(e, CURLOPT_REDIR_PROTOCOLS_STR, "http,https");
    // Each hop is a request of its own, which on_prereq would abort as a resend.
    curl_easy_setopt(e, CURLOPT_PREREQFUNCTION, r.max_redirects > 0 ? on_prereq_following : on_prereq);
}

bool request_may_have_arrived(const Transfer& transfer) {
    if (transfer.requests_begun == 0) {
        return false;  // not connected (refused, DNS, TLS, a connect timeout)
    }
    if (!transfer.request.body.empty() && !transfer.body_with_headers) {
        return transfer.body_handed > 0;  // without its body the request was incomplete
    }
    return true;
}

namespace {

// Records in `t`'s response where its redirects led (the URL that answered, or the one curl
// refused to follow to) and how many were followed.
void note_redirects(Transfer& t) {
    long count = 0;
    curl_easy_getinfo(t.easy, CURLINFO_REDIRECT_COUNT, &count);
    t.response.redirects = static_cast<int>(count);
    const char* url = nullptr;
    curl_easy_getinfo(t.easy, CURLINFO_EFFECTIVE_URL, &url);
    t.response.url = url != nullptr ? url : "";
}

}  // namespace

Completion completion_of(Transfer& t, CURLcode code) {
    Completion c;
    c.id = t.id;
    curl_off_t total_us = 0;
    curl_easy_getinfo(t.easy, CURLINFO_TOTAL_TIME_T, &total_us);
    c.latency = std::chrono::milliseconds(total_us / 1000);
    if (code == CURLE_OK || (code == CURLE_WRITE_ERROR && t.body_capped)) {
        long status = 0;
        curl_easy_getinfo(t.easy, CURLINFO_RESPONSE_CODE, &status);
        t.response.status = status;
        long version = 0;
        curl_easy_getinfo(t.easy, CURLINFO_HTTP_VERSION, &version);
        t.response.multiplexed = version == CURL_HTTP_VERSION_2_0;
        if (t.request.max_redirects > 0) {
            note_redirects(t);
        }
        c.result = std::move(t.response);
        return c;
    }
    TransportError error;
    error.failure = failure_of(code);
    error.request_sent = request_may_have_arrived(t);
    if (error.request_sent && never_processed(t)) {
        // The server said so itself: sent again as a request of its own, never by libcurl.
        error.failure = TransportFailure::connection_lost;
        error.request_sent = false;
        error.message = t.refused_by_libcurl
                            ? "the service refused the HTTP/2 stream (REFUSED_STREAM): the request was not processed"
                            : "the service's GOAWAY left the HTTP/2 stream out: the request was not processed";
        c.result = std::move(error);
        return c;
    }
    if (t.request.max_redirects > 0 && (code == CURLE_UNSUPPORTED_PROTOCOL || code == CURLE_TOO_MANY_REDIRECTS)) {
        // Before the resend case below: each hop of a redirect is a request begun.
        note_redirects(t);
        error.message =
            code == CURLE_TOO_MANY_REDIRECTS
                ? fmt::format("more than {} redirects", t.request.max_redirects)
                : fmt::format("redirected to {}, which is not an http(s) URL", util::printable(t.response.url));
    } else if (t.requests_begun > 1 || code == CURLE_SEND_FAIL_REWIND) {
        // curl's own words ("aborted by pre-request callback", "necessary data rewind wasn't
        // possible") would tell a person nothing.
        error.message = error.request_sent ? "the connection closed after the request was sent, with no answer"
                                           : "the connection closed before the request was sent";
    } else {
        error.message = scrub(t.error_buffer[0] != '\0' ? t.error_buffer : curl_easy_strerror(code), t.request);
    }
    c.result = std::move(error);
    return c;
}

Completion expired_completion(Transfer& t, std::chrono::steady_clock::time_point now) {
    Completion c;
    c.id = t.id;
    c.latency = std::chrono::duration_cast<std::chrono::milliseconds>(now - t.started);
    TransportError error;
    error.failure = TransportFailure::timeout;
    error.request_sent = request_may_have_arrived(t);
    error.message = fmt::format("Operation timed out: no answer within {} ms", t.request.timeout.count());
    c.result = std::move(error);
    return c;
}

long curl_http_version(HttpVersion version, std::string_view url) {
    const bool tls = util::starts_with_nocase(url, "https://");
    switch (version) {
    case HttpVersion::http1_1: return CURL_HTTP_VERSION_1_1;
    case HttpVersion::http2:  // a campaign asks for it over https only (see service::HttpVersion)
    case HttpVersion::automatic: break;
    }
    // CURL_HTTP_VERSION_2TLS would speak HTTP/1.1 on plain http as well; saying so outright
    // keeps such requests from waiting to learn whether the connection multiplexes (PIPEWAIT).
    return tls ? CURL_HTTP_VERSION_2TLS : CURL_HTTP_VERSION_1_1;
}

bool proxy_in_environment() {
    for (const char* name :
         {"http_proxy", "https_proxy", "HTTPS_PROXY", "all_proxy", "ALL_PROXY", "no_proxy", "NO_PROXY"}) {
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
    case CURLE_ABORTED_BY_CALLBACK:  // on_prereq: the connection died and libcurl would resend
    case CURLE_SEND_FAIL_REWIND:     // the same, once the body was out
    case CURLE_SEND_ERROR:
    case CURLE_RECV_ERROR:
    case CURLE_PARTIAL_FILE: return TransportFailure::connection_lost;
    case CURLE_SSL_CONNECT_ERROR:
    case CURLE_SSL_CIPHER: return TransportFailure::tls;
    case CURLE_PEER_FAILED_VERIFICATION:
    case CURLE_SSL_CACERT_BADFILE:
    case CURLE_SSL_CERTPROBLEM:
    case CURLE_SSL_ISSUER_ERROR:
    case CURLE_SSL_PINNEDPUBKEYNOTMATCH:
    case CURLE_SSL_INVALIDCERTSTATUS:
    case CURLE_SSL_CRL_BADFILE: return TransportFailure::certificate;
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

}  // namespace service::detail
