#pragma once
// What the result log says of one CSV row, folded record by record: the one rule of a row's
// state, which the replay (run, resume, delete-contacts), the reports and a run's own counts
// apply alike (docs/result-log.md, "How a log is read").

#include <algorithm>
#include <cstdint>
#include <utility>

#include "results/status.hpp"

namespace results {

// What the log says about one CSV row, in 4 bytes (logs have millions of rows).
struct RowState {
    static constexpr std::uint8_t k_has_result = 1;  // a `result` was written
    static constexpr std::uint8_t k_in_flight = 2;   // an `attempt` came after the last result
    static constexpr std::uint8_t k_ever_sent = 4;   // some result said `sent`

    Status status = Status::unknown;  // the latest result's; `unknown` while in flight
    Cause cause = Cause::none;        // the latest result's
    std::uint8_t attempts = 0;        // requests made so far (saturates at 255)
    std::uint8_t flags = 0;

    // No record names the row: it was never dispatched.
    bool pending() const { return flags == 0; }

    // The state in one word, and back: what a queued job carries of its row (queue::Job::note),
    // so that nothing per row is held while jobs wait.
    std::uint32_t pack() const {
        return static_cast<std::uint32_t>(status) | static_cast<std::uint32_t>(cause) << 8 |
               static_cast<std::uint32_t>(attempts) << 16 | static_cast<std::uint32_t>(flags) << 24;
    }
    static RowState unpack(std::uint32_t word) {
        return {static_cast<Status>(word & 0xff), static_cast<Cause>((word >> 8) & 0xff),
                static_cast<std::uint8_t>((word >> 16) & 0xff), static_cast<std::uint8_t>(word >> 24)};
    }
    bool has_result() const { return (flags & k_has_result) != 0; }
    // The process died with this row's request in flight: it may or may not have arrived.
    bool in_flight() const { return (flags & k_in_flight) != 0; }
    bool ever_sent() const { return (flags & k_ever_sent) != 0; }

    // Adds the row to `counts` (under its status) and `causes` (under its cause, when its status
    // counts one and no request of it is in flight), `sign` times; a pending row counts nowhere.
    void count(StatusCounts& counts, CauseCounts& causes, int sign = 1) const {
        if (pending()) {
            return;
        }
        counts[status] += sign;
        if (!in_flight() && counts_cause(status)) {
            causes[cause] += sign;
        }
    }
};

// A row's state and what an `unsent` record needs to undo its latest attempt, in 6 bytes.
struct RowFold {
    RowState state;
    // The row's status and flags before its latest `attempt`: what an `unsent` record restores.
    Status before_attempt = Status::unknown;
    std::uint8_t flags_before_attempt = 0;

    // An `attempt` (request number `attempt` of the row): in flight, its outcome unknown until
    // its answer.
    void attempt(int attempt) {
        before_attempt = state.status;
        flags_before_attempt = state.flags;
        state.attempts = std::max(state.attempts, saturate(attempt));
        state.flags |= RowState::k_in_flight;
        state.status = Status::unknown;
    }

    // A `result`: the latest result decides the row.
    void result(Status status, Cause cause, int attempts) {
        state.status = status;
        state.cause = cause;
        state.attempts = saturate(attempts);
        state.flags = static_cast<std::uint8_t>((state.flags & ~RowState::k_in_flight) | RowState::k_has_result);
        if (status == Status::sent) {
            state.flags |= RowState::k_ever_sent;
        }
    }

    // An `unsent`: the request was not acted on, so the row is as it was before that attempt (still
    // in flight when an earlier request of it had no answer; pending when none had). It undoes
    // only an attempt with no result yet: after a result (a hand-edited log) it changes nothing.
    // Returns whether it undid one.
    bool unsent() {
        if (!state.in_flight()) {
            return false;
        }
        state.status = before_attempt;
        state.flags = flags_before_attempt;
        return true;
    }

    // Whether the row's outcome is unknown now: a request in flight, or an `unknown` result.
    bool unknown() const { return state.in_flight() || (state.has_result() && state.status == Status::unknown); }

private:
    static std::uint8_t saturate(int n) { return static_cast<std::uint8_t>(std::clamp(n, 0, 255)); }
};

// A row's fold with what a reader shows for the row beside its state (`Shown`: a record, say),
// changed by the same records: an `unsent` that undoes the latest attempt (RowFold::unsent)
// brings back what was shown before that attempt as well.
template <typename Shown>
class ShownRowFold {
public:
    const RowFold& fold() const { return m_fold; }
    const Shown& shown() const { return m_shown; }
    Shown& shown() { return m_shown; }

    // An `attempt` (RowFold::attempt), shown as `in_flight` until its answer.
    void attempt(int attempt, Shown in_flight) {
        m_fold.attempt(attempt);
        m_before_attempt = std::exchange(m_shown, std::move(in_flight));
    }
    // A `result` (RowFold::result), shown as `answer`.
    void result(Status status, Cause cause, int attempts, Shown answer) {
        m_fold.result(status, cause, attempts);
        m_shown = std::move(answer);
    }
    // An `unsent` (RowFold::unsent); returns whether it undid the latest attempt.
    bool unsent() {
        if (!m_fold.unsent()) {
            return false;
        }
        m_shown = m_before_attempt;
        return true;
    }

private:
    RowFold m_fold;
    Shown m_shown{};
    Shown m_before_attempt{};  // what an `unsent` brings back
};

}  // namespace results
