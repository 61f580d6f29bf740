#include "service/socket_watch.hpp"

#include <curl/curl.h>
#include <sys/epoll.h>
#include <unistd.h>
#include <algorithm>
#include <cerrno>
#include <ctime>
#include <stdexcept>

namespace service {

SocketWatch::SocketWatch() : m_epoll_fd(::epoll_create1(EPOLL_CLOEXEC)) {
    if (m_epoll_fd < 0) {
        throw std::runtime_error("could not create an epoll instance");
    }
}

SocketWatch::~SocketWatch() {
    ::close(m_epoll_fd);
}

void SocketWatch::watch(int socket, int what) {
    auto it = m_watches.find(socket);
    if (what == CURL_POLL_REMOVE) {
        if (it != m_watches.end()) {
            it->second.wanted = false;  // left registered: reused soon, or closed (see wait)
        }
        return;
    }
    const std::uint32_t events = (what == CURL_POLL_IN || what == CURL_POLL_INOUT ? EPOLLIN : 0u) |
                                 (what == CURL_POLL_OUT || what == CURL_POLL_INOUT ? EPOLLOUT : 0u);
    epoll_event ev{};
    ev.data.fd = socket;
    ev.events = events;
    if (it == m_watches.end()) {
        if (::epoll_ctl(m_epoll_fd, EPOLL_CTL_ADD, socket, &ev) != 0 && errno == EEXIST) {
            ::epoll_ctl(m_epoll_fd, EPOLL_CTL_MOD, socket, &ev);
        }
        m_watches[socket] = Watch{events, true};
        return;
    }
    if (it->second.events != events) {
        // A closed socket leaves the epoll set by itself; its number may come back.
        if (::epoll_ctl(m_epoll_fd, EPOLL_CTL_MOD, socket, &ev) != 0 && errno == ENOENT) {
            ::epoll_ctl(m_epoll_fd, EPOLL_CTL_ADD, socket, &ev);
        }
        it->second.events = events;
    }
    it->second.wanted = true;
}

bool SocketWatch::unwanted(int socket) {
    auto it = m_watches.find(socket);
    if (it == m_watches.end() || it->second.wanted) {
        return false;
    }
    ::epoll_ctl(m_epoll_fd, EPOLL_CTL_DEL, socket, nullptr);
    m_watches.erase(it);
    return true;
}

int SocketWatch::wait(std::chrono::steady_clock::time_point until, Ready (&out)[k_max_ready]) {
    epoll_event events[k_max_ready];
    const auto left = std::max(until - std::chrono::steady_clock::now(), std::chrono::steady_clock::duration(0));
    int ready = -1;
    if (m_have_pwait2) {
        const auto ns = std::chrono::duration_cast<std::chrono::nanoseconds>(left).count();
        const timespec timeout{static_cast<time_t>(ns / 1'000'000'000), static_cast<long>(ns % 1'000'000'000)};
        ready = ::epoll_pwait2(m_epoll_fd, events, k_max_ready, &timeout, nullptr);
        if (ready < 0 && errno == ENOSYS) {
            m_have_pwait2 = false;
        }
    }
    if (!m_have_pwait2) {
        const auto ms = std::chrono::ceil<std::chrono::milliseconds>(left).count();
        ready = ::epoll_wait(m_epoll_fd, events, k_max_ready, static_cast<int>(ms));
    }
    int count = 0;
    for (int i = 0; i < ready; ++i) {
        if (unwanted(events[i].data.fd)) {
            continue;
        }
        int mask = 0;
        if ((events[i].events & (EPOLLIN | EPOLLHUP | EPOLLRDHUP)) != 0) {
            mask |= CURL_CSELECT_IN;
        }
        if ((events[i].events & EPOLLOUT) != 0) {
            mask |= CURL_CSELECT_OUT;
        }
        if ((events[i].events & EPOLLERR) != 0) {
            mask |= CURL_CSELECT_ERR;
        }
        out[count++] = Ready{events[i].data.fd, mask};
    }
    return count;
}

}  // namespace service
