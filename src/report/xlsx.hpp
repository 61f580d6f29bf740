#pragma once
// `report --format xlsx`: the per-recipient report as an Excel workbook (libxlsxwriter), for a
// person with a spreadsheet: ids as text, a frozen header with a filter, and the summary on a
// second sheet.

#include <string>

#include "report/csv.hpp"
#include "report/summary.hpp"
#include "util/result.hpp"

namespace report {

class CarriedColumns;

// Excel's rows per sheet, the header's included.
inline constexpr std::int64_t k_xlsx_max_rows = 1'048'576;

// Writes the workbook at `path` (a new file; what was there is replaced): the sheet "Recipients"
// with the header and one row per row of `index` (for_each_row(), with the columns `carried`
// adds; may be null): the row, attempts, HTTP status, Meta's code and the price as numbers, every
// other cell as text (a wa_id or a message id is never turned into a number), texts made printable
// and clipped to Excel's 32,767 characters; and the sheet "Summary" with `summary`'s figures (the
// campaign, the counts by status, the rows not sent by cause, the retried requests, the spend). Its
// temporary files go to `temp_dir` (empty: the system's). Fails when the log has more rows than a
// sheet holds (naming --format csv), as for_each_row() does, or when the workbook cannot be
// written (libxlsxwriter's reason).
util::Result<void> write_xlsx(CsvIndex& index, const Summary& summary, const CarriedColumns* carried,
                              const std::string& path, const std::string& temp_dir = {});

}  // namespace report
