#pragma once
// Reads a result log record by record, in constant memory: for replay, report and cleanup.

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "results/records.hpp"
#include "util/result.hpp"
#include "util/unique_fd.hpp"

namespace results {

class LogReader {
public:
    static constexpr std::size_t k_max_warnings = 100;  // kept; the rest are only counted

    // Opens the log at `path`; fails, naming it and the OS reason, if it cannot be opened.
    static util::Result<LogReader> open(const std::string& path);
    // Opens the log at `path` to read from byte `start` on, which must be where a line starts
    // (line numbers then count from there). Fails as open() does.
    static util::Result<LogReader> open_at(const std::string& path, std::int64_t start);

    LogReader(LogReader&& other) noexcept = default;
    LogReader& operator=(LogReader&& other) noexcept = default;
    LogReader(const LogReader&) = delete;
    LogReader& operator=(const LogReader&) = delete;
    ~LogReader() = default;

    // Reads the next record into `out`: true when there was one, false at the end of the
    // log. Lines that cannot be used (torn by a crash, not JSON, an unknown event) are
    // skipped with a warning, never fatal; blank lines are skipped silently. Fails only
    // when the file cannot be read.
    util::Result<bool> next(Record& out);

    // Returns the 1-based line number of the record next() returned last.
    std::int64_t line_number() const { return m_record_line; }
    // Returns the first k_max_warnings warnings, each "PATH:LINE: what".
    const std::vector<std::string>& warnings() const { return m_warnings; }
    // Returns how many warnings there were, kept or not.
    std::int64_t warning_count() const { return m_warning_count; }
    const std::string& path() const { return m_path; }

private:
    LogReader(int fd, std::string path);
    // Sets `line` to the next line without its '\n'; `complete` is false for a last line
    // with no '\n'. Returns false at the end of the file.
    util::Result<bool> next_line(std::string_view& line, bool& complete);
    util::Result<void> fill();
    void warn(std::string message);

    util::UniqueFd m_fd;
    std::string m_path;
    std::string m_buffer;
    std::size_t m_begin = 0;  // unread bytes are m_buffer[m_begin, m_end)
    std::size_t m_end = 0;
    bool m_eof = false;
    std::int64_t m_line = 0;
    std::int64_t m_record_line = 0;
    std::vector<std::string> m_warnings;
    std::int64_t m_warning_count = 0;
};

}  // namespace results
