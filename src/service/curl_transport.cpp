#include "service/curl_transport.hpp"

#include <algorithm>
#include <cctype>
#include <curl/curl.h>
#include <mutex>
#include <stdexcept>
#include <unordered_map>

#include "service/requests.hpp"

namespace service {

namespace {

struct GlobalInit {
    GlobalInit() { curl_global_init(CURL_GLOBAL_DEFAULT); }
};

void ensure_global_init() {
    static GlobalInit init;  // curl_global_init is not thread-safe: do it once
}

// One request in flight: its handle, buffers and what came back.
struct Transfer {
    std::uint64_t id = 0;
    CURL* easy = nullptr;
    curl_slist* headers = nullptr;
    HttpRequest request;
    HttpResponse response;
    char error_buffer[CURL_ERROR_SIZE] = {};
};

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

// curl's messages may quote the URL, whose query carries the API key.
std::string scrub(std::string message, const HttpRequest& request) {
    const std::string safe = redacted_url(request.url);
    for (size_t pos = 0; (pos = message.find(request.url, pos)) != std::string::npos;) {
        message.replace(pos, request.url.size(), safe);
        pos += safe.size();
    }
    return message;
}

} // namespace

struct CurlTransport::Impl {
    CurlOptions options;
    CURLM* multi = nullptr;
    std::vector<CURL*> idle;  // finished handles, kept for reuse
    std::unordered_map<CURL*, std::unique_ptr<Transfer>> active;

    CURL* take_handle() {
        if (!idle.empty()) {
            CURL* easy = idle.back();
            idle.pop_back();
            curl_easy_reset(easy);
            return easy;
        }
        CURL* easy = curl_easy_init();
        if (easy == nullptr) {
            throw std::runtime_error("libcurl could not create a handle");
        }
        return easy;
    }

