#pragma once
// The sockets libcurl asks to watch through its socket interface (CURLMOPT_SOCKETFUNCTION),
// kept in an epoll set so that a wake-up reports only the sockets that are ready, and so that
// most of curl's calls cost no system call: a kept-alive connection goes from "watch for input"
// to "done" and back for every request on it, and stays registered meanwhile.

#include <chrono>
#include <cstdint>
#include <unordered_map>

namespace service {

class SocketWatch {
public:
    // A socket that is ready, with what it is ready for as curl's CURL_CSELECT_* bits.
    struct Ready {
        int socket = -1;
        int mask = 0;
    };
    static constexpr int k_max_ready = 64;

    SocketWatch();  // throws std::runtime_error when no epoll instance can be made
    ~SocketWatch();
    SocketWatch(const SocketWatch&) = delete;
    SocketWatch& operator=(const SocketWatch&) = delete;

    // What curl asked for `socket`: CURL_POLL_IN, _OUT, _INOUT or _REMOVE.
    void watch(int socket, int what);

    // Waits until `until` at most (to the microsecond where the kernel has epoll_pwait2, 5.11;
    // else rounded up to the millisecond) and fills `out` with the sockets curl watches that
    // are ready; returns how many. An event on a socket curl no longer watches (an idle
    // kept-alive connection the service closed, say) unregisters it instead, or epoll would
    // report it forever.
    int wait(std::chrono::steady_clock::time_point until, Ready (&out)[k_max_ready]);

private:
    struct Watch {
        std::uint32_t events = 0;  // registered with epoll
        bool wanted = false;       // curl watches it now
    };
    bool unwanted(int socket);

    int m_epoll_fd = -1;
    bool m_have_pwait2 = true;
    std::unordered_map<int, Watch> m_watches;
};

}  // namespace service
