#include "report/xlsx.hpp"

#include <fmt/format.h>
#include <xlsxwriter.h>
#include <charconv>
#include <initializer_list>
#include <memory>

#include "campaign/pricing.hpp"
#include "report/next_steps.hpp"
#include "util/text.hpp"
#include "util/time.hpp"
#include "util/utf8.hpp"

namespace report {

namespace {

// Excel holds at most 32,767 characters in a cell; bytes are at least as many.
constexpr std::size_t k_cell_bytes = 32'000;

struct CloseWorkbook {
    void operator()(lxw_workbook* workbook) const { workbook_close(workbook); }
};
using Workbook = std::unique_ptr<lxw_workbook, CloseWorkbook>;

// The workbook's sheets, its formats, and the first error any write met (the rest are skipped).
struct Sheets {
    lxw_workbook* book = nullptr;
    lxw_format* bold = nullptr;
    lxw_format* text = nullptr;  // "@": Excel's text format, kept when a person types in the cell
    lxw_error error = LXW_NO_ERROR;

    void keep(lxw_error e) {
        if (error == LXW_NO_ERROR) {
            error = e;
        }
    }
    void string(lxw_worksheet* sheet, lxw_row_t row, lxw_col_t col, std::string_view value, lxw_format* format) {
        if (value.empty()) {
            return;  // a blank cell
        }
        const std::string shown = util::clip_utf8(util::printable(value, util::LineBreaks::keep), k_cell_bytes);
        keep(worksheet_write_string(sheet, row, col, shown.c_str(), format));
    }
    void number(lxw_worksheet* sheet, lxw_row_t row, lxw_col_t col, std::int64_t value) {
        keep(worksheet_write_number(sheet, row, col, static_cast<double>(value), nullptr));
    }
};

// A number cell of for_each_row() as a number (an empty one blank; one that does not read as a
// whole number, from a hand-edited log, as text).
void write_number(Sheets& s, lxw_worksheet* sheet, lxw_row_t row, lxw_col_t col, const std::string& text) {
    if (text.empty()) {
        return;
    }
    std::int64_t n = 0;
    const char* end = text.data() + text.size();
    const auto [stop, ec] = std::from_chars(text.data(), end, n);
    if (ec == std::errc() && stop == end && text.size() < 16) {  // exact in a double
        s.number(sheet, row, col, n);
        return;
    }
    s.string(sheet, row, col, text, s.text);
}

// A decimal cell of for_each_row() (a price) as a number; an empty one blank.
void write_decimal(Sheets& s, lxw_worksheet* sheet, lxw_row_t row, lxw_col_t col, const std::string& text) {
    double value = 0;
    const char* end = text.data() + text.size();
    const auto [stop, ec] = std::from_chars(text.data(), end, value);
    if (text.empty() || ec != std::errc() || stop != end) {
        return;  // for_each_row() writes only numbers here
    }
    s.keep(worksheet_write_number(sheet, row, col, value, nullptr));
}

util::Result<void> add_recipients(Sheets& s, CsvIndex& index, const CarriedColumns* carried) {
    lxw_worksheet* sheet = workbook_add_worksheet(s.book, "Recipients");
    const auto columns = report_columns(index, carried);
    for (std::size_t c = 0; c < columns.size(); ++c) {
        s.string(sheet, 0, static_cast<lxw_col_t>(c), columns[c], s.bold);
    }
    lxw_row_t row = 0;
    TRY(for_each_row(index, carried, [&](const RowCells& cells) -> util::Result<void> {
        ++row;
        for (std::size_t c = 0; c < cells.size(); ++c) {
            const auto col = static_cast<lxw_col_t>(c);
            if (cells.kind(c) == CellKind::number) {
                write_number(s, sheet, row, col, cells.text(c));
            } else if (cells.kind(c) == CellKind::decimal) {
                write_decimal(s, sheet, row, col, cells.text(c));
            } else {
                s.string(sheet, row, col, cells.text(c), s.text);
            }
        }
        return {};
    }));
    s.keep(worksheet_set_column(sheet, 0, static_cast<lxw_col_t>(columns.size() - 1), 16, nullptr));
    worksheet_freeze_panes(sheet, 1, 0);
    s.keep(worksheet_autofilter(sheet, 0, 0, row, static_cast<lxw_col_t>(columns.size() - 1)));
    return {};
}

// The summary sheet, a section after another, each a bold title and its rows.
class SummarySheet {
public:
    explicit SummarySheet(Sheets& s) : m_s(s), m_sheet(workbook_add_worksheet(s.book, "Summary")) {
        m_s.keep(worksheet_set_column(m_sheet, 0, 0, 22, nullptr));
        m_s.keep(worksheet_set_column(m_sheet, 1, 5, 16, nullptr));
    }

