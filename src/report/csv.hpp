#pragma once
// `report --format csv`: one line per recipient with its final state, in flat memory.
// Two passes over the log: index_log() is the replay (results::replay), which knows each row's
// latest record (results::RowRecord::latest_record, in its temporary file), for_each_row()
// streams the log again and turns those records into cells, in log order; write_csv() writes
// them as CSV (and write_xlsx(), xlsx.hpp, as a workbook).

#include <cstdint>
#include <functional>
#include <iosfwd>
#include <string>
#include <string_view>
#include <vector>

#include "report/summary.hpp"
#include "results/replay.hpp"
#include "util/disk_array.hpp"
#include "util/result.hpp"

namespace report {

// The CSV's header line (without its '\n').
inline constexpr std::string_view k_csv_header =
    "row,wa_id,user_name,status,attempts,http_status,message_id,cause,error_code,error,at,price";

// The rendered content a dry run's log adds to each line: `text`, or `caption` and `source`,
// then `defaults` (the placeholders that took their default, separated by spaces).
enum class CsvContent { none, text, image, preview };

// What the first pass found.
struct CsvIndex {
    std::string path;
    results::LogState state;            // the replay: each row's latest record
    std::uint32_t records = 0;          // records after the header that pass 1 read
    std::int64_t rows = 0;              // rows the log names: lines pass 2 writes
    std::vector<std::string> warnings;  // the first ~100, "PATH:LINE: …"
    std::int64_t warning_count = 0;
    CsvContent content = CsvContent::none;  // a dry run's log: text, image when it has images, preview when templates
};

// Reads the log at `path` once and returns, per row, which record is final. Fails, naming
// `path`, when it cannot be opened or read or its first line is not a `campaign` record, or
// when the per-row index cannot be kept in its temporary file (made per `scratch`).
util::Result<CsvIndex> index_log(const std::string& path, const util::DiskArrayOptions& scratch = {});

class CarriedColumns;

// How a cell's text is to be held: a whole number (or empty), a decimal number (or empty: a
// price), one of wacamp's own words (a status, a cause, a timestamp; the wa_id), or a text from
// the CSV or the service (made printable, and a string even when it reads as a number).
enum class CellKind { number, decimal, plain, text };

// One row of the per-recipient report, its buffers reused from row to row.
class RowCells {
public:
    // Sets cell `i` (the row grows to hold it).
    void set(std::size_t i, CellKind kind, std::string_view text) {
        if (i >= m_size) {
            resize(i + 1);
        }
        m_kinds[i] = kind;
        m_texts[i].assign(text);
    }
    // Keeps the first `n` cells.
    void resize(std::size_t n) {
        if (n > m_texts.size()) {
            m_texts.resize(n);
            m_kinds.resize(n, CellKind::plain);
        }
        m_size = n;
    }
    std::size_t size() const { return m_size; }
    CellKind kind(std::size_t i) const { return m_kinds[i]; }
    const std::string& text(std::size_t i) const { return m_texts[i]; }

private:
    std::vector<std::string> m_texts;
    std::vector<CellKind> m_kinds;
    std::size_t m_size = 0;
};

// Returns the report's column names: k_csv_header's, those of `index.content`, then the
// columns `carried` (may be null) carries.
std::vector<std::string> report_columns(const CsvIndex& index, const CarriedColumns* carried);

// Reads the log of `index` again and calls `each` with the cells of each row's final record
// (report_columns() in order: the carried values last), in log order, stopping at its first
// failure. Records appended since index_log() are not read. Fails when the log cannot be read,
// has shrunk since, the index or `carried` cannot be read back from its temporary file, or as
// `each` does.
util::Result<void> for_each_row(CsvIndex& index, const CarriedColumns* carried,
                                const std::function<util::Result<void>(const RowCells&)>& each);

// Whether a CSV starts with UTF-8's byte-order mark (which Excel needs to read UTF-8).
enum class Bom { no, yes };

struct CsvWriteOptions {
    Bom bom = Bom::no;
    const CarriedColumns* carried = nullptr;  // the recipient list's columns to add at the end
};

// Writes the header and one line per row (for_each_row()) to `out` (fields quoted per RFC 4180,
// formulas guarded as csv_field() says, texts made printable, lines end in '\n'), after a
// byte-order mark with `options.bom`. Fails as for_each_row(), or when `out` fails.
util::Result<void> write_csv(CsvIndex& index, std::ostream& out, const CsvWriteOptions& options = {});

// Returns `field` as one RFC 4180 CSV field: quoted, with '"' doubled, when it holds a
// comma, a quote or a line break; unchanged otherwise. A field that starts with '=', '+',
// '-', '@', a tab or a carriage return gets a leading "'" and quotes, so that a spreadsheet
// shows it as text instead of running it as a formula (OWASP's advice on CSV injection).
std::string csv_field(std::string_view field);

}  // namespace report
