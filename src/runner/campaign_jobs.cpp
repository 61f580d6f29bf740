#include "runner/campaign_jobs.hpp"

#include <algorithm>

#include "runner/decide.hpp"
#include "runner/secrets.hpp"
#include "service/messages.hpp"

namespace runner {

util::Result<bool> CampaignJobs::next(queue::Job& out) {
    for (;;) {
        TRY_ASSIGN(const bool found, m_stream.next(m_recipient));
        if (!found) {
            return false;
        }
        const auto& r = m_recipient;
        const RowFacts facts = facts_of(r, m_state);
        const results::RowState& state = facts.state;
        switch (decide(facts, m_options.retry_rejected, m_options.resend_unknown, m_clock.wall_now())) {
        case Decision::send:
            out.row = r.row;
            out.wa_id = r.message.wa_id;
            out.user_name = r.message.user_name;
            out.body = service::send_message_body(r.message);
            out.requests = state.attempts;
            out.attempts = 0;
            m_tally.dispatch(r.row, state);
            return true;
        case Decision::done: break;
        case Decision::hold_unknown: ++held_unknown; break;
        case Decision::hold_rejected: ++held_rejected; break;
        case Decision::hold_marketing_limit: hold_marketing_limit(*facts.marketing_limited_at); break;
        case Decision::record_invalid:
            TRY(record(results::Status::invalid, results::Cause::invalid, r.reason, state));
            break;
        case Decision::record_duplicate:
            TRY(record(results::Status::skipped, results::Cause::duplicate, r.reason, state));
            break;
        case Decision::record_already_sent:
            TRY(record(results::Status::skipped, results::Cause::duplicate,
                       "already sent to this number in an earlier run", state));
            break;
        }
    }
}

void CampaignJobs::hold_marketing_limit(util::TimePoint refused_at) {
    ++held_marketing_limit;
    const auto until = refused_at + k_marketing_limit_hold;
    marketing_limit_until = marketing_limit_until ? std::max(*marketing_limit_until, until) : until;
}

util::Result<void> CampaignJobs::record(results::Status status, results::Cause cause, const std::string& reason,
                                        const results::RowState& before) {
    results::ResultRecord rec;
    rec.row = m_recipient.row;
    rec.wa_id = m_recipient.message.wa_id;
    rec.user_name = m_recipient.message.user_name;
    rec.status = status;
    rec.cause = cause;
    rec.error = reason;
    rec.attempts = before.attempts;
    rec.at = m_clock.wall_now();
    mask_record(rec, m_secrets);
    ++records_written;
    if (auto written = m_log.append_batched(results::to_line(rec)); !written) {
        return util::Error{written.error().message, util::ErrorKind::write};
    }
    m_tally.record(rec.row, before, status, cause);
    return {};
}

}  // namespace runner
