#include "runner/log_start.hpp"

#include <fcntl.h>
#include <fmt/format.h>
#include <unistd.h>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>

#include "results/run_lock.hpp"

namespace runner {

namespace {

util::Error os_failure(const std::string& what, const std::string& path) {
    return util::fail(fmt::format("cannot {} result log {}: {}", what, path, std::strerror(errno)));
}

// Makes the rename durable: without it a machine crash could lose the new name.
void sync_folder(const std::filesystem::path& folder) {
    const int fd = ::open(folder.empty() ? "." : folder.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd >= 0) {
        ::fsync(fd);
        ::close(fd);
    }
}

}  // namespace

util::Result<void> start_log(const std::string& path, std::string_view first_line, results::RunLock& lock) {
    const auto folder = std::filesystem::path(path).parent_path();
    std::error_code ec;
    if (!folder.empty()) {
        std::filesystem::create_directories(folder, ec);
    }
    if (ec) {
        return util::fail(
            fmt::format("cannot create folder {} for result log {}: {}", folder.string(), path, ec.message()));
    }
    const std::string staging = path + ".new";
    ::unlink(staging.c_str());  // left by a crash; never written through, should it be a symlink
    const int fd = ::open(staging.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
    if (fd < 0) {
        return os_failure("create", staging);
    }
    std::string_view rest = first_line;
    while (!rest.empty()) {
        const ssize_t n = ::write(fd, rest.data(), rest.size());
        if (n < 0 && errno == EINTR) {
            continue;
        }
        if (n <= 0) {
            auto failure = os_failure("write", staging);
            ::close(fd);
            return failure;
        }
        rest.remove_prefix(static_cast<size_t>(n));
    }
    const bool synced = ::fsync(fd) == 0;
    if (!synced) {
        auto failure = os_failure("sync", staging);
        ::close(fd);
        return failure;
    }
    if (::close(fd) != 0) {
        return os_failure("write", staging);
    }
    // Locked before it takes the log's place: a hard link made to the new log finds it locked.
    TRY(lock.cover(staging));
    if (std::rename(staging.c_str(), path.c_str()) != 0) {
        return os_failure("create", path);
    }
    sync_folder(folder);
    return {};
}

}  // namespace runner
