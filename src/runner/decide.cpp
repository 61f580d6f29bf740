#include "runner/decide.hpp"

#include <fmt/format.h>

namespace runner {

namespace {

using results::Cause;
using results::Status;

// A row that may be (re)sent now: still check the CSV and the numbers already sent.
Decision fresh(const RowFacts& facts, ResendUnknown resend_unknown) {
    switch (facts.verdict) {
    case campaign::Verdict::invalid: return Decision::record_invalid;
    case campaign::Verdict::duplicate: return Decision::record_duplicate;
    case campaign::Verdict::ok: break;
    }
    if (facts.number_sent) {
        return Decision::record_already_sent;
    }
    if (facts.number_unknown && resend_unknown == ResendUnknown::no) {
        return Decision::hold_unknown;
    }
    return Decision::send;
}

// What the rule of a failed row's cause says now.
Decision failed(const RowFacts& facts, RetryRejected retry_rejected, ResendUnknown resend_unknown,
                util::TimePoint now) {
    switch (results::retry_rule(facts.state.cause)) {
    case results::RetryRule::always: break;
    case results::RetryRule::after_a_day:
        if (facts.marketing_limited_at && now < *facts.marketing_limited_at + results::k_marketing_limit_hold) {
            return Decision::hold_marketing_limit;
        }
        break;
    case results::RetryRule::when_asked:
        if (retry_rejected == RetryRejected::no) {
            return Decision::hold_rejected;
        }
        break;
    case results::RetryRule::never: return Decision::done;
    }
    return fresh(facts, resend_unknown);
}

}  // namespace

util::Result<RowFacts> facts_of(const campaign::Recipient& r, const results::LogState* state) {
    RowFacts facts;
    facts.verdict = r.verdict;
    if (state == nullptr) {
        return facts;
    }
    if (!state->joined()) {
        // Without the join no row could tell a number already sent: never guess "not sent".
        return util::fail("the result log was not joined with the recipient list");
    }
    TRY_ASSIGN(const results::RowRecord rec, state->record(r.row));
    if (r.verdict != campaign::Verdict::invalid && rec.listed != results::listed_fingerprint(r.message.wa_id)) {
        // The marks below are of the number this row had when the log was joined with the list:
        // a list rewritten since then (in place, during the run) could send a number again.
        return util::fail(
            fmt::format("row {}: its number is not the one it had when the run began: the recipient "
                        "list was changed while the run read it; restore it, or start again with "
                        "--force once it is final",
                        r.row));
    }
    facts.state = rec.state;
    if (r.verdict == campaign::Verdict::ok) {
        facts.number_sent = rec.marked(results::RowRecord::k_number_sent);
        facts.number_unknown = rec.marked(results::RowRecord::k_number_unknown);
    }
    facts.marketing_limited_at = rec.marketing_limited_at();
    facts.priced = rec.marked(results::RowRecord::k_priced);
    return facts;
}

bool settled(const results::RowState& state) {
    if (state.pending()) {
        return false;
    }
    // A row once sent is never sent again, whatever came after.
    if (state.ever_sent()) {
        return true;
    }
    // A row skipped for its region was sent nothing: each run looks again (message.paused_regions).
    if (state.status == Status::skipped && state.cause == Cause::region_paused) {
        return false;
    }
    return !state.in_flight() &&
           (state.status == Status::sent || state.status == Status::invalid || state.status == Status::skipped);
}

Decision decide(const RowFacts& facts, RetryRejected retry_rejected, ResendUnknown resend_unknown,
                util::TimePoint now) {
    const results::RowState& state = facts.state;
    if (state.pending()) {
        return fresh(facts, resend_unknown);
    }
    if (settled(state)) {
        return Decision::done;
    }
    if (state.in_flight() || state.status == Status::unknown) {
        if (resend_unknown == ResendUnknown::no) {
            return Decision::hold_unknown;
        }
        return fresh(facts, resend_unknown);
    }
    switch (state.status) {
    case Status::dry_run: return fresh(facts, resend_unknown);
    case Status::skipped:
        if (state.cause == Cause::region_paused) {
            return fresh(facts, resend_unknown);
        }
        break;
    case Status::failed: return failed(facts, retry_rejected, resend_unknown, now);
    case Status::sent:
    case Status::invalid:
    case Status::unknown: break;
    }
    return Decision::hold_unknown;
}

util::Result<bool> every_row_settled(const results::LogState& state) {
    if (!state.joined()) {
        return false;
    }
    for (std::int64_t row = 1; row <= state.listed_rows(); ++row) {
        TRY_ASSIGN(const results::RowState known, state.row(row));
        if (!settled(known)) {
            return false;
        }
    }
    return true;
}

}  // namespace runner
