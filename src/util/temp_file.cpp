#include "util/temp_file.hpp"

#include <fcntl.h>
#include <fmt/format.h>
#include <unistd.h>
#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>

#include "util/text.hpp"

namespace util {

namespace {

// The folder temporary files go to: `given`, else TMPDIR's, else /tmp; and how a message names
// it, so that the operator knows which setting to change.
struct TempDir {
    std::string path;
    std::string shown;
};

TempDir temp_dir(const std::string& given) {
    if (!given.empty()) {
        return {given, printable(given)};
    }
    // TMPDIR as it is: a folder that is missing or not a folder is an error that names it, never
    // a quiet fall back to /tmp (which may be small, or read-only, where TMPDIR was set).
    const char* tmpdir = std::getenv("TMPDIR");
    if (tmpdir != nullptr && *tmpdir != '\0') {
        return {tmpdir, fmt::format("{} (TMPDIR)", printable(tmpdir))};
    }
    return {"/tmp", "/tmp (TMPDIR is not set)"};
}

Error temp_error(std::string message) {
    return Error{std::move(message), ErrorKind::temp_file};
}

}  // namespace

Result<TempFile> TempFile::create(const TempFileOptions& options) {
    const TempDir dir_of = temp_dir(options.dir);
    const std::string& dir = dir_of.path;
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
        return temp_error(fmt::format(
            "cannot create a temporary file in {}: {}; set TMPDIR to a folder wacamp can write, with space to spare",
            dir_of.shown, std::strerror(errno)));
    }
    TempFile file(fd);
    file.m_dir = dir_of.shown;
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
            return temp_error(
                fmt::format("cannot write a temporary file in {}: {}; set TMPDIR to a folder with more space", m_dir,
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
        return temp_error(fmt::format("cannot read back a temporary file: {}", std::strerror(EIO)));
    }
    while (left > 0) {
        ssize_t n = ::pread(m_fd.get(), data, left, static_cast<off_t>(offset));
        if (n < 0 && errno == EINTR) {
            continue;
        }
        if (n <= 0) {
            return temp_error(fmt::format("cannot read back a temporary file: {}",
                                          n == 0 ? "it is shorter than written" : std::strerror(errno)));
        }
        data += n;
        left -= static_cast<std::size_t>(n);
        offset += static_cast<std::uint64_t>(n);
    }
    return {};
}

}  // namespace util
