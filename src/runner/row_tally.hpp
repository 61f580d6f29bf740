#pragma once
// The log's counts by status, kept up to date as a run writes records, so that the run's `end`
// record and summary need no second pass over a log of millions of lines. It applies the same
// rules as results::replay: a row counts under its latest status once any record names it,
// and an `attempt` makes it `unknown` until its result.

#include <cstdint>
#include <unordered_map>

#include "results/replay.hpp"
#include "results/status.hpp"

namespace runner {

class RowTally {
public:
    // Starts from the counts of the log as replayed (empty for a new log).
    explicit RowTally(const results::StatusCounts& counts) : m_counts(counts) {}

    // Row `row`, in state `before`, gets a record with `status` and nothing more this run.
    void record(std::int64_t row, const results::RowState& before, results::Status status);

    // Row `row`, in state `before`, is handed to the dispatcher.
    void dispatch(std::int64_t row, const results::RowState& before);
    // An `attempt` was written for a dispatched row.
    void attempt(std::int64_t row);
    // A `result` was written for a dispatched row; `final` when no further request follows.
    void result(std::int64_t row, results::Status status, bool final);

    const results::StatusCounts& counts() const { return m_counts; }

private:
    void move(std::int64_t row, results::Status to);

    results::StatusCounts m_counts;
    // Dispatched rows not yet final: whether they are counted, and under which status.
    struct Live {
        bool counted = false;
        results::Status status = results::Status::unknown;
    };
    std::unordered_map<std::int64_t, Live> m_live;
};

}  // namespace runner
