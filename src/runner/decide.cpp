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
    switch (retry_rule(facts.state.cause)) {
    case RetryRule::always: break;
    case RetryRule::after_a_day:
        if (facts.marketing_limited_at && now < *facts.marketing_limited_at + k_marketing_limit_hold) {
            return Decision::hold_marketing_limit;
        }
        break;
    case RetryRule::when_asked:
        if (retry_rejected == RetryRejected::no) {
            return Decision::hold_rejected;
        }
        break;
    case RetryRule::never: return Decision::done;
    }
    return fresh(facts, resend_unknown);
}

}  // namespace

RetryRule retry_rule(results::Cause cause) {
    switch (cause) {
    case Cause::marketing_limit: return RetryRule::after_a_day;
    case Cause::rejected:
    case Cause::undeliverable:
    case Cause::outside_window:
    // The template or the row's values: sent again only once the campaign (or the row) is fixed.
    case Cause::template_refused:
    case Cause::template_params: return RetryRule::when_asked;
    case Cause::opted_out:
    case Cause::suppressed:
    case Cause::experiment: return RetryRule::never;
    // A failed row never has these, but an edited log might: a fresh look at the row decides.
    case Cause::none:
    case Cause::invalid:
    case Cause::duplicate:
    case Cause::frequency_cap:
    // Not refused for this recipient (the account or the pace was the trouble), or not processed.
    case Cause::rate_limited:
    case Cause::transient:
    case Cause::auth:
    case Cause::spam_limit:
    case Cause::pair_rate:
    case Cause::account:
    // A pause or a block that Meta lifts, or a template replaced (--force): the row goes then.
    case Cause::template_paused:
    case Cause::template_disabled:
    case Cause::policy_block: return RetryRule::always;
    }
    return RetryRule::always;
}

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
    return facts;
}

Decision decide(const RowFacts& facts, RetryRejected retry_rejected, ResendUnknown resend_unknown,
                util::TimePoint now) {
    const results::RowState& state = facts.state;
    if (state.pending()) {
        return fresh(facts, resend_unknown);
    }
    // A row once sent is never sent again, whatever came after.
    if (state.ever_sent()) {
        return Decision::done;
    }
    if (state.in_flight() || state.status == Status::unknown) {
        if (resend_unknown == ResendUnknown::no) {
            return Decision::hold_unknown;
        }
        return fresh(facts, resend_unknown);
    }
    switch (state.status) {
    case Status::sent:
    case Status::invalid:
    case Status::skipped: return Decision::done;
    case Status::dry_run: return fresh(facts, resend_unknown);
    case Status::failed: return failed(facts, retry_rejected, resend_unknown, now);
    case Status::unknown: break;
    }
    return Decision::hold_unknown;
}

}  // namespace runner
