#include "sandbox/server.hpp"

#include <httplib.h>
#include <sys/socket.h>
#include <atomic>
#include <csignal>
#include <functional>
#include <map>
#include <mutex>
#include <nlohmann/json.hpp>
#include <set>
#include <thread>

#include "sandbox/fake_service.hpp"
#include "sandbox/hang_up.hpp"
#include "sandbox/template_sends.hpp"
#include "sandbox/templates.hpp"
#include "sandbox/tls_cert.hpp"

namespace sandbox {

namespace {

constexpr const char* k_host = "127.0.0.1";
constexpr const char* k_json_type = "application/json; charset=utf-8";
constexpr size_t k_keep_alive_max_count = 1'000'000;
constexpr size_t k_max_body_bytes = 1 << 20;

// cpp-httplib keeps its listening socket protected; the backlog it sets (5) is too short
// for a burst of connects, so it is raised on that socket.
template <typename Base>
class Backlogged : public Base {
public:
    using Base::Base;
    void raise_backlog() { ::listen(this->svr_sock_, SOMAXCONN); }
};

// cpp-httplib's server for plain HTTP or for TLS, and how to raise its backlog once bound.
struct Http {
    std::unique_ptr<httplib::Server> server;
    std::function<void()> raise_backlog;
};

template <typename Base, typename... Args>
Http make_http(Args&&... args) {
    auto server = std::make_unique<Backlogged<Base>>(std::forward<Args>(args)...);
    auto* raw = server.get();
    return Http{std::move(server), [raw] { raw->raise_backlog(); }};
}

// The HTTPS server for `tls`: its files checked first (cpp-httplib only tells whether it
// could load them), or made in a private folder under the system's temporary one.
util::Result<Http> make_https(const TlsOptions& tls, std::unique_ptr<GeneratedTls>& generated,
                              std::filesystem::path& ca) {
    TlsFiles files{tls.cert_path, tls.key_path};
    if (tls.cert_path.empty()) {
        std::error_code error;
        auto parent = std::filesystem::temp_directory_path(error);
        if (!error) {
            parent = std::filesystem::absolute(parent, error);  // "ca: PATH" must work from anywhere
        }
        if (error) {
            return util::fail("no folder for the sandbox's certificate: the temporary folder ($TMPDIR, else /tmp): " +
                              error.message());
        }
        TRY_ASSIGN(generated, GeneratedTls::make(parent, std::chrono::system_clock::now()));
        files = generated->files();
        ca = generated->ca();
    } else {
        TRY(check_tls_files(files));
        // A client can trust the certificate itself: libcurl accepts a trusted server
        // certificate without its issuer's.
        ca = std::filesystem::absolute(files.cert);
    }
    auto http = make_http<httplib::SSLServer>(files.cert.c_str(), files.key.c_str());
    if (!http.server->is_valid()) {
        return util::fail("cannot serve TLS with " + files.cert.string() + " and " + files.key.string());
    }
    return http;
}

Incoming to_incoming(const httplib::Request& req) {
    Incoming in;
    in.method = req.method;
    in.path = req.path;
    in.content_type = req.get_header_value("Content-Type");
    if (req.has_header("apiKey")) {
        in.key.header = req.get_header_value("apiKey");
    }
    if (req.has_param("apiKey")) {
        in.key.query = req.get_param_value("apiKey");
    }
    if (req.has_header("Authorization")) {
        in.authorization = req.get_header_value("Authorization");
    }
    in.body = req.body;
    in.peer_port = req.remote_port;
    return in;
}

}  // namespace

struct Server::Impl {
    Impl(const SandboxOptions& opts, const nlohmann::ordered_json& templates, std::unique_ptr<Journal> j, Http h)
        : options(opts), journal(std::move(j)), service(opts, templates, journal.get()), http(std::move(h)) {}

    void answer(const httplib::Request& req, httplib::Response& res);
    void configure();
    bool is_busy(int remote_port);

