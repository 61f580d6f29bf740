#include "scripted_server.hpp"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>
#include <algorithm>
#include <cctype>
#include <chrono>
#include <mutex>
#include <set>
#include <stdexcept>
#include <thread>
#include <vector>

namespace test_support {

namespace {

bool write_all(int fd, const char* data, size_t size) {
    while (size > 0) {
        const ssize_t n = ::send(fd, data, size, MSG_NOSIGNAL);
        if (n <= 0) {
            return false;
        }
        data += n;
        size -= static_cast<size_t>(n);
    }
    return true;
}

long long content_length(const std::string& head) {
    std::string lower(head);
    std::transform(lower.begin(), lower.end(), lower.begin(),
                   [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    const auto at = lower.find("\r\ncontent-length:");
    if (at == std::string::npos) {
        return 0;
    }
    return std::stoll(lower.substr(at + 17));
}

}  // namespace

std::string http_response(int status, const std::string& body, const std::string& content_type) {
    return "HTTP/1.1 " + std::to_string(status) + " X\r\nContent-Type: " + content_type +
           "\r\nContent-Length: " + std::to_string(body.size()) + "\r\n\r\n" + body;
}

std::string path_of(const ReceivedRequest& request) {
    const size_t start = request.head.find(' ');
    if (start == std::string::npos) {
        return {};
    }
    const size_t end = request.head.find_first_of(" ?", start + 1);
    return request.head.substr(start + 1, end == std::string::npos ? std::string::npos : end - start - 1);
}

struct ScriptedServer::Impl {
    Script script;
    int listen_fd = -1;
    int port = 0;
    std::atomic<bool> stopping{false};
    std::atomic<int> requests{0};
    std::mutex mutex;
    std::set<int> open_fds;
    std::vector<std::thread> threads;
    std::thread acceptor;

    void accept_loop() {
        while (!stopping) {
            pollfd p{listen_fd, POLLIN, 0};
            if (::poll(&p, 1, 50) <= 0) {
                continue;
            }
            const int fd = ::accept4(listen_fd, nullptr, nullptr, SOCK_CLOEXEC);
            if (fd < 0) {
                continue;
            }
            std::lock_guard<std::mutex> lock(mutex);
            open_fds.insert(fd);
            threads.emplace_back([this, fd] { serve(fd); });
        }
    }

    // Reads one request into `out`; false when the connection ended first.
    bool read_request(int fd, std::string& pending, ReceivedRequest& out) {
        char buffer[16384];
        size_t end;
        while ((end = pending.find("\r\n\r\n")) == std::string::npos) {
            const ssize_t n = ::recv(fd, buffer, sizeof buffer, 0);
            if (n <= 0) {
                return false;
            }
            pending.append(buffer, static_cast<size_t>(n));
        }
        out.head = pending.substr(0, end + 4);
        const auto length = static_cast<size_t>(content_length(out.head));
        pending.erase(0, end + 4);
        while (pending.size() < length) {
            const ssize_t n = ::recv(fd, buffer, sizeof buffer, 0);
            if (n <= 0) {
                return false;
            }
            pending.append(buffer, static_cast<size_t>(n));
        }
        out.body = pending.substr(0, length);
        pending.erase(0, length);
        return true;
    }

    void serve(int fd) {
        std::string pending;
        for (int on_connection = 0; !stopping; ++on_connection) {
            ReceivedRequest request;
            if (!read_request(fd, pending, request)) {
                break;
            }
            request.on_connection = on_connection;
            request.index = requests++;
            const Reply reply = script(request);
            if (reply.kind == Reply::Kind::hang_up) {
                break;
            }
            if (!write_all(fd, reply.bytes.data(), reply.bytes.size())) {
                break;
            }
            if (reply.kind == Reply::Kind::stream) {
                const std::string filler(16384, ' ');
                for (long long left = reply.body_bytes; !stopping && left != 0;) {
                    const size_t n = left < 0 ? filler.size() : std::min<size_t>(filler.size(), left);
                    if (!write_all(fd, filler.data(), n)) {
                        break;
                    }
                    left = left < 0 ? left : left - static_cast<long long>(n);
                    if (reply.pause_ms > 0) {
                        std::this_thread::sleep_for(std::chrono::milliseconds(reply.pause_ms));
                    }
                }
                break;
            }
        }
        std::lock_guard<std::mutex> lock(mutex);
        ::shutdown(fd, SHUT_RDWR);
        ::close(fd);
        open_fds.erase(fd);
    }
};

int listen_on_loopback(const std::string& server, int& port) {
    const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_in address{};
    address.sin_family = AF_INET;
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t size = sizeof address;
    if (fd < 0 || ::bind(fd, reinterpret_cast<sockaddr*>(&address), size) != 0 || ::listen(fd, SOMAXCONN) != 0 ||
        ::getsockname(fd, reinterpret_cast<sockaddr*>(&address), &size) != 0) {
        if (fd >= 0) {
            ::close(fd);
        }
        throw std::runtime_error(server + " cannot listen on 127.0.0.1");
    }
    port = ntohs(address.sin_port);
    return fd;
}

ScriptedServer::ScriptedServer(Script script) : m_impl(std::make_unique<Impl>()) {
    m_impl->script = std::move(script);
    m_impl->listen_fd = listen_on_loopback("the scripted server", m_impl->port);
    m_impl->acceptor = std::thread([impl = m_impl.get()] { impl->accept_loop(); });
}

ScriptedServer::~ScriptedServer() {
    m_impl->stopping = true;
    m_impl->acceptor.join();
    std::vector<std::thread> threads;
    {
        std::lock_guard<std::mutex> lock(m_impl->mutex);
        for (int fd : m_impl->open_fds) {
            ::shutdown(fd, SHUT_RDWR);  // wakes a thread blocked in recv or send
        }
        threads.swap(m_impl->threads);
    }
    for (auto& t : threads) {
        t.join();
    }
    ::close(m_impl->listen_fd);
}

int ScriptedServer::port() const {
    return m_impl->port;
}

int ScriptedServer::requests() const {
    return m_impl->requests.load();
}

}  // namespace test_support
