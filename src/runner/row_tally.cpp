#include "runner/row_tally.hpp"

namespace runner {

void RowTally::record(std::int64_t row, const results::RowState& before, results::Status status) {
    if (!before.pending()) {
        --m_counts[before.status];
    }
    ++m_counts[status];
    m_live.erase(row);
}

void RowTally::dispatch(std::int64_t row, const results::RowState& before) {
    m_live[row] = Live{!before.pending(), before.status};
}

void RowTally::attempt(std::int64_t row) {
    move(row, results::Status::unknown);
}

void RowTally::result(std::int64_t row, results::Status status, bool final) {
    move(row, status);
    if (final) {
        m_live.erase(row);
    }
}

void RowTally::move(std::int64_t row, results::Status to) {
    Live& live = m_live[row];  // a row never dispatched is taken as pending
    if (live.counted) {
        --m_counts[live.status];
    }
    ++m_counts[to];
    live = Live{true, to};
}

}  // namespace runner