    SandboxOptions options;
    std::unique_ptr<Journal> journal;
    FakeService service;
    std::unique_ptr<GeneratedTls> generated_tls;  // removed after the server below stops
    std::filesystem::path ca;                     // with TLS: the certificate a client trusts
    Http http;
    int port = 0;
    std::atomic<bool> stop_requested{false};
    std::atomic<bool> serving{false};
    std::mutex busy_mutex;
    std::multiset<int> busy_ports;  // peer ports of connections inside a handler
    // Requests served per peer port: whether a request came on a kept-alive connection. A
    // closed connection's port stays counted until reused, which the kernel does last.
    std::map<int, long> served_on_port;
};

bool Server::Impl::is_busy(int remote_port) {
    std::lock_guard<std::mutex> lock(busy_mutex);
    return busy_ports.count(remote_port) > 0;
}

void Server::Impl::answer(const httplib::Request& req, httplib::Response& res) {
    ConnectionUse use = ConnectionUse::first;
    {
        std::lock_guard<std::mutex> lock(busy_mutex);
        busy_ports.insert(req.remote_port);
        use = served_on_port[req.remote_port]++ > 0 ? ConnectionUse::reused : ConnectionUse::first;
    }
    // Unmarks the connection however the handler ends.
    struct Unmark {
        Impl& impl;
        int port;
        ~Unmark() {
            std::lock_guard<std::mutex> lock(impl.busy_mutex);
            impl.busy_ports.erase(impl.busy_ports.find(port));
        }
    } unmark{*this, req.remote_port};
    auto now = std::chrono::steady_clock::now();
    auto at = std::chrono::system_clock::now();
    Incoming in = to_incoming(req);
    in.connection = use;
    Answer out = service.handle(in, now, at);
    if (out.delay.count() > 0) {
        std::this_thread::sleep_for(out.delay);
    }
    if (out.delivery == Delivery::drop) {
        {
            std::lock_guard<std::mutex> lock(busy_mutex);
            served_on_port.erase(req.remote_port);
        }
        hang_up(port, req.remote_port);
        res.status = 500;  // never reaches the client: its socket is shut down
        return;
    }
    res.status = out.status;
    for (const auto& [name, value] : out.headers) {
        res.set_header(name.c_str(), value);
    }
    res.set_content(out.body, k_json_type);
}

void Server::Impl::configure() {
    const auto threads = static_cast<size_t>(options.threads);
    httplib::Server& server = *http.server;
    server.new_task_queue = [threads] { return new httplib::ThreadPool(threads); };
    server.set_keep_alive_max_count(k_keep_alive_max_count);
    server.set_tcp_nodelay(true);
    // cpp-httplib's default sets SO_REUSEPORT: a second sandbox on a port in use would bind
    // and silently share its requests. SO_REUSEADDR alone still allows a quick restart.
    server.set_socket_options([](socket_t sock) {
        int yes = 1;
        setsockopt(sock, SOL_SOCKET, SO_REUSEADDR, &yes, sizeof yes);
    });
    server.set_payload_max_length(k_max_body_bytes);
    auto handler = [this](const httplib::Request& req, httplib::Response& res) { answer(req, res); };
    // One handler for every method and path: FakeService routes, so unknown ones are
    // journalled and answered in the service's shape too.
    server.Get(".*", handler);
    server.Post(".*", handler);
    server.Put(".*", handler);
    server.Delete(".*", handler);
    server.Patch(".*", handler);
    server.Options(".*", handler);
    server.set_exception_handler([](const httplib::Request&, httplib::Response& res, std::exception_ptr) {
        res.status = 500;
        res.set_content(R"({"success":false,"message":"Internal sandbox error"})", k_json_type);
    });
}

Server::Server(std::unique_ptr<Impl> impl) : m_impl(std::move(impl)) {}

Server::~Server() = default;

util::Result<std::unique_ptr<Server>> Server::bind(const SandboxOptions& options) {
    nlohmann::ordered_json templates = builtin_templates();
    if (!options.templates_path.empty()) {
        TRY_ASSIGN(templates, load_templates(options.templates_path));
    }
    TRY(check_template_names(templates, options.paused_templates));
    for (const auto& change : options.template_changes) {
        TRY(check_template_names(templates, {change.name},
                                 change.category.empty() ? "--pause-template" : "--recategorize"));
    }
    std::unique_ptr<Journal> journal;
    if (!options.journal_path.empty()) {
        TRY_ASSIGN(journal, Journal::open(options.journal_path));
    }
    std::unique_ptr<GeneratedTls> generated;
    std::filesystem::path ca;
    Http http;
    if (options.tls) {
        TRY_ASSIGN(http, make_https(*options.tls, generated, ca));
    } else {
        http = make_http<httplib::Server>();
    }
    auto impl = std::make_unique<Impl>(options, templates, std::move(journal), std::move(http));
    impl->generated_tls = std::move(generated);
    impl->ca = std::move(ca);
    impl->configure();
    if (options.port == 0) {
        impl->port = impl->http.server->bind_to_any_port(k_host);
    } else if (impl->http.server->bind_to_port(k_host, options.port)) {
        impl->port = options.port;
    } else {
        impl->port = -1;
    }
    if (impl->port <= 0) {
        return util::fail("cannot listen on " + std::string(k_host) + ":" + std::to_string(options.port) +
                          " (is the port in use?)");
    }
    impl->http.raise_backlog();
    return std::unique_ptr<Server>(new Server(std::move(impl)));
}

int Server::port() const {
    return m_impl->port;
}

util::Result<void> Server::serve() {
    std::signal(SIGPIPE, SIG_IGN);
    m_impl->serving = true;
    bool ok = m_impl->stop_requested || m_impl->http.server->listen_after_bind();
    m_impl->serving = false;
    if (!ok) {
        return util::fail("the listening socket on port " + std::to_string(m_impl->port) + " failed");
    }
    return {};
}

void Server::stop() {
    m_impl->stop_requested = true;
    // cpp-httplib ignores stop() until it runs: wait for serve() to get there.
    while (m_impl->serving && !m_impl->http.server->is_running()) {
        std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
    m_impl->http.server->stop();
    hang_up_idle(m_impl->port, [this](int remote_port) { return m_impl->is_busy(remote_port); });
}

std::optional<std::filesystem::path> Server::ca_file() const {
    if (!m_impl->options.tls) {
        return std::nullopt;
    }
    return m_impl->ca;
}

std::array<long, k_outcome_count> Server::counts() const {
    return m_impl->service.counts();
}

std::optional<std::string> Server::journal_error() const {
    if (m_impl->journal == nullptr) {
        return std::nullopt;
    }
    return m_impl->journal->error();
}

}  // namespace sandbox
