#include "results/log_guard.hpp"

#include <fcntl.h>
#include <fmt/format.h>
#include <sys/stat.h>
#include <unistd.h>
#include <array>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <string_view>

namespace results {

namespace {

constexpr std::string_view k_stopped = "stopped so that no request leaves unrecorded";

std::string os_error() {
    return std::strerror(errno);
}

// Copies all of `from` into `to` (both open); false with errno set on failure.
bool copy_all(int from, int to) {
    std::array<char, 64 * 1024> buffer{};
    off_t offset = 0;
    for (;;) {
        const ssize_t n = ::pread(from, buffer.data(), buffer.size(), offset);
        if (n < 0 && errno == EINTR) {
            continue;
        }
        if (n <= 0) {
            return n == 0;
        }
        offset += n;
        for (ssize_t done = 0; done < n;) {
            const ssize_t w = ::write(to, buffer.data() + done, static_cast<size_t>(n - done));
            if (w < 0 && errno == EINTR) {
                continue;
            }
            if (w < 0) {
                return false;
            }
            done += w;
        }
    }
}

// Links the synced copy `temp` at `place`; false when something is there (EEXIST) or on error.
bool link_into_place(const std::string& temp, const std::string& place) {
    return ::link(temp.c_str(), place.c_str()) == 0;
}

}  // namespace

util::Result<LogCheck> check_open_log(int fd, const std::string& path, std::int64_t written) {
    struct stat own {};
    if (::fstat(fd, &own) != 0) {
        return util::fail(fmt::format("cannot inspect result log {}: {}", path, os_error()));
    }
    LogCheck check{LogFate::intact, static_cast<std::int64_t>(own.st_size)};
    if (own.st_nlink == 0) {
        check.fate = LogFate::deleted;
        return check;
    }
    struct stat at {};
    if (::stat(path.c_str(), &at) != 0) {
        check.fate = LogFate::moved;
    } else if (at.st_dev != own.st_dev || at.st_ino != own.st_ino) {
        check.fate = LogFate::replaced;
    } else if (check.size < written) {
        check.fate = LogFate::truncated;
    }
    return check;
}

std::string current_name(int fd) {
    std::error_code ec;
    auto name = std::filesystem::read_symlink(fmt::format("/proc/self/fd/{}", fd), ec).string();
    constexpr std::string_view k_deleted = " (deleted)";
    if (ec || name.empty() || name.front() != '/' || (name.size() > k_deleted.size() && name.ends_with(k_deleted))) {
        return {};
    }
    return name;
}

util::Result<std::string> restore_log(int fd, const std::string& path) {
    const std::string temp = fmt::format("{}.restoring.{}", path, ::getpid());
    ::unlink(temp.c_str());
    const int out = ::open(temp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
    if (out < 0) {
        return util::fail(fmt::format("cannot create {}: {}", temp, os_error()));
    }
    const bool copied = copy_all(fd, out) && ::fsync(out) == 0;
    const std::string reason = copied ? "" : os_error();
    ::close(out);
    if (!copied) {
        ::unlink(temp.c_str());
        return util::fail(fmt::format("cannot copy it to {}: {}", temp, reason));
    }
    std::string place = path;
    bool linked = link_into_place(temp, place);
    if (!linked && errno == EEXIST) {
        place = path + ".recovered";
        linked = link_into_place(temp, place);
    }
    const std::string link_error = linked ? "" : os_error();
    ::unlink(temp.c_str());
    if (!linked) {
        return util::fail(fmt::format("cannot link the copy at {}: {}", place, link_error));
    }
    return place;
}

std::string describe_fate(const std::string& path, const LogCheck& check, std::int64_t written, int fd,
                          const std::string& restored) {
    std::string what;
    switch (check.fate) {
    case LogFate::intact: return {};
    case LogFate::deleted: what = "was deleted"; break;
    case LogFate::moved:
    case LogFate::replaced: {
        const std::string elsewhere = current_name(fd);
        what = fmt::format("was moved away{}{}", elsewhere.empty() ? "" : " to " + elsewhere,
                           check.fate == LogFate::replaced ? " and another file is at its path" : "");
        break;
    }
    case LogFate::truncated:
        return fmt::format(
            "the result log {} was truncated while this run was writing it (log rotation with "
            "copytruncate?): it holds {} bytes, this run had written {}, so its earlier records are "
            "gone; {}. Put the log back together from the copy that was taken before running "
            "again, and keep result logs out of log rotation",
            path, check.size, written, k_stopped);
    }
    std::string message = fmt::format("the result log {} {} while this run was writing it", path, what);
    if (restored == path) {
        return message + fmt::format("; it was restored from the open file, whole (a later run continues from it); {}",
                                     k_stopped);
    }
    if (!restored.empty()) {
        return message + fmt::format(
                             "; it was restored to {}; {}. Move {} to {} before running again, or the "
                             "next run sends again to everyone",
                             restored, k_stopped, restored, path);
    }
    if (check.fate == LogFate::deleted) {
        return message +
               fmt::format("; it could not be restored; {}. The next run cannot know what was sent", k_stopped);
    }
    return message + fmt::format(
                         " (log rotation?); {}. Put it back at {} before running again, or the next run "
                         "sends again to everyone it names",
                         k_stopped, path);
}

}  // namespace results
