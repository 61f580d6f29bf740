#include "util/temp_file.hpp"

#include <fcntl.h>
#include <fmt/format.h>
#include <unistd.h>
#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>

namespace util {

Result<TempFile> TempFile::create(const TempFileOptions& options) {
    std::error_code ec;
    std::string dir = options.dir.empty() ? std::filesystem::temp_directory_path(ec).string() : options.dir;
    if (dir.empty() || ec) {
        dir = "/tmp";
    }
    int fd = ::open(dir.c_str(), O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
    if (fd < 0) {
        // Some file systems have no O_TMPFILE: a named file, unlinked at once.
        std::string name = dir + "/wacamp-XXXXXX";
        fd = ::mkstemp(name.data());
        if (fd >= 0) {
            ::unlink(name.c_str());
        }
    }
    if (fd < 0) {
        return fail(fmt::format("cannot create a temporary file in {} (set TMPDIR to another directory): {}", dir,
                                std::strerror(errno)));
    }
    TempFile file(fd);
    file.m_fail_reads_after = options.fail_reads_after_bytes;
    return file;
}

Result<std::uint64_t> TempFile::append(const void* data, std::size_t bytes) {
    const auto start = m_size;
    TRY(write_at(start, data, bytes));
    return start;
}

Result<void> TempFile::write_at(std::uint64_t offset, const void* data, std::size_t bytes) {
    const char* from = static_cast<const char*>(data);
    std::size_t left = bytes;
    while (left > 0) {
        ssize_t n = ::pwrite(m_fd.get(), from, left, static_cast<off_t>(offset));
        if (n < 0 && errno == EINTR) {
            continue;
        }
        if (n <= 0) {
            return fail(fmt::format("cannot write a temporary file (set TMPDIR to a directory with more space): {}",
                                    n == 0 ? std::strerror(ENOSPC) : std::strerror(errno)));
        }
        from += n;
        left -= static_cast<std::size_t>(n);
        offset += static_cast<std::uint64_t>(n);
    }
    m_size = std::max(m_size, offset);
    return {};
}

Result<void> TempFile::read_at(std::uint64_t offset, void* out, std::size_t bytes) const {
    char* data = static_cast<char*>(out);
    std::size_t left = bytes;
    m_read += left;
    if (m_fail_reads_after > 0 && m_read > m_fail_reads_after) {
        return fail(fmt::format("cannot read back a temporary file: {}", std::strerror(EIO)));
    }
    while (left > 0) {
        ssize_t n = ::pread(m_fd.get(), data, left, static_cast<off_t>(offset));
        if (n < 0 && errno == EINTR) {
            continue;
        }
        if (n <= 0) {
            return fail(fmt::format("cannot read back a temporary file: {}",
                                    n == 0 ? "it is shorter than written" : std::strerror(errno)));
        }
        data += n;
        left -= static_cast<std::size_t>(n);
        offset += static_cast<std::uint64_t>(n);
    }
    return {};
}

}  // namespace util
