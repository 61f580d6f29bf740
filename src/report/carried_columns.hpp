#pragma once
// The recipient list's own columns that a per-recipient report carries (`report --columns`):
// read once from the list the log names, after checking that it is the very list the log's rows
// are of (its SHA-256), kept in a temporary file and looked up by row, so that memory does not
// grow with the list.

#include <cstdint>
#include <string>
#include <vector>

#include "util/disk_array.hpp"
#include "util/redact.hpp"
#include "util/result.hpp"
#include "util/temp_file.hpp"

namespace report {

struct CarriedOptions {
    std::vector<std::string> names;  // the columns, in the order asked
    char delimiter = ',';            // the campaign's recipients.delimiter
    util::Redactor secrets;          // the campaign's secrets, masked in every value
    std::string temp_dir;            // empty: the system's (TMPDIR or /tmp)
};

class CarriedColumns {
public:
    // Reads the columns `options.names` of the recipient list at `file`, whose SHA-256 must be
    // `sha256` (the log's latest `campaign` record's): another list would put one person's data
    // on another's row. Fails, naming `file`, when `sha256` is empty (the log does not say which
    // list it read), when the file cannot be read, when its SHA-256 is not `sha256` before or
    // after the reading, when a name is not a column of its header (naming those it has) or is
    // asked twice, or when the temporary file fails.
    static util::Result<CarriedColumns> read(const std::string& file, const std::string& sha256,
                                             const CarriedOptions& options);

    CarriedColumns() = default;

    const std::vector<std::string>& names() const { return m_names; }

    // Sets `values` to row `row`'s values (one per name), secrets masked; empty strings for a
    // row the list does not have. Fails when the temporary file cannot be read back.
    util::Result<void> values(std::int64_t row, std::vector<std::string>& values) const;

private:
    // Where a row's values are in m_bytes: each a 4-byte length and its bytes.
    struct Span {
        std::uint64_t offset = 0;
        std::uint32_t bytes = 0;
        std::uint32_t present = 0;  // 0: the list has no such row
    };

    std::vector<std::string> m_names;
    util::TempFile m_bytes;
    mutable util::DiskArray<Span> m_rows;  // by row - 1; reads move its cache
};

}  // namespace report
