#pragma once
// Which rows repeat the wa_id of an earlier row. Every usable row's (wa_id, row) is collected
// in a pass before sending and sorted externally (util::ExternalSorter), so memory stays the
// same for ten thousand rows or ten million; the answer is then read back in row order.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>

#include "util/external_sort.hpp"
#include "util/result.hpp"

namespace campaign {

// The duplicate rows, asked for in increasing row order.
class DuplicateRows {
public:
    DuplicateRows() = default;
    explicit DuplicateRows(util::SortedPairs pairs) : m_pairs(std::move(pairs)), m_has_pairs(true) {}

    // Returns the first row that had the same wa_id when `row` is a repeat; otherwise nothing.
    // `row` must not be smaller than in the previous call. Fails when the index cannot be read
    // back; it is not asked again then.
    util::Result<std::optional<long long>> first_row_of(long long row);

private:
    util::SortedPairs m_pairs;  // (repeat row, first row), by repeat row
    bool m_has_pairs = false;
    bool m_loaded = false;
    bool m_done = false;
    util::SortPair m_current;
};

// How the finder sorts: every usable row's number, and the repeats found.
struct DuplicateOptions {
    util::ExternalSortOptions numbers;
    util::ExternalSortOptions repeats;
};

class DuplicateFinder {
public:
    explicit DuplicateFinder(util::ExternalSortOptions options = {});
    explicit DuplicateFinder(DuplicateOptions options);

    // Notes that `row` (rows added in increasing order) has `wa_id`. Fails when the temporary
    // file cannot be written.
    util::Result<void> add(std::string_view wa_id, long long row);

    // Returns the repeats of everything added. The finder is spent afterwards.
    util::Result<DuplicateRows> finish();

private:
    util::ExternalSorter m_by_number;  // (number code, row)
    util::ExternalSorter m_repeats;    // (repeat row, first row)
    // wa_ids that do not fit a number code (never from the phone normaliser): first rows.
    std::unordered_map<std::string, long long> m_other;
};

}  // namespace campaign
