#include "results/log_writer.hpp"

#include <fcntl.h>
#include <fmt/format.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <utility>

#include "results/log_guard.hpp"

namespace results {

namespace {

std::string os_error() {
    return std::strerror(errno);
}

util::Result<void> create_parent(const std::string& path) {
    const auto parent = std::filesystem::path(path).parent_path();
    std::error_code ec;
    if (!parent.empty()) {
        std::filesystem::create_directories(parent, ec);
    }
    if (ec) {
        return util::fail(
            fmt::format("cannot create folder {} for result log {}: {}", parent.string(), path, ec.message()));
    }
    return {};
}

// Makes a new file's name durable: without it a machine crash can lose the whole file.
void sync_parent(const std::string& path) {
    auto parent = std::filesystem::path(path).parent_path();
    if (parent.empty()) {
        parent = ".";
    }
    const int fd = ::open(parent.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd >= 0) {
        ::fsync(fd);
        ::close(fd);
    }
}

// Returns whether the open file `fd` of `size` bytes is non-empty and its last byte is not '\n'.
util::Result<bool> ends_torn(int fd, off_t size, const std::string& path) {
    char last = '\n';
    if (size > 0 && ::pread(fd, &last, 1, size - 1) != 1) {
        return util::fail(fmt::format("cannot read result log {}: {}", path, os_error()));
    }
    return last != '\n';
}

}  // namespace

util::Result<LogWriter> LogWriter::open(const std::string& path, const WriterOptions& options) {
    TRY(create_parent(path));
    // Read-write: a deleted log is restored from the open file. Non-blocking: opening a FIFO
    // must not hang before it is refused.
    constexpr int k_flags = O_RDWR | O_APPEND | O_NONBLOCK | O_CLOEXEC;
    bool created = true;
    int fd = ::open(path.c_str(), k_flags | O_CREAT | O_EXCL, 0644);  // O_EXCL never follows a symlink
    if (fd < 0 && errno == EEXIST) {
        created = false;
        fd = ::open(path.c_str(), k_flags);  // no O_CREAT: nothing is made where a dangling symlink points
    }
    if (fd < 0) {
        return util::fail(fmt::format("cannot open result log {}: {}", path, os_error()));
    }
    LogWriter writer(fd, path, options);
    struct stat st {};
    if (::fstat(fd, &st) != 0) {
        return util::fail(fmt::format("cannot inspect result log {}: {}", path, os_error()));
    }
    if (!S_ISREG(st.st_mode)) {
        return util::fail(fmt::format("result log {} is not a regular file; nothing was written to it", path));
    }
    (void)::fcntl(fd, F_SETFL, O_APPEND);  // back to blocking writes
    if (!created && options.existing == Existing::replace && st.st_size > 0) {
        if (::ftruncate(fd, 0) != 0) {
            return util::fail(fmt::format("cannot empty result log {}: {}", path, os_error()));
        }
        st.st_size = 0;
    }
    writer.m_written = st.st_size;
    if (created && options.durability != Durability::none) {
        sync_parent(path);
    }
    if (!created) {
        TRY_ASSIGN(writer.m_torn, ends_torn(fd, st.st_size, path));
    }
    return writer;
}

LogWriter::LogWriter(int fd, std::string path, const WriterOptions& options)
    : m_fd(fd), m_path(std::move(path)), m_options(options), m_last_sync(steady_now()) {}

LogWriter::LogWriter(LogWriter&& other) noexcept
    : m_fd(std::exchange(other.m_fd, -1)),
      m_path(std::move(other.m_path)),
      m_options(other.m_options),
      m_dirty(other.m_dirty),
      m_torn(other.m_torn),
      m_written(other.m_written),
      m_batch(std::move(other.m_batch)),
      m_last_sync(other.m_last_sync),
      m_sync_count(other.m_sync_count) {}

LogWriter& LogWriter::operator=(LogWriter&& other) noexcept {
    if (this != &other) {
        release();
        m_fd = std::exchange(other.m_fd, -1);
        m_path = std::move(other.m_path);
        m_options = other.m_options;
        m_dirty = other.m_dirty;
        m_torn = other.m_torn;
        m_written = other.m_written;
        m_batch = std::move(other.m_batch);
        m_last_sync = other.m_last_sync;
        m_sync_count = other.m_sync_count;
    }
    return *this;
}

LogWriter::~LogWriter() {
    release();
}

void LogWriter::release() {
    if (m_fd >= 0) {
        (void)close();
    }
}

std::chrono::steady_clock::time_point LogWriter::steady_now() const {
    return m_options.clock != nullptr ? m_options.clock->steady_now() : std::chrono::steady_clock::now();
}

util::Result<void> LogWriter::write_all(std::string_view bytes) {
    std::size_t done = 0;
    while (done < bytes.size()) {
        const ssize_t n = ::write(m_fd, bytes.data() + done, bytes.size() - done);
        if (n < 0 && errno == EINTR) {
            continue;
        }
        if (n < 0) {
            const std::string reason = os_error();
            m_torn = m_torn || done > 0;
            return util::fail(fmt::format("cannot write to result log {}: {}", m_path, reason));
        }
        done += static_cast<std::size_t>(n);
        m_written += n;
        m_dirty = true;
    }
    return {};
}

util::Result<void> LogWriter::check_line(std::string_view line) const {
    if (m_fd < 0) {
        return util::fail(fmt::format("result log {} is closed", m_path));
    }
    if (line.empty() || line.back() != '\n') {
        return util::fail(fmt::format("not a whole line for result log {}", m_path));
    }
    return {};
}

// Writes whole lines, first ending a line a failed write tore.
util::Result<void> LogWriter::write_line(std::string_view line) {
    if (m_torn) {
        TRY(write_all("\n"));
        m_torn = false;
    }
    return write_all(line);
}

util::Result<void> LogWriter::sync_per_policy() {
    switch (m_options.durability) {
    case Durability::none: return {};
    case Durability::every_record: return sync();
    case Durability::interval:
        if (steady_now() - m_last_sync >= m_options.sync_interval) {
            return sync();
        }
        return {};
    }
    return {};
}

util::Result<void> LogWriter::append(std::string_view line) {
    TRY(check_line(line));
    TRY(take_preamble());
    if (!m_batch.empty()) {
        m_batch.append(line);
        return flush();
    }
    TRY(write_line(line));
    TRY(verify());
    return sync_per_policy();
}

util::Result<void> LogWriter::append_batched(std::string_view line) {
    constexpr std::size_t k_max_batch = 64 * 1024;
    TRY(check_line(line));
    TRY(take_preamble());
    m_batch.append(line);
    if (m_batch.size() >= k_max_batch) {
        return flush();
    }
    return {};
}

util::Result<void> LogWriter::take_preamble() {
    if (m_preamble.empty()) {
        return {};
    }
    TRY(check_line(m_preamble));
    m_batch.append(m_preamble);
    m_preamble.clear();
    return {};
}

util::Result<void> LogWriter::flush() {
    if (m_batch.empty()) {
        return {};
    }
    auto written = write_line(m_batch);
    m_batch.clear();
    TRY(written);
    TRY(verify());
    return sync_per_policy();
}

// After the lines are written (so that a deleted log's copy holds them too) and before the
// caller lets a request leave.
util::Result<void> LogWriter::verify() {
    TRY_ASSIGN(const LogCheck check, check_open_log(m_fd, m_path, m_written));
    if (check.fate == LogFate::deleted || check.fate == LogFate::moved) {
        return recover(check);  // nothing at the path: a copy there lets the next run continue
    }
    if (check.fate != LogFate::intact) {
        return util::fail(describe_fate(m_path, check, m_written, m_fd, ""));
    }
    return {};
}

// Restores a deleted or moved log at its path from the open file and writes on there; fails
// either way, saying so.
util::Result<void> LogWriter::recover(const LogCheck& check) {
    auto restored = restore_log(m_fd, m_path);
    if (!restored) {
        return util::fail(describe_fate(m_path, check, m_written, m_fd, "") + " (" + restored.error().message + ")");
    }
    const std::string message = describe_fate(m_path, check, m_written, m_fd, *restored);
    const int fd = ::open(restored->c_str(), O_RDWR | O_APPEND | O_NOFOLLOW | O_CLOEXEC);
    if (fd >= 0) {
        ::close(std::exchange(m_fd, fd));
        m_path = *restored;
        m_written = check.size;
    }
    return util::fail(message);
}

util::Result<void> LogWriter::sync() {
    if (m_fd < 0) {
        return util::fail(fmt::format("result log {} is closed", m_path));
    }
    if (!m_dirty) {
        return {};
    }
    if (::fdatasync(m_fd) != 0) {
        return util::fail(fmt::format("cannot sync result log {}: {}", m_path, os_error()));
    }
    m_dirty = false;
    m_last_sync = steady_now();
    ++m_sync_count;
    return {};
}

util::Result<void> LogWriter::close() {
    if (m_fd < 0) {
        return {};
    }
    util::Result<void> synced = flush();
    if (synced && m_options.durability != Durability::none) {
        synced = sync();
    }
    const int fd = std::exchange(m_fd, -1);
    if (::close(fd) != 0 && synced) {
        return util::fail(fmt::format("cannot close result log {}: {}", m_path, os_error()));
    }
    return synced;
}

}  // namespace results
