#include "results/log_reader.hpp"

#include <fcntl.h>
#include <fmt/format.h>
#include <unistd.h>
#include <cerrno>
#include <cstring>
#include <utility>

namespace results {

namespace {

constexpr std::size_t k_initial_buffer = 256 * 1024;
// A longer "line" is not a record (a binary file, a missing newline run); it is skipped
// rather than read whole into memory.
constexpr std::size_t k_max_line = 16 * 1024 * 1024;

bool is_blank(std::string_view line) {
    return line.find_first_not_of(" \t\r") == std::string_view::npos;
}

}  // namespace

util::Result<LogReader> LogReader::open(const std::string& path) {
    const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        return util::fail(fmt::format("cannot open result log {}: {}", path, std::strerror(errno)));
    }
    return LogReader(fd, path);
}

util::Result<LogReader> LogReader::open_at(const std::string& path, std::int64_t start) {
    TRY_ASSIGN(LogReader reader, open(path));
    if (::lseek(reader.m_fd.get(), static_cast<off_t>(start), SEEK_SET) < 0) {
        return util::fail(fmt::format("cannot read result log {}: {}", path, std::strerror(errno)));
    }
    return reader;
}

LogReader::LogReader(int fd, std::string path) : m_fd(fd), m_path(std::move(path)) {
    m_buffer.resize(k_initial_buffer);
}

void LogReader::warn(std::string message) {
    ++m_warning_count;
    if (m_warnings.size() < k_max_warnings) {
        m_warnings.push_back(std::move(message));
    }
}

util::Result<void> LogReader::fill() {
    if (m_begin > 0) {
        std::memmove(m_buffer.data(), m_buffer.data() + m_begin, m_end - m_begin);
        m_end -= m_begin;
        m_begin = 0;
    }
    if (m_end == m_buffer.size()) {
        m_buffer.resize(m_buffer.size() * 2);
    }
    while (true) {
        const ssize_t n = ::read(m_fd.get(), m_buffer.data() + m_end, m_buffer.size() - m_end);
        if (n < 0 && errno == EINTR) {
            continue;
        }
        if (n < 0) {
            return util::fail(fmt::format("cannot read result log {}: {}", m_path, std::strerror(errno)));
        }
        m_eof = n == 0;
        m_end += static_cast<std::size_t>(n);
        return {};
    }
}

util::Result<bool> LogReader::next_line(std::string_view& line, bool& complete) {
    bool skipping = false;  // inside a line longer than k_max_line
    while (true) {
        const char* start = m_buffer.data() + m_begin;
        const auto* newline = static_cast<const char*>(std::memchr(start, '\n', m_end - m_begin));
        if (newline != nullptr) {
            line = std::string_view(start, static_cast<std::size_t>(newline - start));
            m_begin += line.size() + 1;
            ++m_line;
            if (skipping) {
                warn(fmt::format("{}:{}: line longer than {} MiB ignored", m_path, m_line, k_max_line >> 20));
                skipping = false;
                continue;
            }
            complete = true;
            return true;
        }
        if (m_eof) {
            if (skipping) {
                ++m_line;
                warn(fmt::format("{}:{}: line longer than {} MiB ignored", m_path, m_line, k_max_line >> 20));
                m_begin = m_end;
                return false;
            }
            if (m_begin == m_end) {
                return false;
            }
            line = std::string_view(start, m_end - m_begin);
            m_begin = m_end;
            ++m_line;
            complete = false;
            return true;
        }
        if (m_end - m_begin >= k_max_line) {
            skipping = true;
            m_begin = m_end;
        }
        TRY(fill());
    }
}

util::Result<bool> LogReader::next(Record& out) {
    std::string_view line;
    bool complete = false;
    while (true) {
        auto got = next_line(line, complete);
        if (!got || !*got) {
            return got;
        }
        if (is_blank(line)) {
            continue;
        }
        if (!complete) {
            warn(
                fmt::format("{}:{}: torn last line ignored (no newline at its end: the writer "
                            "stopped mid-record)",
                            m_path, m_line));
            continue;
        }
        auto record = parse_record(line);
        if (!record) {
            warn(fmt::format("{}:{}: line ignored: {}", m_path, m_line, record.error().message));
            continue;
        }
        out = std::move(*record);
        m_record_line = m_line;
        return true;
    }
}

}  // namespace results
