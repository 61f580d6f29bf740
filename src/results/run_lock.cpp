#include "results/run_lock.hpp"

#include <fcntl.h>
#include <fmt/format.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cerrno>
#include <charconv>
#include <cstring>
#include <filesystem>
#include <utility>

#include "results/log_path.hpp"

namespace results {

namespace {

// Returns the holder's pid as written in the lock file, or 0 when it cannot be read.
long read_pid(int fd) {
    char text[32] = {};
    const ssize_t n = ::pread(fd, text, sizeof text - 1, 0);
    long pid = 0;
    if (n > 0) {
        std::from_chars(text, text + n, pid);
    }
    return pid;
}

util::Error held(const std::string& what, long pid) {
    return util::fail(pid > 0 ? fmt::format("another wacamp process is running this campaign (lock held on {} "
                                            "by pid {})",
                                            what, pid)
                              : fmt::format("another wacamp process is running this campaign (lock held on {})", what));
}

// Opens the lock file at `path` without following a symlink (a planted link must not make
// the pid overwrite another file), and refuses anything but a regular file.
util::Result<int> open_lock_file(const std::string& path) {
    const int fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC, 0644);
    if (fd < 0) {
        return util::fail(fmt::format("cannot open lock {}: {}", path, std::strerror(errno)));
    }
    struct stat st {};
    if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        ::close(fd);
        return util::fail(fmt::format("cannot use lock {}: not a regular file", path));
    }
    return fd;
}

// Locks the log file at `file` itself; returns its descriptor.
util::Result<int> lock_log_file(const std::string& file) {
    const int fd = ::open(file.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0) {
        return util::fail(fmt::format("cannot open result log {}: {}", file, std::strerror(errno)));
    }
    struct stat st {};
    if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        ::close(fd);
        return util::fail(fmt::format("result log {} is not a regular file", file));
    }
    if (::flock(fd, LOCK_EX | LOCK_NB) != 0) {
        const int error = errno;
        ::close(fd);
        if (error != EWOULDBLOCK) {
            return util::fail(fmt::format("cannot lock {}: {}", file, std::strerror(error)));
        }
        // Held through another name of the same file (a hard link).
        return held(fmt::format("the result log {} itself, under another of its names", file), 0);
    }
    return fd;
}

// Whether the file open at `fd` is still the one at `path`: not removed (discard) or replaced
// since it was opened.
bool still_at(int fd, const std::string& path) {
    struct stat held {};
    struct stat named {};
    return ::fstat(fd, &held) == 0 && ::lstat(path.c_str(), &named) == 0 && held.st_dev == named.st_dev &&
           held.st_ino == named.st_ino;
}

// Locks the lock file at `path` without waiting; its descriptor. A file removed between the
// open and the lock (a run that discarded it) is let go and the new one tried.
util::Result<int> lock_file_at(const std::string& path) {
    constexpr int k_tries = 100;
    for (int tries = 1;; ++tries) {
        TRY_ASSIGN(const int fd, open_lock_file(path));
        if (::flock(fd, LOCK_EX | LOCK_NB) != 0) {
            const int error = errno;
            const long pid = error == EWOULDBLOCK ? read_pid(fd) : 0;
            ::close(fd);
            if (error != EWOULDBLOCK) {
                return util::fail(fmt::format("cannot lock {}: {}", path, std::strerror(error)));
            }
            return held(path, pid);
        }
        if (still_at(fd, path)) {
            return fd;
        }
        ::close(fd);
        if (tries == k_tries) {
            return util::fail(fmt::format("cannot lock {}: it keeps being removed and made again", path));
        }
    }
}

}  // namespace

util::Result<RunLock> RunLock::acquire(const std::string& log_path) {
    TRY_ASSIGN(const auto log, resolve_log_path(log_path));
    std::string path = log.resolved + ".lock";
    const auto parent = std::filesystem::path(path).parent_path();
    std::error_code ec;
    if (!parent.empty()) {
        std::filesystem::create_directories(parent, ec);
    }
    if (ec) {
        return util::fail(fmt::format("cannot create folder {} for lock {}: {}", parent.string(), path, ec.message()));
    }
    struct stat before {};
    const bool lock_file_was_there = ::lstat(path.c_str(), &before) == 0;  // left by an earlier run
    TRY_ASSIGN(const int fd, lock_file_at(path));
    RunLock lock(fd, path, log.resolved);
    lock.m_earlier_run = lock_file_was_there;
    if (log.exists) {
        TRY(lock.cover(log.resolved));  // on failure the destructor releases the lock file
    }
    // The pid is for people and for the message above; the lock itself is the flock.
    const std::string pid = fmt::format("{}\n", ::getpid());
    if (::ftruncate(fd, 0) != 0 || ::pwrite(fd, pid.data(), pid.size(), 0) != static_cast<ssize_t>(pid.size())) {
        return util::fail(fmt::format("cannot write lock {}: {}", path, std::strerror(errno)));
    }
    return lock;
}

util::Result<void> RunLock::cover(const std::string& file) {
    TRY_ASSIGN(const int locked, lock_log_file(file));
    if (m_log_fd >= 0) {
        ::close(m_log_fd);
    }
    m_log_fd = locked;
    return {};
}

RunLock::RunLock(RunLock&& other) noexcept
    : m_fd(std::exchange(other.m_fd, -1)),
      m_log_fd(std::exchange(other.m_log_fd, -1)),
      m_path(std::move(other.m_path)),
      m_log_path(std::move(other.m_log_path)),
      m_earlier_run(other.m_earlier_run) {}

RunLock& RunLock::operator=(RunLock&& other) noexcept {
    if (this != &other) {
        release();
        m_fd = std::exchange(other.m_fd, -1);
        m_log_fd = std::exchange(other.m_log_fd, -1);
        m_path = std::move(other.m_path);
        m_log_path = std::move(other.m_log_path);
        m_earlier_run = other.m_earlier_run;
    }
    return *this;
}

RunLock::~RunLock() {
    release();
}

void RunLock::discard() {
    if (m_fd >= 0) {
        ::unlink(m_path.c_str());
    }
    release();
}

void RunLock::release() {
    if (m_log_fd >= 0) {
        ::close(m_log_fd);
        m_log_fd = -1;
    }
    if (m_fd >= 0) {
        // Emptied while still held, so nobody reads a stale pid afterwards.
        (void)::ftruncate(m_fd, 0);
        ::close(m_fd);  // closing the last descriptor releases the flock
        m_fd = -1;
    }
}

}  // namespace results
