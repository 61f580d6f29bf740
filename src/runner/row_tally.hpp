#pragma once
// The log's counts by status (and of failed and skipped rows by cause), kept up to date as a
// run writes records, so that the run's `end` record and summary need no second pass over a
// log of millions of lines. Each row it follows is folded by results::RowFold, the replay's own
// rule: a row counts under its latest status once any record names it, an `attempt` makes it
// `unknown` until its result, an `unsent` undoes the attempt. A RunWatch given to it is told
// each row's outcome of this run.

#include <algorithm>
#include <cstdint>
#include <unordered_map>

#include "results/row_fold.hpp"
#include "results/status.hpp"
#include "runner/watch.hpp"

namespace runner {

// Whether a request of the row follows its result in this run (a retry), or none does.
enum class Retry { follows, none };

class RowTally {
public:
    // Starts from the counts of the log as replayed (empty for a new log).
    RowTally(const results::StatusCounts& counts, const results::CauseCounts& causes)
        : m_counts(counts), m_causes(causes) {}

    // Row `row`, in state `before`, gets a record with `status` and `cause` and nothing more
    // this run.
    void record(std::int64_t row, const results::RowState& before, results::Status status, results::Cause cause);

    // An `attempt` was written for row `row`, whose state before this run was `before`. A row is
    // held from its first attempt to its final result, not while it waits in the queue (set
    // aside for its window, by the thousand).
    void attempt(std::int64_t row, const results::RowState& before);
    // An `unsent` was written for a dispatched row: it counts as it did before its latest attempt.
    void unsent(std::int64_t row);
    // A `result` was written for a dispatched row; `retry` says whether a further request follows.
    void result(std::int64_t row, results::Status status, results::Cause cause, Retry retry);

    // Has `watch` told of each row's last record of this run (null: nobody); it must outlive this.
    void report_to(RunWatch* watch) { m_watch = watch; }

    const results::StatusCounts& counts() const { return m_counts; }
    // Rows the log holds a final record of: those it counts, less those dispatched and not yet
    // answered for good (in flight, waiting for a retry).
    std::int64_t settled() const {
        return std::max<std::int64_t>(0, m_counts.total() - static_cast<std::int64_t>(m_live.size()));
    }
    const results::CauseCounts& causes() const { return m_causes; }

private:
    // Moves `row` from what it counted as to what `change` makes of it.
    template <typename Change>
    void fold(std::int64_t row, Change change);

    results::StatusCounts m_counts;
    results::CauseCounts m_causes;
    std::unordered_map<std::int64_t, results::RowFold> m_live;  // rows attempted, not yet final
    RunWatch* m_watch = nullptr;
};

}  // namespace runner
