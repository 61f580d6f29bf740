#include "sandbox/hang_up.hpp"

#include <arpa/inet.h>
#include <dirent.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <cstdlib>

namespace sandbox {

namespace {

// Returns the port of an IPv4 or IPv6 socket address, or -1.
int port_of(const sockaddr_storage& address) {
    if (address.ss_family == AF_INET) {
        return ntohs(reinterpret_cast<const sockaddr_in&>(address).sin_port);
    }
    if (address.ss_family == AF_INET6) {
        return ntohs(reinterpret_cast<const sockaddr_in6&>(address).sin6_port);
    }
    return -1;
}

// Returns the peer port when `fd` is a connected TCP socket on `local_port`, else -1.
int peer_port(int fd, int local_port) {
    struct stat info {};
    if (fstat(fd, &info) != 0 || !S_ISSOCK(info.st_mode)) {
        return -1;
    }
    sockaddr_storage local{};
    sockaddr_storage peer{};
    socklen_t local_size = sizeof local;
    socklen_t peer_size = sizeof peer;
    if (getsockname(fd, reinterpret_cast<sockaddr*>(&local), &local_size) != 0 ||
        getpeername(fd, reinterpret_cast<sockaddr*>(&peer), &peer_size) != 0) {
        return -1;
    }
    return port_of(local) == local_port ? port_of(peer) : -1;
}

// Calls `act(fd, peer port)` on each open descriptor that is a connection on `local_port`,
// until it returns false.
template <typename Act>
void for_each_connection(int local_port, Act act) {
    DIR* dir = opendir("/proc/self/fd");
    if (dir == nullptr) {
        return;
    }
    while (dirent* entry = readdir(dir)) {
        if (entry->d_name[0] < '0' || entry->d_name[0] > '9') {
            continue;
        }
        int fd = std::atoi(entry->d_name);
        if (fd == dirfd(dir)) {
            continue;
        }
        int peer = peer_port(fd, local_port);
        if (peer != -1 && !act(fd, peer)) {
            break;
        }
    }
    closedir(dir);
}

}  // namespace

bool hang_up(int local_port, int remote_port) {
    bool found = false;
    // Only the handler's own connection matches both ports, and it stays open while the
    // handler runs, so this descriptor cannot be reused meanwhile.
    for_each_connection(local_port, [&](int fd, int peer) {
        if (peer != remote_port) {
            return true;
        }
        found = shutdown(fd, SHUT_RDWR) == 0;
        return false;
    });
    return found;
}

void hang_up_idle(int local_port, const std::function<bool(int remote_port)>& busy) {
    for_each_connection(local_port, [&](int fd, int peer) {
        if (!busy(peer)) {
            shutdown(fd, SHUT_RDWR);
        }
        return true;
    });
}

}  // namespace sandbox
