#include "observe/text_file.hpp"

#include <fcntl.h>
#include <fmt/format.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>

namespace observe {

namespace {

namespace fs = std::filesystem;

util::Error os_failure(const std::string& what, const std::string& path) {
    return util::fail(fmt::format("cannot {} metrics file {}: {}", what, path, std::strerror(errno)));
}

// The folder `path` is in ("." for a bare name).
fs::path folder_of(const std::string& path) {
    const fs::path folder = fs::path(path).parent_path();
    return folder.empty() ? fs::path(".") : folder;
}

// Writes all of `text` to `fd`; false (errno set) when a write fails.
bool write_all(int fd, std::string_view text) {
    while (!text.empty()) {
        const ssize_t n = ::write(fd, text.data(), text.size());
        if (n < 0 && errno == EINTR) {
            continue;
        }
        if (n <= 0) {
            return false;
        }
        text.remove_prefix(static_cast<std::size_t>(n));
    }
    return true;
}

// Makes the rename durable: without it a machine crash could lose the new name.
void sync_folder(const fs::path& folder) {
    const int fd = ::open(folder.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd >= 0) {
        ::fsync(fd);
        ::close(fd);
    }
}

}  // namespace

util::Result<void> check_metrics_path(const std::string& path) {
    if (!path.ends_with(".prom") || fs::path(path).filename() == ".prom") {
        return util::fail(
            fmt::format("--metrics-file {}: the name must end in .prom, the only files "
                        "node_exporter's textfile collector reads",
                        path));
    }
    const fs::path folder = folder_of(path);
    std::error_code ec;
    const auto folder_status = fs::status(folder, ec);
    if (!fs::exists(folder_status)) {
        return util::fail(fmt::format("--metrics-file {}: the folder {} does not exist", path, folder.string()));
    }
    if (!fs::is_directory(folder_status)) {
        return util::fail(fmt::format("--metrics-file {}: {} is not a folder", path, folder.string()));
    }
    if (::access(folder.c_str(), W_OK | X_OK) != 0) {
        return util::fail(fmt::format("--metrics-file {}: cannot write in the folder {}: {}", path, folder.string(),
                                      std::strerror(errno)));
    }
    if (fs::is_directory(fs::status(path, ec))) {
        return util::fail(fmt::format("--metrics-file {}: is a folder", path));
    }
    return {};
}

util::Result<void> write_atomically(const std::string& path, std::string_view text) {
    const fs::path folder = folder_of(path);
    // Hidden, and not ending in .prom: the collector never reads it.
    std::string temp = (folder / ("." + fs::path(path).filename().string() + ".XXXXXX")).string();
    const int fd = ::mkstemp(temp.data());
    if (fd < 0) {
        return os_failure("create a temporary file for", path);
    }
    const auto fail_with = [&](const std::string& what) {
        auto failure = os_failure(what, path);
        ::close(fd);
        ::unlink(temp.c_str());
        return failure;
    };
    if (!write_all(fd, text)) {
        return fail_with("write");
    }
    if (::fsync(fd) != 0) {
        return fail_with("sync");
    }
    // mkstemp makes it 0600; the collector runs as another user.
    if (::fchmod(fd, 0644) != 0) {
        return fail_with("set the mode of");
    }
    if (::close(fd) != 0) {
        auto failure = os_failure("write", path);
        ::unlink(temp.c_str());
        return failure;
    }
    if (std::rename(temp.c_str(), path.c_str()) != 0) {
        auto failure = os_failure("replace", path);
        ::unlink(temp.c_str());
        return failure;
    }
    sync_folder(folder);
    return {};
}

std::optional<std::string> read_small_file(const std::string& path, std::size_t max_bytes) {
    std::error_code ec;
    if (!fs::is_regular_file(path, ec) || fs::file_size(path, ec) > max_bytes || ec) {
        return std::nullopt;
    }
    std::ifstream in(path, std::ios::binary);
    if (!in) {
        return std::nullopt;
    }
    return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

}  // namespace observe
