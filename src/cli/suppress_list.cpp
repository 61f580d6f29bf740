#include "cli/suppress_list.hpp"

#include <fmt/format.h>
#include <algorithm>
#include <array>
#include <cerrno>
#include <cstring>
#include <nlohmann/json.hpp>

#include "account/ledger.hpp"
#include "cli/output.hpp"
#include "runner/account_book.hpp"
#include "util/text.hpp"
#include "util/time.hpp"

namespace cli {

namespace {

// Output is written in pieces of about this size.
constexpr std::size_t k_chunk = 1 << 16;

// The number of characters in `text` (valid UTF-8, as printable() returns): its bytes that do
// not continue a character.
std::size_t characters(std::string_view text) {
    std::size_t n = 0;
    for (const char c : text) {
        n += (static_cast<unsigned char>(c) & 0xC0) != 0x80 ? 1 : 0;
    }
    return n;
}

std::string cell(std::string_view text) {
    return util::printable(text, util::LineBreaks::space);
}

std::string padded(const std::string& text, std::size_t width) {
    const std::size_t n = characters(text);
    return text + std::string(width > n ? width - n : 0, ' ') + "  ";
}

std::string row(const std::array<std::string, 4>& cells, const ListWidths& widths) {
    return padded(cells[0], widths.number) + padded(cells[1], widths.reason) +
           padded(cells[2], util::k_timestamp_length) + cells[3] + "\n";
}

// Collects lines and writes them to stdout a chunk at a time; after a failed write it drops
// the rest, and failed() says so.
class ChunkedOut {
public:
    explicit ChunkedOut(const Output& out) : m_out(out) {}

    void add(const std::string& line) {
        m_text += line;
        if (m_text.size() >= k_chunk) {
            flush();
        }
    }
    void flush() {
        if (!m_failed && !m_text.empty() && !print_out(m_out.redactor(), m_text)) {
            m_failed = true;
            m_errno = errno;
        }
        m_text.clear();
    }
    bool failed() const { return m_failed; }
    // Why the write failed (an errno value).
    int error() const { return m_errno; }

private:
    const Output& m_out;
    std::string m_text;
    bool m_failed = false;
    int m_errno = 0;
};

int report_failure(const util::Error& error, Output& out) {
    out.error(error.message, k_exit_bad_input);
    return k_exit_bad_input;
}

}  // namespace

ListWidths widen(ListWidths widths, const account::Suppression& entry) {
    widths.number = std::max(widths.number, 1 + characters(cell(entry.wa_id)));
    widths.reason = std::max(widths.reason, characters(cell(entry.reason)));
    return widths;
}

std::string table_heading(const ListWidths& widths) {
    return row({"NUMBER", "REASON", "SINCE", "SOURCE"}, widths);
}

std::string table_row(const account::Suppression& entry, const ListWidths& widths) {
    return row({"+" + cell(entry.wa_id), cell(entry.reason), util::format_timestamp(entry.since), cell(entry.source)},
               widths);
}

std::string json_row(const account::Suppression& entry) {
    const nlohmann::ordered_json line = {{"wa_id", entry.wa_id},
                                         {"reason", entry.reason},
                                         {"since", util::format_timestamp(entry.since)},
                                         {"source", entry.source}};
    return util::json_safe(line.dump(-1, ' ', false, nlohmann::ordered_json::error_handler_t::replace)) + "\n";
}

int list_suppressions(const ListTarget& target, ListFormat format, Output& out) {
    auto ledger = account::open_ledger(
        target.ledger, {.account = target.account, .access = account::Access::read_only, .password = target.password});
    if (!ledger) {
        return report_failure(ledger.error(), out);
    }
    // An empty list of an account the ledger never saw is more likely a misspelt name.
    auto stranger = runner::unknown_account_warning(**ledger, target.account, target.ledger);
    if (!stranger) {
        return report_failure(stranger.error(), out);
    }
    if (!stranger->empty()) {
        out.warning(*stranger);
    }
    ListWidths widths;
    std::size_t entries = 0;
    if (format == ListFormat::table) {
        auto measured = (*ledger)->list_suppressed([&](const account::Suppression& entry) {
            widths = widen(widths, entry);
            ++entries;
        });
        if (!measured) {
            return report_failure(measured.error(), out);
        }
    }
    ChunkedOut printed(out);
    if (entries > 0) {
        printed.add(table_heading(widths));
    }
    auto listed = (*ledger)->list_suppressed([&](const account::Suppression& entry) {
        printed.add(format == ListFormat::json ? json_row(entry) : table_row(entry, widths));
    });
    if (!listed) {
        return report_failure(listed.error(), out);
    }
    printed.flush();
    if (printed.failed()) {
        out.error(fmt::format("cannot write standard output: {}", std::strerror(printed.error())), k_exit_bad_input);
        return k_exit_bad_input;
    }
    return k_exit_done;
}

}  // namespace cli
