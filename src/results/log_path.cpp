#include "results/log_path.hpp"

#include <fmt/format.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cerrno>
#include <cstring>
#include <filesystem>

namespace results {

namespace {

// What `mode` is, for people ("a FIFO (named pipe)").
std::string_view kind_of(mode_t mode) {
    if (S_ISDIR(mode)) {
        return "a folder";
    }
    if (S_ISFIFO(mode)) {
        return "a FIFO (named pipe)";
    }
    if (S_ISCHR(mode)) {
        return "a character device";
    }
    if (S_ISBLK(mode)) {
        return "a block device";
    }
    if (S_ISSOCK(mode)) {
        return "a socket";
    }
    return "not a regular file";
}

// Returns the target a symlink at `path` names ("?" when unreadable), for messages.
std::string link_target(const std::string& path) {
    std::error_code ec;
    auto target = std::filesystem::read_symlink(path, ec);
    return ec ? std::string("?") : target.string();
}

}  // namespace

util::Result<LogPath> resolve_log_path(const std::string& path) {
    return resolve_output_path(path, {"results path", "a result log"});
}

util::Result<LogPath> resolve_output_path(const std::string& path, const OutputKind& kind) {
    const auto refused = [&kind](const std::string& where, const std::string& what) {
        return util::fail(fmt::format("{} {} {}; {} must be a regular file, so nothing was written there", kind.name,
                                      where, what, kind.noun));
    };
    struct stat link {};
    if (::lstat(path.c_str(), &link) != 0) {
        if (errno != ENOENT && errno != ENOTDIR) {
            return util::fail(fmt::format("cannot inspect {} {}: {}", kind.name, path, std::strerror(errno)));
        }
        // Nothing there yet: the writer creates it (and reports a folder it cannot make).
        std::error_code ec;
        auto resolved = std::filesystem::weakly_canonical(path, ec);
        return LogPath{ec ? path : resolved.string(), false};
    }
    const bool symlink = S_ISLNK(link.st_mode);
    struct stat target = link;
    if (symlink && ::stat(path.c_str(), &target) != 0) {
        const int error = errno;
        if (error == ENOENT || error == ENOTDIR) {
            return refused(path, fmt::format("is a symlink to {}, which does not exist (writing there would "
                                             "create a file wherever the link points)",
                                             link_target(path)));
        }
        return refused(path, fmt::format("is a symlink that cannot be followed ({})", std::strerror(error)));
    }
    if (!S_ISREG(target.st_mode)) {
        return refused(
            path, symlink ? fmt::format("is a symlink to {}, which is {}", link_target(path), kind_of(target.st_mode))
                          : fmt::format("is {}", kind_of(target.st_mode)));
    }
    std::error_code ec;
    auto resolved = std::filesystem::canonical(path, ec);
    if (ec) {
        return util::fail(fmt::format("cannot resolve {} {}: {}", kind.name, path, ec.message()));
    }
    return LogPath{resolved.string(), true};
}

}  // namespace results
