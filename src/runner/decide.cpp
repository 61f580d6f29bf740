#include "runner/decide.hpp"

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

}  // namespace

RowFacts facts_of(const campaign::Recipient& r, const results::LogState* state) {
    RowFacts facts;
    facts.verdict = r.verdict;
    if (state != nullptr) {
        facts.state = state->row(r.row);
        if (r.verdict == campaign::Verdict::ok) {
            facts.number_sent = state->sent_wa_ids.contains(r.message.wa_id);
            facts.number_unknown = state->unknown_wa_ids.contains(r.message.wa_id);
        }
    }
    return facts;
}

Decision decide(const RowFacts& facts, RetryRejected retry_rejected, ResendUnknown resend_unknown) {
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
    case Status::failed:
        if (state.cause == Cause::rejected && retry_rejected == RetryRejected::no) {
            return Decision::hold_rejected;
        }
        return fresh(facts, resend_unknown);
    case Status::unknown: break;
    }
    return Decision::hold_unknown;
}

}  // namespace runner