    void configure(Transfer& t) {
        CURL* e = t.easy;
        const HttpRequest& r = t.request;
        curl_easy_setopt(e, CURLOPT_URL, r.url.c_str());
        curl_easy_setopt(e, CURLOPT_NOSIGNAL, 1L);
        curl_easy_setopt(e, CURLOPT_TIMEOUT_MS, static_cast<long>(r.timeout.count()));
        curl_easy_setopt(e, CURLOPT_CONNECTTIMEOUT_MS,
                         static_cast<long>(std::min<long long>(r.timeout.count(), 10'000)));
        curl_easy_setopt(e, CURLOPT_WRITEFUNCTION, on_body);
        curl_easy_setopt(e, CURLOPT_WRITEDATA, &t);
        curl_easy_setopt(e, CURLOPT_HEADERFUNCTION, on_header);
        curl_easy_setopt(e, CURLOPT_HEADERDATA, &t);
        curl_easy_setopt(e, CURLOPT_ERRORBUFFER, t.error_buffer);
        curl_easy_setopt(e, CURLOPT_TCP_KEEPALIVE, 1L);
        curl_easy_setopt(e, CURLOPT_PROTOCOLS_STR, "http,https");
        curl_easy_setopt(e, CURLOPT_SSL_VERIFYPEER, 1L);
        curl_easy_setopt(e, CURLOPT_SSL_VERIFYHOST, 2L);
        if (!options.ca_file.empty()) {
            curl_easy_setopt(e, CURLOPT_CAINFO, options.ca_file.c_str());
        }
        switch (r.method) {
        case Method::get: curl_easy_setopt(e, CURLOPT_HTTPGET, 1L); break;
        case Method::post: curl_easy_setopt(e, CURLOPT_POST, 1L); break;
        case Method::put: curl_easy_setopt(e, CURLOPT_CUSTOMREQUEST, "PUT"); break;
        }
        if (r.method != Method::get) {
            curl_easy_setopt(e, CURLOPT_POSTFIELDS, r.body.c_str());
            curl_easy_setopt(e, CURLOPT_POSTFIELDSIZE_LARGE, static_cast<curl_off_t>(r.body.size()));
        }
        for (const auto& [name, value] : r.headers) {
            t.headers = curl_slist_append(t.headers, (name + ": " + value).c_str());
        }
        t.headers = curl_slist_append(t.headers, "Expect:");  // no 100-continue round trip
        curl_easy_setopt(e, CURLOPT_HTTPHEADER, t.headers);
    }

    Completion finish(std::unique_ptr<Transfer> t, CURLcode code) {
        Completion c;
        c.id = t->id;
        curl_off_t total_us = 0;
        curl_easy_getinfo(t->easy, CURLINFO_TOTAL_TIME_T, &total_us);
        c.latency = std::chrono::milliseconds(total_us / 1000);
        if (code == CURLE_OK) {
            long status = 0;
            curl_easy_getinfo(t->easy, CURLINFO_RESPONSE_CODE, &status);
            t->response.status = status;
            c.result = std::move(t->response);
        } else {
            curl_off_t pretransfer_us = 0;
            curl_easy_getinfo(t->easy, CURLINFO_PRETRANSFER_TIME_T, &pretransfer_us);
            TransportError error;
            error.failure = failure_of(code);
            // Once the transfer began, the service may have the request: treat it as sent.
            error.request_sent = pretransfer_us > 0 && error.failure != TransportFailure::connect &&
                                 error.failure != TransportFailure::dns;
            std::string detail = t->error_buffer[0] != '\0' ? t->error_buffer : curl_easy_strerror(code);
            error.message = scrub(detail, t->request);
            c.result = std::move(error);
        }
        curl_slist_free_all(t->headers);
        idle.push_back(t->easy);
        return c;
    }

    void collect(std::vector<Completion>& done) {
        int queued = 0;
        while (CURLMsg* msg = curl_multi_info_read(multi, &queued)) {
            if (msg->msg != CURLMSG_DONE) {
                continue;
            }
            CURL* easy = msg->easy_handle;
            CURLcode code = msg->data.result;
            curl_multi_remove_handle(multi, easy);
            auto it = active.find(easy);
            std::unique_ptr<Transfer> t = std::move(it->second);
            active.erase(it);
            done.push_back(finish(std::move(t), code));
        }
    }
};

CurlTransport::CurlTransport(CurlOptions options) : m_impl(std::make_unique<Impl>()) {
    ensure_global_init();
    m_impl->options = std::move(options);
    m_impl->multi = curl_multi_init();
    if (m_impl->multi == nullptr) {
        throw std::runtime_error("libcurl could not create a multi handle");
    }
    curl_multi_setopt(m_impl->multi, CURLMOPT_MAXCONNECTS, m_impl->options.max_connections);
}

CurlTransport::~CurlTransport() {
    for (auto& [easy, transfer] : m_impl->active) {
        curl_multi_remove_handle(m_impl->multi, easy);
        curl_slist_free_all(transfer->headers);
        curl_easy_cleanup(easy);
    }
    for (CURL* easy : m_impl->idle) {
        curl_easy_cleanup(easy);
    }
    curl_multi_cleanup(m_impl->multi);
}

void CurlTransport::start(std::uint64_t id, HttpRequest request) {
    auto t = std::make_unique<Transfer>();
    t->id = id;
    t->request = std::move(request);
    t->easy = m_impl->take_handle();
    m_impl->configure(*t);
    CURL* easy = t->easy;
    m_impl->active.emplace(easy, std::move(t));
    curl_multi_add_handle(m_impl->multi, easy);
}

std::vector<Completion> CurlTransport::poll(std::chrono::milliseconds max_wait) {
    std::vector<Completion> done;
    int running = 0;
    curl_multi_perform(m_impl->multi, &running);
    m_impl->collect(done);
    if (!done.empty()) {
        return done;
    }
    curl_multi_poll(m_impl->multi, nullptr, 0, static_cast<int>(max_wait.count()), nullptr);
    curl_multi_perform(m_impl->multi, &running);
    m_impl->collect(done);
    return done;
}

std::size_t CurlTransport::in_flight() const {
    return m_impl->active.size();
}

} // namespace service
