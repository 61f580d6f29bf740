#include "resp_fault_server.hpp"

#include "scripted_server.hpp"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <mutex>
#include <set>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

namespace test_support {

struct RespFaultServer::Impl {
    RespFault fault = RespFault::trickle;
    int listen_fd = -1;
    int port = 0;
    std::atomic<bool> stopping{false};
    std::atomic<int> connections{0};
    std::atomic<long long> written{0};
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
            ++connections;
            std::lock_guard<std::mutex> lock(mutex);
            open_fds.insert(fd);
            threads.emplace_back([this, fd] { serve(fd); });
        }
    }

    // Writes `size` bytes, waiting at most 50 ms at a time so that a stop is noticed; false
    // when the client went away or the server stops.
    bool write_some(int fd, const char* data, std::size_t size) {
        while (size > 0 && !stopping) {
            pollfd p{fd, POLLOUT, 0};
            if (::poll(&p, 1, 50) <= 0) {
                continue;
            }
            const ssize_t n = ::send(fd, data, size, MSG_NOSIGNAL | MSG_DONTWAIT);
            if (n <= 0) {
                return false;
            }
            written += n;
            data += n;
            size -= static_cast<std::size_t>(n);
        }
        return !stopping;
    }

    void serve(int fd) {
        char buffer[4096];
        if (::recv(fd, buffer, sizeof buffer, 0) > 0) {  // the first command, whatever it is
            if (fault == RespFault::trickle) {
                // A bulk reply that would be complete after many bytes; one byte every 300 ms.
                const std::string reply = "$1000000\r\n";
                for (std::size_t i = 0; !stopping; ++i) {
                    const char c = i < reply.size() ? reply[i] : 'x';
                    if (!write_some(fd, &c, 1)) {
                        break;
                    }
                    for (int slice = 0; slice < 6 && !stopping; ++slice) {
                        std::this_thread::sleep_for(std::chrono::milliseconds(50));
                    }
                }
            } else {
                const std::string head = "$2000000000\r\n";
                const std::string filler(16384, 'x');
                if (write_some(fd, head.data(), head.size())) {
                    while (write_some(fd, filler.data(), filler.size())) {
                    }
                }
            }
        }
        std::lock_guard<std::mutex> lock(mutex);
        ::shutdown(fd, SHUT_RDWR);
        ::close(fd);
        open_fds.erase(fd);
    }
};

RespFaultServer::RespFaultServer(RespFault fault) : m_impl(std::make_unique<Impl>()) {
    m_impl->fault = fault;
    m_impl->listen_fd = listen_on_loopback("the RESP fault server", m_impl->port);
    m_impl->acceptor = std::thread([impl = m_impl.get()] { impl->accept_loop(); });
}

RespFaultServer::~RespFaultServer() {
    m_impl->stopping = true;
    m_impl->acceptor.join();
    std::vector<std::thread> threads;
    {
        std::lock_guard<std::mutex> lock(m_impl->mutex);
        for (int fd : m_impl->open_fds) {
            ::shutdown(fd, SHUT_RDWR);
        }
        threads.swap(m_impl->threads);
    }
    for (auto& t : threads) {
        t.join();
    }
    ::close(m_impl->listen_fd);
}

int RespFaultServer::port() const {
    return m_impl->port;
}

std::string RespFaultServer::url() const {
    return "redis://127.0.0.1:" + std::to_string(port()) + "/0";
}

int RespFaultServer::connections() const {
    return m_impl->connections.load();
}

long long RespFaultServer::bytes_written() const {
    return m_impl->written.load();
}

}  // namespace test_support
