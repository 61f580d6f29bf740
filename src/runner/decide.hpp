#pragma once
// What a run does with one CSV row, given what the result log already says about it: the
// rule that makes `run` idempotent and `resume` safe.

#include <chrono>
#include <optional>

#include "campaign/recipients.hpp"
#include "results/replay.hpp"
#include "results/retry_rule.hpp"
#include "runner/send_options.hpp"
#include "util/clock.hpp"

namespace runner {

enum class Decision {
    send,                  // dispatch it now
    done,                  // already sent, invalid or skipped, or opted out: nothing to do, ever
    hold_unknown,          // may have been delivered: only --resend-unknown sends it
    hold_rejected,         // the service refused it for good: only --retry-failed sends it
    hold_marketing_limit,  // Meta's marketing limit refused it less than 24 h ago: a later run sends it
    record_invalid,        // never dispatched, and the row is unusable: record it invalid
    record_duplicate,      // never dispatched, and a repeat of an earlier row: record it skipped
    record_already_sent,   // its number was sent from another row of an earlier CSV: skip it
};

// What is known of one row.
struct RowFacts {
    results::RowState state;  // the log's state for its row number
    campaign::Verdict verdict = campaign::Verdict::ok;
    bool number_sent = false;                             // the log has a `sent` result for its wa_id
    bool number_unknown = false;                          // its wa_id had an unknown outcome under an earlier CSV
    std::optional<util::TimePoint> marketing_limited_at;  // its latest result: refused for the marketing limit
    bool priced = false;  // its `sent` result carried a price (LogState::spent counts it)
};

// Returns the facts about `recipient` in `state` (the existing log's, joined with the list the
// recipient comes from, or null). Fails when the log's records cannot be read back from disk:
// the caller must stop, not take the row for pending.
util::Result<RowFacts> facts_of(const campaign::Recipient& recipient, const results::LogState* state);

// Decides what to do with a row at `now` (which only a marketing-limit refusal depends on).
Decision decide(const RowFacts& facts, RetryRejected retry_rejected, ResendUnknown resend_unknown, util::TimePoint now);

// Whether decide() answers `done` for a row in `state` whatever else is known of it and
// whatever the options: sent once, or recorded invalid or skipped.
bool settled(const results::RowState& state);

// Whether `state` (joined with the list) settles every row of its list: a run would then
// neither send nor record anything, and need not read the list. Fails when the log's records
// cannot be read back.
util::Result<bool> every_row_settled(const results::LogState& state);

}  // namespace runner
