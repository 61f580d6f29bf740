#include "report/csv.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <algorithm>
#include <limits>
#include <optional>
#include <ostream>
#include <variant>

#include "campaign/pricing.hpp"
#include "report/carried_columns.hpp"
#include "report/open_log.hpp"
#include "report/spend.hpp"
#include "results/replay.hpp"
#include "util/text.hpp"
#include "util/time.hpp"

namespace report {

namespace {

constexpr std::size_t k_flush_at = 64 * 1024;
constexpr std::string_view k_in_flight_error =
    "request in flight when the run stopped: it may or may not have been delivered";

// The row an attempt or a result names; nothing for other records.
std::optional<std::int64_t> row_of(const results::Record& record) {
    if (const auto* a = std::get_if<results::AttemptRecord>(&record)) {
        return a->row;
    }
    if (const auto* r = std::get_if<results::ResultRecord>(&record)) {
        return r->row;
    }
    if (const auto* u = std::get_if<results::UnsentRecord>(&record)) {
        return u->row;  // the row is as before that attempt: see the replay
    }
    return std::nullopt;
}

// Whether a spreadsheet would read `field` as a formula (OWASP's "CSV injection"): a name from
// the CSV or an error text from the service could run as one when the report is opened.
bool formula_like(std::string_view field) {
    return !field.empty() && std::string_view("=+-@\t\r").find(field.front()) != std::string_view::npos;
}

void append_field(fmt::memory_buffer& out, std::string_view field) {
    const bool formula = formula_like(field);
    const bool quote = formula || field.find_first_of(",\"\r\n") != std::string_view::npos;
    if (!quote) {
        out.append(field);
        return;
    }
    out.push_back('"');
    if (formula) {
        out.push_back('\'');  // shown as text, as OWASP recommends
    }
    for (char c : field) {
        if (c == '"') {
            out.push_back('"');
        }
        out.push_back(c);
    }
    out.push_back('"');
}

// A text from the CSV or the service (a name, an error, an id) for a spreadsheet cell: line
// breaks kept, other control characters, escape sequences and bidirectional overrides escaped.
void append_text_field(fmt::memory_buffer& out, std::string_view text) {
    const bool plain =
        std::all_of(text.begin(), text.end(), [](char c) { return (c >= 0x20 && c < 0x7F) || c == '\n'; });
    append_field(out, plain ? text : std::string_view(util::printable(text, util::LineBreaks::keep)));
}

// Fills the cells a dry run's log adds (`content`): `text`, or `caption` and `source`, or
// `preview`; then `defaults`. Returns the next cell.
std::size_t fill_content(RowCells& cells, std::size_t at, CsvContent content, const results::ResultRecord* r) {
    if (content == CsvContent::none) {
        return at;
    }
    const results::MessageContent* m = r != nullptr && r->message ? &*r->message : nullptr;
    if (content == CsvContent::preview) {
        cells.set(at++, CellKind::text, m != nullptr ? results::readable_text(*m) : std::string());
    } else if (content == CsvContent::text) {
        cells.set(at++, CellKind::text, m != nullptr ? std::string_view(m->text) : std::string_view());
    } else {
        cells.set(at++, CellKind::text, m != nullptr && m->label ? std::string_view(*m->label) : std::string_view());
        cells.set(at++, CellKind::text, m != nullptr ? std::string_view(m->source) : std::string_view());
    }
    cells.set(at++, CellKind::text, r != nullptr ? fmt::format("{}", fmt::join(r->defaults, " ")) : std::string());
    return at;
}

std::string number_text(std::optional<std::int64_t> n) {
    return n ? fmt::format("{}", *n) : std::string();
}

// The columns of k_csv_header, then the content's, for each kind of final record.
std::size_t fill(RowCells& cells, const results::AttemptRecord& a, CsvContent content) {
    cells.set(0, CellKind::number, fmt::format("{}", a.row));
    cells.set(1, CellKind::plain, a.wa_id);
    cells.set(2, CellKind::text, "");
    cells.set(3, CellKind::plain, "unknown");
    cells.set(4, CellKind::number, fmt::format("{}", a.attempt));
    for (std::size_t i = 5; i < 9; ++i) {
        cells.set(i, CellKind::plain, "");
    }
    cells.set(9, CellKind::text, k_in_flight_error);
    cells.set(10, CellKind::plain, util::format_timestamp(a.at));
    cells.set(11, CellKind::decimal, "");
    return fill_content(cells, 12, content, nullptr);
}

std::size_t fill(RowCells& cells, const results::ResultRecord& r, CsvContent content) {
    cells.set(0, CellKind::number, fmt::format("{}", r.row));
    cells.set(1, CellKind::plain, r.wa_id);
    cells.set(2, CellKind::text, r.user_name);
    cells.set(3, CellKind::plain, results::to_string(r.status));
    cells.set(4, CellKind::number, fmt::format("{}", r.attempts));
    cells.set(5, CellKind::number, number_text(r.http_status));
    cells.set(6, CellKind::text, r.message_id.value_or(""));
    cells.set(7, CellKind::plain, r.cause != results::Cause::none ? results::to_string(r.cause) : std::string_view());
    cells.set(8, CellKind::number, number_text(r.error_code));
    cells.set(9, CellKind::text, r.error);
    cells.set(10, CellKind::plain, util::format_timestamp(r.at));
    const auto price = spent_price(r);
    cells.set(11, CellKind::decimal, price ? campaign::price_text(*price) : std::string());
    return fill_content(cells, 12, content, &r);
}

// A row whose latest request was answered without being acted on: a later run sends it.
std::size_t fill(RowCells& cells, const results::UnsentRecord& u, CsvContent content) {
    cells.set(0, CellKind::number, fmt::format("{}", u.row));
    cells.set(1, CellKind::plain, u.wa_id);
    cells.set(2, CellKind::text, "");
    cells.set(3, CellKind::plain, "unsent");
    cells.set(4, CellKind::number, fmt::format("{}", u.attempt));
    cells.set(5, CellKind::number, number_text(u.http_status));
    cells.set(6, CellKind::text, "");
    cells.set(7, CellKind::plain, "endpoint");
    cells.set(8, CellKind::number, "");
    cells.set(9, CellKind::text, u.error);
    cells.set(10, CellKind::plain, util::format_timestamp(u.at));
    cells.set(11, CellKind::decimal, "");
    return fill_content(cells, 12, content, nullptr);
}

void append_line(fmt::memory_buffer& out, const RowCells& cells) {
    for (std::size_t i = 0; i < cells.size(); ++i) {
        if (i > 0) {
            out.push_back(',');
        }
        if (cells.kind(i) == CellKind::text) {
            append_text_field(out, cells.text(i));
        } else {
            append_field(out, cells.text(i));
        }
    }
    out.push_back('\n');
}

bool flush(fmt::memory_buffer& buffer, std::ostream& out) {
    out.write(buffer.data(), static_cast<std::streamsize>(buffer.size()));
    buffer.clear();
    return static_cast<bool>(out);
}

}  // namespace

std::string csv_field(std::string_view field) {
    fmt::memory_buffer out;
    append_field(out, field);
    return fmt::to_string(out);
}

util::Result<CsvIndex> index_log(const std::string& path, const util::DiskArrayOptions& scratch) {
    CsvContent content = CsvContent::none;
    results::ReplayOptions options;
    options.observe = [&content](const results::Record& record) -> std::uint32_t {
        if (const auto* r = std::get_if<results::ResultRecord>(&record); r != nullptr && r->message) {
            if (r->message->image) {
                content = CsvContent::image;
            } else if (r->message->is_template()) {
                content = CsvContent::preview;
            }
        }
        return 0;
    };
    options.records = scratch;
    auto replayed = results::replay(path, options);
    if (!replayed) {
        return cannot_report(replayed.error());
    }
    if (replayed->records - 1 > std::numeric_limits<std::uint32_t>::max()) {
        return util::fail(fmt::format("{}: too many records for a CSV report (over {})", path,
                                      std::numeric_limits<std::uint32_t>::max()));
    }
    CsvIndex index;
    index.path = path;
    index.records = static_cast<std::uint32_t>(replayed->records - 1);
    index.rows = replayed->named_rows;
    index.warnings = shown_warnings(*replayed);
    index.warning_count = replayed->warning_count;
    index.content =
        content == CsvContent::none && replayed->header.mode == results::Mode::dry_run ? CsvContent::text : content;
    index.state = std::move(*replayed);
    return index;
}

std::vector<std::string> report_columns(const CsvIndex& index, const CarriedColumns* carried) {
    std::vector<std::string> out;
    std::string_view header = k_csv_header;
    for (std::size_t comma = header.find(','); !header.empty(); comma = header.find(',')) {
        out.emplace_back(header.substr(0, comma));
        header = comma == std::string_view::npos ? std::string_view() : header.substr(comma + 1);
    }
    switch (index.content) {
    case CsvContent::none: break;
    case CsvContent::text: out.insert(out.end(), {"text", "defaults"}); break;
    case CsvContent::image: out.insert(out.end(), {"caption", "source", "defaults"}); break;
    case CsvContent::preview: out.insert(out.end(), {"preview", "defaults"}); break;
    }
    if (carried != nullptr) {
        out.insert(out.end(), carried->names().begin(), carried->names().end());
    }
    return out;
}

util::Result<void> for_each_row(CsvIndex& index, const CarriedColumns* carried,
                                const std::function<util::Result<void>(const RowCells&)>& each) {
    TRY_ASSIGN(auto opened, open_log(index.path));
    results::Record record;
    RowCells cells;
    std::vector<std::string> values;
    std::uint32_t ordinal = 0;
    while (ordinal < index.records) {
        TRY_ASSIGN(const bool more, opened.reader.next(record));
        if (!more) {
            return util::fail(fmt::format("{}: the log shrank while it was being read", index.path));
        }
        ++ordinal;
        const auto row = row_of(record);
        if (!row || *row < 1 || *row > index.state.max_row()) {
            continue;
        }
        auto latest = index.state.record(*row);
        if (!latest) {
            return scratch_failed(index.path, latest.error());
        }
        if (latest->latest_record != ordinal) {
            continue;
        }
        const std::size_t filled = std::visit(
            [&](const auto& r) -> std::size_t {
                using R = std::decay_t<decltype(r)>;
                if constexpr (std::is_same_v<R, results::AttemptRecord> || std::is_same_v<R, results::ResultRecord> ||
                              std::is_same_v<R, results::UnsentRecord>) {
                    return fill(cells, r, index.content);
                } else {
                    return 0;
                }
            },
            record);
        if (filled == 0) {
            continue;
        }
        std::size_t at = filled;
        if (carried != nullptr) {
            TRY(carried->values(*row, values));
            for (const auto& v : values) {
                cells.set(at++, CellKind::text, v);
            }
        }
        cells.resize(at);
        TRY(each(cells));
    }
    return {};
}

util::Result<void> write_csv(CsvIndex& index, std::ostream& out, const CsvWriteOptions& options) {
    fmt::memory_buffer buffer;
    if (options.bom == Bom::yes) {
        buffer.append(std::string_view("\xEF\xBB\xBF"));  // UTF-8's byte-order mark: what Excel looks for
    }
    RowCells cells;
    for (const auto& name : report_columns(index, options.carried)) {
        cells.set(cells.size(), CellKind::text, name);
    }
    append_line(buffer, cells);
    TRY(for_each_row(index, options.carried, [&](const RowCells& row) -> util::Result<void> {
        append_line(buffer, row);
        if (buffer.size() >= k_flush_at && !flush(buffer, out)) {
            return util::fail("write error");
        }
        return {};
    }));
    if (!flush(buffer, out) || !out.flush()) {
        return util::fail("write error");
    }
    return {};
}

}  // namespace report
