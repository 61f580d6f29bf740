#include "runner/row_tally.hpp"

namespace runner {

namespace {

// What a row in `state` counts as (replay counts no cause for a row in flight).
results::Cause counted_cause(const results::RowState& state) {
    return state.in_flight() ? results::Cause::none : state.cause;
}

}  // namespace

void RowTally::record(std::int64_t row, const results::RowState& before, results::Status status, results::Cause cause) {
    if (!before.pending()) {
        add({before.status, counted_cause(before)}, -1);
    }
    add({status, cause}, +1);
    m_live.erase(row);
    if (m_watch != nullptr) {
        m_watch->recorded(status, cause);
    }
}

void RowTally::dispatch(std::int64_t row, const results::RowState& before) {
    Live& live = m_live[row];
    live.counted = !before.pending();
    live.as = {before.status, counted_cause(before)};
}

void RowTally::attempt(std::int64_t row) {
    Live& live = m_live[row];
    live.counted_before_attempt = live.counted;
    live.before_attempt = live.as;
    move(row, {results::Status::unknown, results::Cause::none});
}

void RowTally::unsent(std::int64_t row) {
    Live& live = m_live[row];
    if (live.counted) {
        add(live.as, -1);
    }
    if (live.counted_before_attempt) {
        add(live.before_attempt, +1);
    }
    live.counted = live.counted_before_attempt;
    live.as = live.before_attempt;
}

void RowTally::result(std::int64_t row, results::Status status, results::Cause cause, bool final) {
    move(row, {status, cause});
    if (final) {
        m_live.erase(row);
        if (m_watch != nullptr) {
            m_watch->recorded(status, cause);
        }
    }
}

void RowTally::add(const Counted& c, int sign) {
    m_counts[c.status] += sign;
    if (results::counts_cause(c.status)) {
        m_causes[c.cause] += sign;
    }
}

void RowTally::move(std::int64_t row, const Counted& to) {
    Live& live = m_live[row];  // a row never dispatched is taken as pending
    if (live.counted) {
        add(live.as, -1);
    }
    add(to, +1);
    live.counted = true;
    live.as = to;
}

}  // namespace runner