    void title(std::string_view text) {
        if (m_row > 0) {
            ++m_row;
        }
        m_s.string(m_sheet, m_row++, 0, text, m_s.bold);
    }
    void pair(std::string_view label, std::string_view value) {
        m_s.string(m_sheet, m_row, 0, label, nullptr);
        m_s.string(m_sheet, m_row++, 1, value, m_s.text);
    }
    void count(std::string_view label, std::int64_t value) {
        m_s.string(m_sheet, m_row, 0, label, nullptr);
        m_s.number(m_sheet, m_row++, 1, value);
    }
    // One part of the spend: its key (a category, a country), messages and amount.
    void spend_part(const SpendPart& part) {
        m_s.string(m_sheet, m_row, 0, part.key, m_s.text);
        m_s.number(m_sheet, m_row, 1, part.messages);
        m_s.keep(worksheet_write_number(m_sheet, m_row++, 2, campaign::rounded_amount(part.amount), nullptr));
    }
    void heading(std::initializer_list<std::string_view> cells) {
        lxw_col_t col = 0;
        for (const auto cell : cells) {
            m_s.string(m_sheet, m_row, col++, cell, m_s.bold);
        }
        ++m_row;
    }
    void error_group(const ErrorGroup& g) {
        m_s.number(m_sheet, m_row, 0, g.count);
        m_s.string(m_sheet, m_row, 1, results::to_string(g.status), nullptr);
        m_s.string(m_sheet, m_row, 2, g.cause == results::Cause::none ? "-" : results::to_string(g.cause), nullptr);
        if (g.others) {
            m_s.string(m_sheet, m_row, 3, "others", nullptr);
        } else if (g.http_status) {
            m_s.number(m_sheet, m_row, 3, *g.http_status);
        }
        if (g.error_code) {
            m_s.number(m_sheet, m_row, 4, *g.error_code);
        }
        m_s.string(m_sheet, m_row++, 5, g.sample, m_s.text);
    }

private:
    Sheets& m_s;
    lxw_worksheet* m_sheet;
    lxw_row_t m_row = 0;
};

// The sent rows' spend, when any sent template row was logged.
void add_spend(SummarySheet& sheet, const Spend& spend) {
    if (spend.messages == 0 && spend.without_price == 0) {
        return;
    }
    sheet.title("Spend (each sent message at its price when it was sent)");
    sheet.pair("currency", spend.currency);
    sheet.spend_part({"total", spend.messages, spend.total});
    if (spend.without_price > 0) {
        sheet.count("sent without a price", spend.without_price);
    }
    sheet.heading({"category", "messages", "amount"});
    for (const auto& part : spend.by_category) {
        sheet.spend_part(part);
    }
    sheet.heading({"country", "messages", "amount"});
    for (const auto& part : spend.by_country) {
        sheet.spend_part(part);
    }
}

void add_summary(Sheets& s, const Summary& summary) {
    SummarySheet sheet(s);
    sheet.title("Campaign");
    sheet.pair("name", summary.header.name);
    sheet.pair("mode", results::to_string(summary.header.mode));
    sheet.pair("log", summary.log_path);
    sheet.pair("recipient list", summary.latest_header.recipients_file);
    sheet.pair("started (UTC)", util::format_timestamp(summary.header.started_at));
    sheet.pair("last run", summary.ended && summary.last_end ? summary.last_end->reason
                                                             : "no end record: still going, or stopped abruptly");
    sheet.title("Recipients by status");
    sheet.count("in the log", summary.rows);
    for (const results::Status status : results::k_all_statuses) {
        if (summary.counts[status] > 0) {
            sheet.count(results::to_string(status), summary.counts[status]);
        }
    }
    if (const auto left = not_yet_attempted(summary); left > 0) {
        sheet.count("not yet attempted", left);
    }
    if (!summary.errors.empty()) {
        sheet.title("Not sent, by cause");
        sheet.heading({"rows", "status", "cause", "HTTP status", "Meta code", "first error"});
        for (const auto& g : summary.errors) {
            sheet.error_group(g);
        }
    }
    sheet.title("Requests");
    sheet.count("requests", summary.attempts);
    sheet.count("rate limited", summary.rate_limited);
    sheet.count("retried", summary.retried);
    for (const auto& k : summary.retried_by_kind) {
        sheet.count(fmt::format("retried: {}", k.kind), k.count);
    }
    add_spend(sheet, summary.spend);
    if (!summary.next_steps.empty()) {
        sheet.title("Next step");
        for (const auto& step : summary.next_steps) {
            sheet.pair(step.what, step.command);
        }
    }
}

}  // namespace

util::Result<void> write_xlsx(CsvIndex& index, const Summary& summary, const CarriedColumns* carried,
                              const std::string& path, const std::string& temp_dir) {
    if (index.rows >= k_xlsx_max_rows) {
        return util::fail(fmt::format("{}: {} rows do not fit in a spreadsheet (at most {} a sheet); use --format csv",
                                      index.path, index.rows, k_xlsx_max_rows - 1));
    }
    // Rows are written in order and each is freed once the next starts: memory stays flat.
    std::string tmpdir = temp_dir;
    lxw_workbook_options options{};
    options.constant_memory = LXW_TRUE;
    options.tmpdir = tmpdir.empty() ? nullptr : tmpdir.data();
    options.use_zip64 = LXW_TRUE;
    Workbook book(workbook_new_opt(path.c_str(), &options));
    if (!book) {
        return util::fail(fmt::format("{}: cannot create the workbook", path));
    }
    Sheets sheets;
    sheets.book = book.get();
    sheets.bold = workbook_add_format(book.get());
    format_set_bold(sheets.bold);
    sheets.text = workbook_add_format(book.get());
    format_set_num_format(sheets.text, "@");
    TRY(add_recipients(sheets, index, carried));
    add_summary(sheets, summary);
    if (sheets.error != LXW_NO_ERROR) {
        return util::fail(fmt::format("{}: {}", path, lxw_strerror(sheets.error)));
    }
    const lxw_error closed = workbook_close(book.release());
    if (closed != LXW_NO_ERROR) {
        return util::fail(fmt::format("{}: {}", path, lxw_strerror(closed)));
    }
    return {};
}

}  // namespace report
