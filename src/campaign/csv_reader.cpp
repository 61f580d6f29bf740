#include "campaign/csv_reader.hpp"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <unordered_map>

namespace campaign {

namespace {

constexpr std::size_t k_max_columns = 4096;

std::string trim_spaces(const std::string& s) {
    const auto first = s.find_first_not_of(" \t");
    if (first == std::string::npos) {
        return {};
    }
    return s.substr(first, s.find_last_not_of(" \t") - first + 1);
}

}  // namespace

CsvReader::CsvReader(std::unique_ptr<std::istream> in, const CsvOptions& options)
    : m_in(std::move(in)), m_options(options) {
    m_options.chunk_size = std::max<std::size_t>(m_options.chunk_size, 1);
    m_buf.resize(std::max<std::size_t>(m_options.chunk_size, 4));
}

CsvReader::CsvReader(CsvReader&&) noexcept = default;
CsvReader& CsvReader::operator=(CsvReader&&) noexcept = default;
CsvReader::~CsvReader() = default;

util::Result<CsvReader> CsvReader::open(const std::string& path, char delimiter) {
    CsvOptions options;
    options.delimiter = delimiter;
    return open(path, options);
}

util::Result<CsvReader> CsvReader::open(const std::string& path, const CsvOptions& options) {
    std::error_code ec;
    const auto type = std::filesystem::status(path, ec).type();
    if (type == std::filesystem::file_type::directory) {
        return util::fail(path + ": is a directory, not a CSV file");
    }
    // Checked before opening: opening a FIFO waits for a writer, and a device such as /dev/zero
    // never ends. A symlink to a regular file is followed.
    if (!ec && type != std::filesystem::file_type::regular) {
        return util::fail(path + ": not a regular file (a FIFO, a device or a socket); a CSV must be a file");
    }
    auto file = std::make_unique<std::ifstream>(path, std::ios::binary);
    if (!*file) {
        return util::fail(path + ": cannot open: " + std::strerror(errno));
    }
    CsvReader reader(std::move(file), options);
    TRY(reader.read_header(path));
    return reader;
}

util::Result<CsvReader> CsvReader::from_string(std::string text, const CsvOptions& options, const std::string& name) {
    return from_stream(std::make_unique<std::istringstream>(std::move(text)), options, name);
}

util::Result<CsvReader> CsvReader::from_stream(std::unique_ptr<std::istream> in, const CsvOptions& options,
                                               const std::string& name) {
    CsvReader reader(std::move(in), options);
    TRY(reader.read_header(name));
    return reader;
}

std::optional<std::size_t> CsvReader::column(std::string_view name) const {
    const auto it = std::find(m_header.begin(), m_header.end(), name);
    if (it == m_header.end()) {
        return std::nullopt;
    }
    return static_cast<std::size_t>(it - m_header.begin());
}

util::Result<void> CsvReader::read_header(const std::string& name) {
    m_name = name;
    const char d = m_options.delimiter;
    if (d == '"' || d == '\r' || d == '\n' || d == '\0' || static_cast<unsigned char>(d) >= 0x80) {
        return util::fail(name +
                          ": the delimiter must be one ASCII character other than a quote "
                          "or a line break");
    }
    // The first bytes decide the encoding; they are kept as the first chunk unless a BOM.
    m_in->read(m_buf.data(), 3);
    m_end = static_cast<std::size_t>(m_in->gcount());
    const auto* b = reinterpret_cast<const unsigned char*>(m_buf.data());
    if (m_end == 3 && b[0] == 0xEF && b[1] == 0xBB && b[2] == 0xBF) {
        m_end = 0;
    } else if (m_end >= 2 && ((b[0] == 0xFF && b[1] == 0xFE) || (b[0] == 0xFE && b[1] == 0xFF))) {
        return util::fail(name + ":1: the file is UTF-16; save it as UTF-8");
    }

    Parsed parsed;
    const bool found = parse_record(m_header, k_max_columns, parsed);
    if (m_read_failed) {
        return util::fail(name + ": the file could not be read past line " + std::to_string(m_line));
    }
    if (!found) {
        return util::fail(name + ": the file is empty; it needs a header row naming its columns");
    }
    const std::string where = name + ":" + std::to_string(parsed.line) + ": ";
    if (parsed.count > k_max_columns) {
        return util::fail(where + "the header has more than " + std::to_string(k_max_columns) + " columns");
    }
    if (auto problem = describe(parsed, "the header", Labels::by_position); !problem.empty()) {
        return util::fail(where + problem);
    }
    std::unordered_map<std::string, std::size_t> seen;
    for (std::size_t i = 0; i < m_header.size(); ++i) {
        // Trimmed so that a hand-written "name, phone" header names "phone".
        m_header[i] = trim_spaces(m_header[i]);
        if (m_header[i].empty()) {
            return util::fail(where + "column " + std::to_string(i + 1) + " of the header has no name");
        }
        // A name is echoed in messages and matched against the campaign file: a line break
        // or an escape sequence in it is a broken file, not a column name.
        if (std::any_of(m_header[i].begin(), m_header[i].end(),
                        [](char c) { return static_cast<unsigned char>(c) < 0x20 || c == 0x7F; })) {
            return util::fail(where + "column " + std::to_string(i + 1) +
                              " of the header holds a control character (a line break inside quotes?)");
        }
        if (auto [it, fresh] = seen.emplace(m_header[i], i); !fresh) {
            return util::fail(where + "the header names column \"" + m_header[i] + "\" twice " + "(columns " +
                              std::to_string(it->second + 1) + " and " + std::to_string(i + 1) + ")");
        }
    }
    return {};
}

util::Result<bool> CsvReader::next(CsvRecord& out) {
    const std::size_t width = m_header.size();
    out.fields.resize(width);
    out.problem.clear();
    Parsed parsed;
    const bool found = parse_record(out.fields, width, parsed);
    if (m_read_failed) {
        // The error may have cut the record short: none of it is handed out.
        return util::fail(m_name + ": the file could not be read past line " + std::to_string(m_line));
    }
    if (!found) {
        return false;
    }
    for (std::size_t i = std::min(parsed.count, width); i < width; ++i) {
        out.fields[i].clear();
    }
    out.row = ++m_row;
    out.line = parsed.line;
    const std::string subject = "row " + std::to_string(out.row);
    if (!parsed.unterminated && parsed.count != width) {
        out.problem = subject + " has " + std::to_string(parsed.count) + " field" + (parsed.count == 1 ? "" : "s") +
                      ", the header has " + std::to_string(width);
    } else {
        out.problem = describe(parsed, subject, Labels::by_name);
    }
    return true;
}

std::string CsvReader::describe(const Parsed& parsed, std::string_view subject, Labels labels) const {
    const auto label = [&](std::size_t i) {
        if (labels == Labels::by_position || i >= m_header.size()) {
            return "column " + std::to_string(i + 1);
        }
        return "column \"" + m_header[i] + "\"";
    };
    std::string s(subject);
    if (parsed.unterminated) {
        return s + ": a quoted field opened on line " + std::to_string(parsed.quote_line) +
               " is never closed; nothing after it can be read";
    }
    if (parsed.too_long != k_none) {
        return s + ": " + label(parsed.too_long) + " is longer than " + std::to_string(m_options.max_field_bytes) +
               " bytes";
    }
    if (parsed.nul != k_none) {
        return s + ": " + label(parsed.nul) + " contains a NUL byte (is the file UTF-16?)";
    }
    if (parsed.bad_utf8 != k_none) {
        return s + ": " + label(parsed.bad_utf8) + " is not valid UTF-8 (save the file as UTF-8)";
    }
    if (parsed.after_quote != k_none) {
        return s + ": " + label(parsed.after_quote) + " has text after its closing quote";
    }
    return {};
}

}  // namespace campaign
