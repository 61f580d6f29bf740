#include "runner/row_tally.hpp"

namespace runner {

template <typename Change>
void RowTally::fold(std::int64_t row, Change change) {
    results::RowFold& fold = m_live[row];  // a row never dispatched is taken as pending
    fold.state.count(m_counts, m_causes, -1);
    change(fold);
    fold.state.count(m_counts, m_causes, +1);
}

void RowTally::record(std::int64_t row, const results::RowState& before, results::Status status, results::Cause cause) {
    m_live[row] = results::RowFold{before};
    fold(row, [&](results::RowFold& f) { f.result(status, cause, 0); });
    m_live.erase(row);
    if (m_watch != nullptr) {
        m_watch->recorded(status, cause);
    }
}

void RowTally::attempt(std::int64_t row, const results::RowState& before) {
    m_live.try_emplace(row, results::RowFold{before});
    fold(row, [](results::RowFold& f) { f.attempt(0); });
}

void RowTally::unsent(std::int64_t row) {
    fold(row, [](results::RowFold& f) { f.unsent(); });
}

void RowTally::result(std::int64_t row, results::Status status, results::Cause cause, Retry retry) {
    fold(row, [&](results::RowFold& f) { f.result(status, cause, 0); });
    if (retry == Retry::none) {
        m_live.erase(row);
        if (m_watch != nullptr) {
            m_watch->recorded(status, cause);
        }
    }
}

}  // namespace runner
