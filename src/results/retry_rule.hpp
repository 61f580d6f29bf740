#pragma once
// What a later run or resume does with a row that failed, by its cause (docs/result-log.md,
// "Causes"): the one rule that `run`, `resume`, the summaries and `report`'s next steps ask.

#include <chrono>
#include <cstdint>

#include "results/status.hpp"

namespace results {

// Whether a later run sends a row again that failed with a given cause.
enum class RetryRule {
    always,       // pair_rate, transient, rate_limited, auth, spam_limit, account, template_paused,
                  // template_disabled, policy_block
    after_a_day,  // marketing_limit: once k_marketing_limit_hold has passed since the answer
    when_asked,   // rejected, undeliverable, outside_window, template, template_params: only with
                  // --retry-failed
    never,        // opted_out, suppressed, experiment
};

// How long Meta's marketing limit (131049) holds a row back.
inline constexpr std::chrono::hours k_marketing_limit_hold{24};

// Returns the rule for a row that failed with `cause`.
RetryRule retry_rule(Cause cause);

// Whether `cause` is one of rows that end `skipped` or `invalid`, never `failed`.
bool of_skipped_rows(Cause cause);

// Failed rows by what a later run or resume does with them.
struct FailedRows {
    std::int64_t retried = 0;     // by a plain resume (marketing_limit: once 24 h have passed)
    std::int64_t when_asked = 0;  // only with --retry-failed
    std::int64_t never = 0;       // opted out, suppressed, in an experiment
};

// Returns the failed rows among `causes` by their rule; the causes of skipped rows are left out.
FailedRows failed_rows(const CauseCounts& causes);

}  // namespace results
