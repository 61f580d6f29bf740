#include "service/curl_transport.hpp"

#include <curl/curl.h>
#include <fmt/format.h>
#include <algorithm>
#include <optional>
#include <stdexcept>
#include <thread>
#include <unordered_map>

#include "service/curl_transfer.hpp"
#include "service/deadlines.hpp"
#include "service/socket_watch.hpp"

namespace service {

namespace {

struct GlobalInit {
    GlobalInit() { curl_global_init(CURL_GLOBAL_DEFAULT); }
};

void ensure_global_init() {
    static GlobalInit init;  // curl_global_init is not thread-safe: do it once
}

using detail::completion_of;
using detail::expired_completion;
using detail::on_body;
using detail::on_debug;
using detail::on_header;
using detail::on_prereq;
using detail::on_read;
using detail::proxy_in_environment;
using detail::RequestCache;
using detail::Transfer;
using std::chrono::steady_clock;

// How many rounds of reading ready sockets before expiring overdue requests (each round
// reads what is ready; an answer in the socket takes one).
constexpr int k_drain_rounds = 8;

// How long a caller that sleeps whole waits may leave an HTTP/2 connection's answers unread
// (see Impl::shared_sockets).
constexpr auto k_shared_socket_gap = std::chrono::milliseconds(5);

}  // namespace

struct CurlTransport::Impl {
    CurlOptions options;
    bool proxy_from_environment = proxy_in_environment();  // read once: the process's environment is fixed
    CURLM* multi = nullptr;
    // curl's socket interface: curl says which sockets to watch (on_socket) and when to call
    // it back (on_timer), and is told only about the sockets that are ready, so a wake-up
    // costs the same with 4 requests in flight as with 500 (curl_multi_perform walks them all).
    SocketWatch sockets;
    std::optional<std::chrono::steady_clock::time_point> timer;  // curl's, when set
    std::vector<CURL*> idle;  // finished handles, kept for reuse (and their connections)
    std::unordered_map<CURL*, std::unique_ptr<Transfer>> active;
    std::unordered_map<std::uint64_t, CURL*> by_id;
    // Each request's deadline is kept here, not by libcurl (CURLOPT_TIMEOUT): libcurl 7.88
    // checks its timeout before it reads the socket, so after a stop (SIGSTOP, a suspend) it
    // would discard an answer that arrived meanwhile.
    Deadlines deadlines;
    std::optional<steady_clock::time_point> last_return;  // of poll()
    RequestCache cache;
    detail::GoawayBook goaways;  // what on_debug read of the GOAWAY frames received
    bool told_http1 = false;     // the warning of warn_if_http1, once
    // The sockets of HTTP/2 connections, with when curl was last told one was readable. libcurl
    // 7.88 runs every transfer of a connection when told its socket is ready (multi.c: each of
    // them is expired, and each that finds nothing polls the socket), so over one connection
    // with 150 requests in flight every wake-up of a paced loop (1,000 a second at 1,000/s)
    // cost 150 transfers' turns. With Wait::whole (answers may be read up to the wait late)
    // such a socket is told at most once per k_shared_socket_gap; the rest wait in the kernel.
    std::unordered_map<curl_socket_t, steady_clock::time_point> shared_sockets;

    // A handle with the options every request shares already set: reused handles keep them
    // (no curl_easy_reset), so each request sets only what differs.
    CURL* take_handle() {
        if (!idle.empty()) {
            CURL* easy = idle.back();
            idle.pop_back();
            return easy;
        }
        CURL* e = curl_easy_init();
        if (e == nullptr) {
            throw std::runtime_error("libcurl could not create a handle");
        }
        curl_easy_setopt(e, CURLOPT_NOSIGNAL, 1L);
        curl_easy_setopt(e, CURLOPT_WRITEFUNCTION, on_body);
        curl_easy_setopt(e, CURLOPT_HEADERFUNCTION, on_header);
        // Where the body goes through the read callback (see `configure`), there is no seek
        // function, so libcurl cannot rewind it to resend the request on its own; the
        // pre-request callback aborts any second request of a transfer whichever way the body
        // goes (libcurl resends on a fresh connection when a reused one closed unanswered).
        curl_easy_setopt(e, CURLOPT_READFUNCTION, on_read);
        // A request's body is a few hundred bytes: libcurl's smallest upload buffer (16 KiB, the
        // size of its receive buffer) instead of 64 KiB, allocated and freed for every request.
        curl_easy_setopt(e, CURLOPT_UPLOAD_BUFFERSIZE, 16384L);
        curl_easy_setopt(e, CURLOPT_PREREQFUNCTION, on_prereq);
        curl_easy_setopt(e, CURLOPT_TIMEOUT_MS, 0L);  // see `deadlines`
        curl_easy_setopt(e, CURLOPT_TCP_KEEPALIVE, 1L);
        curl_easy_setopt(e, CURLOPT_PROTOCOLS_STR, "http,https");
        curl_easy_setopt(e, CURLOPT_SSL_VERIFYPEER, 1L);
        curl_easy_setopt(e, CURLOPT_SSL_VERIFYHOST, 2L);
        if (!options.ca_file.empty()) {
            curl_easy_setopt(e, CURLOPT_CAINFO, options.ca_file.c_str());
        }
        if (!proxy_from_environment) {
            // No proxy variables: say so, and libcurl stops looking them up at every request.
            curl_easy_setopt(e, CURLOPT_PROXY, "");
            curl_easy_setopt(e, CURLOPT_NOPROXY, "");
        }
        return e;
    }

