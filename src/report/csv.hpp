#pragma once
// `report --format csv`: one line per recipient with its final state, in flat memory.
// Two passes over the log: index_log() is the replay (results::replay), which knows each row's
// latest record (results::RowRecord::latest_record, in its temporary file), write_csv()
// streams the log again and writes those records, in log order.

#include <cstdint>
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
    "row,wa_id,user_name,status,attempts,http_status,message_id,cause,error_code,error,at";

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

// Reads the log of `index` again and writes the header and one line per row to `out`
// (with the columns of `index.content`)
// (fields quoted per RFC 4180, lines end in '\n'). Records appended since index_log() are
// not read. Fails when the log cannot be read, has shrunk since, the index cannot be read back
// from its temporary file, or `out` fails.
util::Result<void> write_csv(CsvIndex& index, std::ostream& out);

// Returns `field` as one RFC 4180 CSV field: quoted, with '"' doubled, when it holds a
// comma, a quote or a line break; unchanged otherwise. A field that starts with '=', '+',
// '-', '@', a tab or a carriage return gets a leading "'" and quotes, so that a spreadsheet
// shows it as text instead of running it as a formula (OWASP's advice on CSV injection).
std::string csv_field(std::string_view field);

}  // namespace report
