// The byte-level half of CsvReader: chunked input, line counting and the RFC 4180 state
// machine. Runs of plain bytes are appended in one go, so a field costs one append per chunk.

#include <istream>

#include "campaign/csv_reader.hpp"
#include "util/utf8.hpp"

namespace campaign {

namespace {

enum class TextCheck { ok, nul, bad_utf8 };

// Says whether `text` holds a NUL or bytes that are not UTF-8, whichever comes first.
TextCheck check_text(std::string_view text) {
    const std::size_t bad = util::find_invalid_utf8(text);
    const std::size_t nul = text.substr(0, bad).find('\0');
    if (nul != std::string_view::npos) {
        return TextCheck::nul;
    }
    return bad == std::string_view::npos ? TextCheck::ok : TextCheck::bad_utf8;
}

}  // namespace

bool CsvReader::fill() {
    if (m_finished) {
        return false;
    }
    m_after_cr = m_end > 0 && m_buf[m_end - 1] == '\r';
    m_in->read(m_buf.data(), static_cast<std::streamsize>(m_options.chunk_size));
    m_pos = 0;
    m_end = static_cast<std::size_t>(m_in->gcount());
    if (m_end == 0) {
        m_read_failed = m_in->bad();
        m_finished = true;
        return false;
    }
    return true;
}

bool CsvReader::skip_blank_lines() {
    for (;;) {
        if (m_pos == m_end && !fill()) {
            return false;
        }
        const char c = m_buf[m_pos];
        if (c == '\r') {
            ++m_line;
        } else if (c == '\n') {
            // The '\n' of a CRLF was counted with its '\r'.
            if (!(m_pos > 0 ? m_buf[m_pos - 1] == '\r' : m_after_cr)) {
                ++m_line;
            }
        } else {
            return true;
        }
        ++m_pos;
    }
}

void CsvReader::append(Parsed& parsed, const char* data, std::size_t size) const {
    if (parsed.current == nullptr || size == 0) {
        return;
    }
    const std::size_t room = m_options.max_field_bytes - parsed.current->size();
    if (size > room) {
        // Keep the cap, not the bytes: memory stays bounded on a runaway field.
        size = room;
        if (parsed.too_long == k_none) {
            parsed.too_long = parsed.count;
        }
    }
    parsed.current->append(data, size);
}

void CsvReader::start_field(Parsed& parsed) {
    std::vector<std::string>& fields = *parsed.fields;
    if (parsed.count >= parsed.keep) {
        parsed.current = nullptr;  // an extra field of a ragged row: counted, not kept
        return;
    }
    if (parsed.count >= fields.size()) {
        fields.emplace_back();
    }
    parsed.current = &fields[parsed.count];
    parsed.current->clear();
}

void CsvReader::end_field(Parsed& parsed) const {
    if (parsed.current != nullptr) {
        switch (check_text(*parsed.current)) {
        case TextCheck::ok: break;
        case TextCheck::nul: parsed.nul = parsed.nul == k_none ? parsed.count : parsed.nul; break;
        case TextCheck::bad_utf8: parsed.bad_utf8 = parsed.bad_utf8 == k_none ? parsed.count : parsed.bad_utf8; break;
        }
    }
    ++parsed.count;
}

bool CsvReader::parse_record(std::vector<std::string>& fields, std::size_t keep, Parsed& parsed) {
    parsed = Parsed{};
    if (!skip_blank_lines()) {
        return false;
    }
    parsed.line = m_line;
    parsed.fields = &fields;
    parsed.keep = keep;
    start_field(parsed);
    for (;;) {
        if (m_pos == m_end && !fill()) {
            parsed.unterminated = parsed.state == ScanState::quoted;
            end_field(parsed);
            return true;
        }
        if (scan(parsed)) {
            return true;
        }
    }
}

bool CsvReader::scan(Parsed& parsed) {
    switch (parsed.state) {
    case ScanState::field_start:
        if (m_buf[m_pos] == '"') {
            ++m_pos;
            parsed.quote_line = m_line;
            parsed.state = ScanState::quoted;
            return false;
        }
        parsed.state = ScanState::unquoted;
        return scan_unquoted(parsed);
    case ScanState::unquoted: return scan_unquoted(parsed);
    case ScanState::quoted: scan_quoted(parsed); return false;
    case ScanState::quote_in_quoted: return scan_after_quote(parsed);
    }
    return false;
}

bool CsvReader::scan_unquoted(Parsed& parsed) {
    // A quote inside an unquoted field is kept as text (5'11" is common).
    const char* b = m_buf.data();
    const char delimiter = m_options.delimiter;
    std::size_t i = m_pos;
    while (i < m_end && b[i] != delimiter && b[i] != '\n' && b[i] != '\r') {
        ++i;
    }
    append(parsed, b + m_pos, i - m_pos);
    m_pos = i;
    if (i == m_end) {
        return false;
    }
    ++m_pos;
    end_field(parsed);
    if (b[i] == delimiter) {
        start_field(parsed);
        parsed.state = ScanState::field_start;
        return false;
    }
    ++m_line;
    return true;
}

void CsvReader::scan_quoted(Parsed& parsed) {
    const char* b = m_buf.data();
    std::size_t i = m_pos;
    for (; i < m_end && b[i] != '"'; ++i) {
        if (b[i] == '\r' || (b[i] == '\n' && !(i > 0 ? b[i - 1] == '\r' : m_after_cr))) {
            ++m_line;
        }
    }
    append(parsed, b + m_pos, i - m_pos);
    m_pos = i;
    if (i < m_end) {
        ++m_pos;
        parsed.state = ScanState::quote_in_quoted;
    }
}

bool CsvReader::scan_after_quote(Parsed& parsed) {
    const char c = m_buf[m_pos];
    if (c == '"') {
        append(parsed, "\"", 1);  // a doubled quote stands for one
        ++m_pos;
        parsed.state = ScanState::quoted;
    } else if (c == m_options.delimiter) {
        ++m_pos;
        end_field(parsed);
        start_field(parsed);
        parsed.state = ScanState::field_start;
    } else if (c == '\n' || c == '\r') {
        ++m_pos;
        ++m_line;
        end_field(parsed);
        return true;
    } else {
        if (parsed.after_quote == k_none) {
            parsed.after_quote = parsed.count;
        }
        parsed.state = ScanState::unquoted;
    }
    return false;
}

}  // namespace campaign