    void configure(Transfer& t) {
        CURL* e = t.easy;
        const HttpRequest& r = t.request;
        // A request that follows redirects goes to a URL of its own (an image's, one of many):
        // not cached.
        if (CURLU* url = r.max_redirects == 0 ? cache.url(r.url) : nullptr) {
            curl_easy_setopt(e, CURLOPT_CURLU, url);
        } else {
            curl_easy_setopt(e, CURLOPT_CURLU, nullptr);
            curl_easy_setopt(e, CURLOPT_URL, r.url.c_str());
        }
        // A connect timeout is libcurl's to keep: a request not connected has not left.
        curl_easy_setopt(e, CURLOPT_CONNECTTIMEOUT_MS,
                         static_cast<long>(std::min<long long>(r.timeout.count(), 10'000)));
        curl_easy_setopt(e, CURLOPT_WRITEDATA, &t);
        curl_easy_setopt(e, CURLOPT_HEADERDATA, &t);
        curl_easy_setopt(e, CURLOPT_READDATA, &t);
        curl_easy_setopt(e, CURLOPT_PREREQDATA, &t);
        curl_easy_setopt(e, CURLOPT_ERRORBUFFER, t.error_buffer);
        const long http = detail::curl_http_version(options.http, r.url);
        curl_easy_setopt(e, CURLOPT_HTTP_VERSION, http);
        // Every method option is set each time: a reused handle must not keep the last one's.
        curl_easy_setopt(e, CURLOPT_CUSTOMREQUEST, r.method == Method::put ? "PUT" : nullptr);
        if (r.method == Method::get || r.method == Method::head) {
            curl_easy_setopt(e, CURLOPT_POSTFIELDS, nullptr);  // not the last request's body
            curl_easy_setopt(e, CURLOPT_HTTPGET, 1L);
        } else {
            curl_easy_setopt(e, CURLOPT_POST, 1L);
            curl_easy_setopt(e, CURLOPT_POSTFIELDSIZE_LARGE, static_cast<curl_off_t>(r.body.size()));
            // Over HTTP/1.1 the body goes out in the headers' write (`t.request` outlives the
            // transfer). Where HTTP/2 may be spoken it goes through on_read: a stream refused
            // after its HEADERS frame and before any of its body is then known never processed.
            t.body_with_headers = http == CURL_HTTP_VERSION_1_1;
            curl_easy_setopt(e, CURLOPT_POSTFIELDS, t.body_with_headers ? r.body.data() : nullptr);
        }
        // Where HTTP/2 may be spoken, a request waits for the first connection to say whether it
        // multiplexes rather than open one of its own: a campaign's first burst shares one
        // connection instead of opening one per request in flight.
        curl_easy_setopt(e, CURLOPT_PIPEWAIT, http == CURL_HTTP_VERSION_1_1 ? 0L : 1L);
        // Over HTTP/2, libcurl's texts are read for the stream and the GOAWAY frames (on_debug):
        // they tell a refused request, which may be sent again, from one that may have arrived.
        t.goaways = &goaways;
        curl_easy_setopt(e, CURLOPT_DEBUGFUNCTION, on_debug);
        curl_easy_setopt(e, CURLOPT_DEBUGDATA, &t);
        curl_easy_setopt(e, CURLOPT_VERBOSE, http == CURL_HTTP_VERSION_1_1 ? 0L : 1L);
        t.headers = cache.headers(r.headers);
        curl_easy_setopt(e, CURLOPT_HTTPHEADER, t.headers);
        detail::configure_fetch(e, r);
    }

    // Takes the transfer of `easy` out of curl's multi handle and out of `active`.
    std::unique_ptr<Transfer> detach(CURL* easy) {
        curl_multi_remove_handle(multi, easy);
        auto it = active.find(easy);
        std::unique_ptr<Transfer> t = std::move(it->second);
        active.erase(it);
        return t;
    }

    Completion finish(std::unique_ptr<Transfer> t, Completion c) {
        deadlines.remove(t->id);
        by_id.erase(t->id);
        idle.push_back(t->easy);
        return c;
    }

    static int on_socket(CURL*, curl_socket_t socket, int what, void* user, void*) {
        auto* impl = static_cast<Impl*>(user);
        impl->sockets.watch(socket, what);
        if (what == CURL_POLL_REMOVE) {
            impl->shared_sockets.erase(socket);
        }
        return 0;
    }

    // Notes `easy`'s connection in shared_sockets when it speaks HTTP/2.
    void note_shared(CURL* easy) {
        long version = 0;
        curl_socket_t socket = CURL_SOCKET_BAD;
        if (curl_easy_getinfo(easy, CURLINFO_HTTP_VERSION, &version) == CURLE_OK && version == CURL_HTTP_VERSION_2_0 &&
            curl_easy_getinfo(easy, CURLINFO_ACTIVESOCKET, &socket) == CURLE_OK && socket != CURL_SOCKET_BAD) {
            shared_sockets.try_emplace(socket, steady_clock::time_point{});
        }
    }

    // Drops from `ready` the HTTP/2 sockets curl was told of less than k_shared_socket_gap
    // before `now`; returns how many are left.
    int space_shared(SocketWatch::Ready* ready, int count, steady_clock::time_point now) {
        int kept = 0;
        for (int i = 0; i < count; ++i) {
            auto it = ready[i].mask == CURL_CSELECT_IN ? shared_sockets.find(ready[i].socket) : shared_sockets.end();
            if (it != shared_sockets.end()) {
                if (now - it->second < k_shared_socket_gap) {
                    continue;
                }
                it->second = now;
            }
            ready[kept++] = ready[i];
        }
        return kept;
    }

    static int on_timer(CURLM*, long timeout_ms, void* user) {
        auto* impl = static_cast<Impl*>(user);
        if (timeout_ms < 0) {
            impl->timer.reset();
        } else {
            impl->timer = std::chrono::steady_clock::now() + std::chrono::milliseconds(timeout_ms);
        }
        return 0;
    }

    void run_timer_if_due() {
        if (timer && *timer <= std::chrono::steady_clock::now()) {
            timer.reset();
            int running = 0;
            curl_multi_socket_action(multi, CURL_SOCKET_TIMEOUT, 0, &running);
        }
    }

    void collect(std::vector<Completion>& done) {
        int queued = 0;
        while (CURLMsg* msg = curl_multi_info_read(multi, &queued)) {
            if (msg->msg != CURLMSG_DONE) {
                continue;
            }
            const CURLcode code = msg->data.result;
            note_shared(msg->easy_handle);
            std::unique_ptr<Transfer> t = detach(msg->easy_handle);
            warn_if_http1(*t);
            Completion c = completion_of(*t, code);
            done.push_back(finish(std::move(t), std::move(c)));
        }
    }

    // Tells options.warn, once, that HTTP/2 was asked for and `t` was answered over HTTP/1.1 (the
    // service offers no h2 by ALPN): the run goes on, one request per connection.
    void warn_if_http1(const Transfer& t) {
        if (told_http1 || options.http != HttpVersion::http2 || !options.warn || !t.answer_begun) {
            return;
        }
        long version = 0;
        curl_easy_getinfo(t.easy, CURLINFO_HTTP_VERSION, &version);
        if (version != CURL_HTTP_VERSION_1_0 && version != CURL_HTTP_VERSION_1_1) {
            return;
        }
        told_http1 = true;
        std::string host = "the service";
        char* part = nullptr;
        if (CURLU* url = cache.url(t.request.url);
            url != nullptr && curl_url_get(url, CURLUPART_HOST, &part, 0) == CURLUE_OK && part != nullptr) {
            host = part;
        }
        curl_free(part);
        options.warn(
            fmt::format("service.http is \"2\" but {} answered over HTTP/1.1 (it offers no HTTP/2): "
                        "the run goes on over HTTP/1.1, one request in flight per connection",
                        host));
    }

    // Tells curl about the sockets ready in `ready`.
    void act_on(const SocketWatch::Ready* ready, int count) {
        for (int i = 0; i < count; ++i) {
            int running = 0;
            curl_multi_socket_action(multi, ready[i].socket, ready[i].mask, &running);
        }
    }

    // Ends the requests whose deadline passed at `now`, after reading what the sockets hold:
    // an answer that came while the process was not running is taken, not discarded.
    void expire_overdue(steady_clock::time_point now, std::vector<Completion>& done) {
        if (deadlines.expired(now).empty()) {
            return;
        }
        SocketWatch::Ready ready[SocketWatch::k_max_ready];
        for (int round = 0; round < k_drain_rounds; ++round) {
            const int count = sockets.wait(steady_clock::time_point{}, ready);  // no waiting
            if (count <= 0) {
                break;
            }
            act_on(ready, count);
        }
        run_timer_if_due();
        collect(done);
        for (std::uint64_t id : deadlines.expired(now)) {
            std::unique_ptr<Transfer> t = detach(by_id.at(id));
            Completion c = expired_completion(*t, now);
            done.push_back(finish(std::move(t), std::move(c)));
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
    curl_multi_setopt(m_impl->multi, CURLMOPT_MAX_HOST_CONNECTIONS, m_impl->options.max_host_connections);
    // libcurl's default, said outright: requests to one host share an HTTP/2 connection.
    curl_multi_setopt(m_impl->multi, CURLMOPT_PIPELINING, CURLPIPE_MULTIPLEX);
    curl_multi_setopt(m_impl->multi, CURLMOPT_SOCKETFUNCTION, &Impl::on_socket);
    curl_multi_setopt(m_impl->multi, CURLMOPT_SOCKETDATA, m_impl.get());
    curl_multi_setopt(m_impl->multi, CURLMOPT_TIMERFUNCTION, &Impl::on_timer);
    curl_multi_setopt(m_impl->multi, CURLMOPT_TIMERDATA, m_impl.get());
}

CurlTransport::~CurlTransport() {
    for (auto& [easy, transfer] : m_impl->active) {
        curl_multi_remove_handle(m_impl->multi, easy);
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
    t->started = steady_clock::now();
    t->easy = m_impl->take_handle();
    m_impl->configure(*t);
    CURL* easy = t->easy;
    m_impl->deadlines.add(id, t->started, t->request.timeout);
    m_impl->by_id.emplace(id, easy);
    m_impl->active.emplace(easy, std::move(t));
    curl_multi_add_handle(m_impl->multi, easy);
}

std::vector<Completion> CurlTransport::poll(std::chrono::microseconds max_wait, Wait mode) {
    Impl& impl = *m_impl;
    std::vector<Completion> done;
    auto now = steady_clock::now();
    if (impl.last_return) {
        // The caller was away since the last return: long, and it was stopped meanwhile.
        impl.deadlines.woke(*impl.last_return, now);
    }
    // Requests added since the last call start here (curl set a timer of 0 for them).
    impl.run_timer_if_due();
    impl.collect(done);
    if (done.empty()) {
        auto until = now + std::max(max_wait, std::chrono::microseconds(0));
        if (impl.timer) {
            until = std::min(until, *impl.timer);
        }
        if (auto deadline = impl.deadlines.next()) {
            until = std::min(until, *deadline);
        }
        if (mode == Wait::whole) {
            // Sleep through answers that arrive meanwhile; they are read below, in this wake-up.
            std::this_thread::sleep_until(until);
        }
        SocketWatch::Ready ready[SocketWatch::k_max_ready];
        int count = impl.sockets.wait(mode == Wait::whole ? steady_clock::time_point{} : until, ready);
        now = steady_clock::now();
        if (mode == Wait::whole) {
            count = impl.space_shared(ready, count, now);
        }
        // Woken far later than asked: the process was stopped, and that time does not count.
        impl.deadlines.woke(until, now);
        impl.act_on(ready, count);
        impl.run_timer_if_due();
        impl.collect(done);
    }
    impl.expire_overdue(now, done);
    impl.last_return = steady_clock::now();
    return done;
}

std::size_t CurlTransport::in_flight() const {
    return m_impl->active.size();
}

}  // namespace service
