// service.http over a real HTTP/2 server: nginx in front of `wacamp sandbox --tls`, started once
// for this file (ctest reports the file skipped when nginx is not installed). nginx's access log
// says which protocol each request came in and on which client connection.
#include <doctest/doctest.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <memory>
#include <set>
#include <sstream>
#include <thread>

#include "fixtures.hpp"

using namespace e2e;

namespace {

const int k_recipients = 200;
const std::string k_rate = "rate: {per_second: 5000, burst: 32, concurrency: 32}\n";

// nginx's path: from PATH, else Debian's /usr/sbin (not on every user's PATH); "" when missing.
std::string nginx_binary() {
    std::string dirs = std::getenv("PATH") != nullptr ? std::getenv("PATH") : "";
    dirs += ":/usr/sbin:/usr/local/sbin";
    std::istringstream parts(dirs);
    for (std::string dir; std::getline(parts, dir, ':');) {
        const auto path = std::filesystem::path(dir.empty() ? "." : dir) / "nginx";
        if (access(path.c_str(), X_OK) == 0) {
            return path.string();
        }
    }
    return "";
}

// nginx as a TLS + HTTP/2 front of `upstream` (a sandbox with --tls), with the sandbox's own
// certificate. Runs in the foreground with a prefix of its own; stopped by its pid.
class NginxFront {
public:
    explicit NginxFront(const Sandbox& upstream) {
        const std::string nginx = nginx_binary();
        if (nginx.empty()) {
            throw std::runtime_error("nginx is not installed (scripts/setup.sh installs nginx-light)");
        }
        // The sandbox writes cert.pem (its certificate and the CA's) and key.pem beside ca.pem.
        const auto certs = upstream.ca_file().parent_path();
        for (int attempt = 0; attempt < 3 && m_port == 0; ++attempt) {  // a free port may be taken meanwhile
            const int tls_port = free_port();
            m_dir.write("nginx.conf", config(tls_port, certs, upstream.port()));
            const int devnull = open("/dev/null", O_RDWR | O_CLOEXEC);
            m_pid = spawn_process({nginx, "-p", m_dir.path().string(), "-c", (m_dir.path() / "nginx.conf").string(),
                                   "-e", (m_dir.path() / "error.log").string()},
                                  {}, devnull, devnull, devnull);
            close(devnull);
            for (int i = 0; i < 200 && waitpid(m_pid, nullptr, WNOHANG) == 0; ++i) {
                if (accepts_connections(tls_port)) {
                    m_port = tls_port;
                    break;
                }
                std::this_thread::sleep_for(std::chrono::milliseconds(25));
            }
            if (m_port == 0) {
                stop();
            }
        }
        if (m_port == 0) {
            throw std::runtime_error("nginx did not start: " + read_file(m_dir.path() / "error.log"));
        }
    }
    ~NginxFront() { stop(); }
    NginxFront(const NginxFront&) = delete;
    NginxFront& operator=(const NginxFront&) = delete;

    std::string https_url() const { return "https://127.0.0.1:" + std::to_string(m_port); }
    // The access log's lines ("CONNECTION REQUESTS PROTOCOL STATUS URI"), from the `from`th on.
    std::vector<std::string> access_log(size_t from = 0) const {
        std::istringstream text(read_file(m_dir.path() / "access.log"));
        std::vector<std::string> lines;
        size_t index = 0;
        for (std::string line; std::getline(text, line); ++index) {
            if (index >= from) {
                lines.push_back(line);
            }
        }
        return lines;
    }

private:
    static std::string config(int tls_port, const std::filesystem::path& certs, int upstream_port) {
        std::ostringstream c;
        c << "worker_processes 1;\n"
             "daemon off;\n"
             "pid nginx.pid;\n"
             "error_log error.log warn;\n"
             "events { worker_connections 1024; }\n"
             "http {\n"
             "  log_format wire '$connection $connection_requests $server_protocol $status $uri';\n"
             "  access_log access.log wire;\n"
             "  client_body_temp_path client_body;\n"
             "  proxy_temp_path proxy;\n"
             "  fastcgi_temp_path fastcgi;\n"
             "  uwsgi_temp_path uwsgi;\n"
             "  scgi_temp_path scgi;\n"
             "  keepalive_requests 100000;\n"
             "  keepalive_timeout 75s;\n"
             "  upstream sandbox {\n"
             "    server 127.0.0.1:"
          << upstream_port
          << ";\n"
             "    keepalive 64;\n"
             "  }\n"
             "  server {\n"
             "    listen 127.0.0.1:"
          << tls_port
          << " ssl http2;\n"
             "    ssl_certificate "
          << (certs / "cert.pem").string()
          << ";\n"
             "    ssl_certificate_key "
          << (certs / "key.pem").string()
          << ";\n"
             "    location / {\n"
             "      proxy_pass https://sandbox;\n"
             "      proxy_http_version 1.1;\n"
             "      proxy_set_header Connection \"\";\n"
             "      proxy_ssl_verify off;\n"  // loopback to the sandbox; wacamp verifies nginx
             "      proxy_ssl_session_reuse on;\n"
             "    }\n"
             "  }\n"
             "}\n";
        return c.str();
    }

