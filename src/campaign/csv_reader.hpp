#pragma once
// Streaming RFC 4180 reader for the recipient list: one record at a time, in fixed-size
// chunks, so memory grows with the longest record and never with the file's length.

#include <cstddef>
#include <iosfwd>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "util/result.hpp"

namespace campaign {

struct CsvOptions {
    char delimiter = ',';
    std::size_t chunk_size = 64 * 1024;       // bytes per read; tests use tiny chunks
    std::size_t max_field_bytes = 64 * 1024;  // a longer field makes its row a problem
};

// One data record. `fields` always has exactly one entry per header column (missing
// ones empty, extra ones dropped); when `problem` is set the row is unusable.
struct CsvRecord {
    long long row = 0;   // 1 for the first data row
    long long line = 0;  // 1-based physical line where the record starts
    std::vector<std::string> fields;
    std::string problem;  // e.g. "row 7 has 5 fields, the header has 4"
};

class CsvReader {
public:
    // Opens the file at `path` and reads its header. Fails when the file cannot be read,
    // is empty, or its header is unusable (an empty or duplicate column name, a bad quote,
    // invalid UTF-8); the message starts with "path:line: ".
    static util::Result<CsvReader> open(const std::string& path, const CsvOptions& options);
    static util::Result<CsvReader> open(const std::string& path, char delimiter);

    // As open(), over the in-memory `text`; `name` stands for the path in messages.
    static util::Result<CsvReader> from_string(std::string text, const CsvOptions& options,
                                               const std::string& name = "<string>");
    // As open(), over the stream `in` (tests use one that fails).
    static util::Result<CsvReader> from_stream(std::unique_ptr<std::istream> in, const CsvOptions& options,
                                               const std::string& name);

    CsvReader(CsvReader&&) noexcept;
    CsvReader& operator=(CsvReader&&) noexcept;
    ~CsvReader();

    // The column names, surrounding spaces trimmed.
    const std::vector<std::string>& header() const { return m_header; }

    // Returns the index of the column called exactly `name`, or nothing.
    std::optional<std::size_t> column(std::string_view name) const;

    // Reads the next record into `out`, reusing its buffers: true, or false at the end of the
    // input. A malformed row comes back with `out.problem` set and reading goes on (after an
    // unterminated quote nothing more can be read). Fails when the file cannot be read on
    // ("path: the file could not be read past line N").
    util::Result<bool> next(CsvRecord& out);

    // The 1-based physical line the reader has reached.
    long long line() const { return m_line; }

private:
    static constexpr std::size_t k_none = static_cast<std::size_t>(-1);
    // Where the RFC 4180 state machine is within a record.
    enum class ScanState { field_start, unquoted, quoted, quote_in_quoted };
    // What one pass over a record found: the first field index with each kind of problem.
    struct Parsed {
        long long line = 0;
        long long quote_line = 0;        // where the last quoted field opened
        std::size_t count = 0;           // fields completed so far
        std::string* current = nullptr;  // where the current field goes; null: not kept
        bool unterminated = false;
        std::size_t too_long = k_none;
        std::size_t nul = k_none;
        std::size_t bad_utf8 = k_none;
        std::size_t after_quote = k_none;
        ScanState state = ScanState::field_start;
        std::vector<std::string>* fields = nullptr;  // where kept fields go
        std::size_t keep = 0;                        // how many fields to keep
    };
    enum class Labels { by_position, by_name };

    CsvReader(std::unique_ptr<std::istream> in, const CsvOptions& options);

    util::Result<void> read_header(const std::string& name);
    bool fill();
    bool skip_blank_lines();
    bool parse_record(std::vector<std::string>& fields, std::size_t keep, Parsed& parsed);
    // One step of the state machine over the buffered bytes; each returns true when the
    // record ended.
    bool scan(Parsed& parsed);
    bool scan_unquoted(Parsed& parsed);
    void scan_quoted(Parsed& parsed);
    bool scan_after_quote(Parsed& parsed);
    void append(Parsed& parsed, const char* data, std::size_t size) const;
    void end_field(Parsed& parsed) const;
    static void start_field(Parsed& parsed);
    std::string describe(const Parsed& parsed, std::string_view subject, Labels labels) const;

    std::unique_ptr<std::istream> m_in;
    CsvOptions m_options;
    std::vector<char> m_buf;
    std::size_t m_pos = 0;
    std::size_t m_end = 0;
    bool m_after_cr = false;     // the previous chunk ended with '\r' (for CRLF across chunks)
    bool m_finished = false;     // end of input, or nothing more can be read
    bool m_read_failed = false;  // an I/O error ended the input
    std::string m_name;          // the path, for messages
    long long m_line = 1;
    long long m_row = 0;
    std::vector<std::string> m_header;
};

}  // namespace campaign