    void stop() {
        if (m_pid > 0) {
            kill(m_pid, SIGTERM);
            waitpid(m_pid, nullptr, 0);
            m_pid = -1;
        }
    }

    TempDir m_dir;
    pid_t m_pid = -1;
    int m_port = 0;
};

// The sandbox and nginx, started once for the whole file, stopped when the tests end.
struct Front {
    Sandbox sandbox{{}, Scheme::https};
    NginxFront nginx{sandbox};
};

Front& front() {
    static Front shared;
    return shared;
}

// What the access log says about the send-message requests of one run.
struct Wire {
    std::map<std::string, int> protocols;  // "HTTP/2.0" → requests
    std::set<std::string> connections;     // nginx's serial numbers of the client connections
    int sends = 0;
};

Wire wire_of(const std::vector<std::string>& lines) {
    Wire w;
    for (const auto& line : lines) {
        std::istringstream fields(line);
        std::string connection, requests, protocol, status, uri;
        fields >> connection >> requests >> protocol >> status >> uri;
        if (uri != "/whatsapp-automation/wa/send-message") {
            continue;
        }
        ++w.sends;
        ++w.protocols[protocol];
        w.connections.insert(connection);
    }
    return w;
}

// How many times the sandbox delivered each of the `count` numbers from `first` on (the sandbox
// is shared by this file's cases, each with numbers of its own).
std::map<std::string, int> delivered_of(int first, int count) {
    const auto all = delivered(front().sandbox);
    std::map<std::string, int> out;
    for (int i = first; i < first + count; ++i) {
        if (auto it = all.find(numbers_wa_id(i)); it != all.end()) {
            out.emplace(it->first, it->second);
        }
    }
    return out;
}

// What the access log says of the requests since line `from`, once it holds `sends` send-message
// requests (nginx may log a request a moment after its answer left) or a few seconds passed.
Wire wire_since(size_t from, int sends) {
    Wire w = wire_of(front().nginx.access_log(from));
    for (int i = 0; i < 200 && w.sends < sends; ++i) {
        std::this_thread::sleep_for(std::chrono::milliseconds(25));
        w = wire_of(front().nginx.access_log(from));
    }
    return w;
}

// Runs a campaign of k_recipients numbers from `first` on through `url` with `http_line` in its
// service section; checks that every message went out once; returns what nginx saw.
Wire run_through(const std::string& url, const std::string& http_line, int first) {
    Front& f = front();
    const size_t log_from = f.nginx.access_log().size();
    CampaignFixture c(f.sandbox, numbers_csv(k_recipients, first), k_rate);
    c.env["WACAMP_BASE_URL"] = url;
    add_service_line(c, "  ca_file: " + f.sandbox.ca_file().string());
    if (!http_line.empty()) {
        add_service_line(c, "  " + http_line);
    }
    auto r = c.wacamp({"run", c.campaign.string(), "--no-progress"});
    CAPTURE(r.out);
    CAPTURE(r.err);
    CHECK(r.exit_code == 0);
    CHECK(status_counts(c)["sent"] == k_recipients);
    CHECK(once_each(delivered_of(first, k_recipients), k_recipients) == "");
    return wire_since(log_from, k_recipients);
}

}  // namespace

TEST_SUITE("e2e: http2") {
    TEST_CASE("auto over https speaks HTTP/2: every message once, on a few multiplexed connections") {
        Wire w = run_through(front().nginx.https_url(), "", 0);
        CHECK(w.sends == k_recipients);
        CHECK(w.protocols["HTTP/2.0"] == k_recipients);
        CAPTURE(w.connections.size());
        CHECK(w.connections.size() <= 8);
    }

    TEST_CASE("\"2\" over https speaks HTTP/2 the same way") {
        Wire w = run_through(front().nginx.https_url(), "http: \"2\"", 1000);
        CHECK(w.sends == k_recipients);
        CHECK(w.protocols["HTTP/2.0"] == k_recipients);
        CAPTURE(w.connections.size());
        CHECK(w.connections.size() <= 8);
    }

    TEST_CASE("1.1 speaks HTTP/1.1, one request in flight per connection, never more connections than allowed") {
        Wire w = run_through(front().nginx.https_url(), "http: 1.1", 2000);
        CHECK(w.sends == k_recipients);
        CHECK(w.protocols["HTTP/1.1"] == k_recipients);
        CAPTURE(w.connections.size());
        CHECK(w.connections.size() <= 32 + 4);  // concurrency + 4: CURLMOPT_MAX_HOST_CONNECTIONS
    }

    TEST_CASE("\"2\" with a plain http:// base_url is refused before anything is sent") {
        Sandbox plain;
        CampaignFixture c(plain, numbers_csv(3), k_rate);
        add_service_line(c, "  http: \"2\"");
        for (const std::vector<std::string>& args : {std::vector<std::string>{"validate", c.campaign.string()},
                                                     std::vector<std::string>{"run", c.campaign.string(), "--yes"}}) {
            auto r = c.wacamp(args);
            CAPTURE(r.err);
            CHECK(r.exit_code == 2);
            CHECK(contains(r.err, "service.http: \"2\" needs an https:// base_url"));
        }
        CHECK(send_requests(plain) == 0);
    }
}
