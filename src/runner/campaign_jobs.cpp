#include "runner/campaign_jobs.hpp"

#include <algorithm>

#include "runner/secrets.hpp"
#include "service/messages.hpp"

namespace runner {

namespace {

// Rows read ahead at a time: one ledger query each, and a bounded amount of memory.
constexpr std::size_t k_read_ahead = 256;

}  // namespace

util::Result<void> CampaignJobs::read_ahead() {
    m_ahead.resize(k_read_ahead);
    m_ahead_count = 0;
    m_ahead_next = 0;
    std::vector<account::Send> sends;
    std::vector<std::size_t> screened;  // their indexes in m_ahead
    while (!m_stream_done && m_ahead_count < (m_book != nullptr ? k_read_ahead : 1)) {
        Ahead& row = m_ahead[m_ahead_count];
        TRY_ASSIGN(const bool found, m_stream.next(row.recipient));
        if (!found) {
            m_stream_done = true;
            break;
        }
        TRY_ASSIGN(row.facts, facts_of(row.recipient, m_state));
        row.decision = decide(row.facts, m_options.retry_rejected, m_options.resend_unknown, m_clock.wall_now());
        row.screening = Screening{};
        if (row.decision == Decision::send && m_paused != nullptr && m_paused->paused(row.recipient.message.wa_id)) {
            row.screening = region_paused(*m_paused, row.recipient.message.wa_id);
        } else if (row.decision == Decision::send && m_book != nullptr) {
            sends.push_back(
                account::Send{row.recipient.message.wa_id, m_campaign_key, row.recipient.row, std::nullopt});
            screened.push_back(m_ahead_count);
        }
        ++m_ahead_count;
    }
    if (sends.empty()) {
        return {};
    }
    TRY_ASSIGN(auto screenings, m_book->screen(sends, m_clock.wall_now()));
    for (std::size_t i = 0; i < screened.size() && i < screenings.size(); ++i) {
        m_ahead[screened[i]].screening = std::move(screenings[i]);
    }
    return {};
}

util::Result<bool> CampaignJobs::next(queue::Job& out) {
    for (;;) {
        if (m_ahead_next == m_ahead_count) {
            TRY(read_ahead());
            if (m_ahead_count == 0) {
                return false;
            }
        }
        TRY_ASSIGN(const bool send, take(m_ahead[m_ahead_next++], out));
        if (send) {
            return true;
        }
    }
}

util::Result<bool> CampaignJobs::take(Ahead& row, queue::Job& out) {
    const auto& r = row.recipient;
    const results::RowState& state = row.facts.state;
    switch (row.decision) {
    case Decision::send:
        if (const Recovery recovery = recovery_of(row.screening, state); recovery != Recovery::none) {
            TRY(recover(r, recovery, row.screening, state));
            return false;
        }
        if (row.screening.cause != results::Cause::none) {
            ++held_back[row.screening.cause];
            if (row.screening.cause == results::Cause::region_paused && state.status == results::Status::skipped &&
                state.cause == results::Cause::region_paused) {
                return false;  // recorded so by an earlier run: the log says it already
            }
            const auto status = row.screening.cause == results::Cause::marketing_limit ? results::Status::failed
                                                                                       : results::Status::skipped;
            TRY(record(r, status, row.screening.cause, row.screening.why, state));
            return false;
        }
        out.row = r.row;
        out.wa_id = r.message.wa_id;
        out.user_name = r.message.user_name;
        out.body = service::request_body(r.message);
        out.template_send = r.message.kind == service::MessageKind::template_message;
        out.marketing_hold = service::marketing_hold_of(r.message);
        out.requests = state.attempts;
        out.attempts = 0;
        out.zone = -1;
        if (m_zones != nullptr && !r.zone.name.empty()) {
            TRY_ASSIGN(out.zone, m_zones->zone(r.zone.name));
        }
        out.price = m_prices != nullptr && out.template_send ? m_prices->price(out.wa_id) : 0;
        out.note = state.pack();  // RowTally needs it at the row's first attempt, not before
        return true;
    case Decision::done: break;
    case Decision::hold_unknown: ++held_unknown; break;
    case Decision::hold_rejected: ++held_rejected; break;
    case Decision::hold_marketing_limit: hold_marketing_limit(*row.facts.marketing_limited_at); break;
    case Decision::record_invalid:
        TRY(record(r, results::Status::invalid, results::Cause::invalid, r.reason, state));
        break;
    case Decision::record_duplicate:
        TRY(record(r, results::Status::skipped, results::Cause::duplicate, r.reason, state));
        break;
    case Decision::record_already_sent:
        TRY(record(r, results::Status::skipped, results::Cause::duplicate,
                   "already sent to this number in an earlier run", state));
        break;
    }
    return false;
}

void CampaignJobs::hold_marketing_limit(util::TimePoint refused_at) {
    ++held_marketing_limit;
    const auto until = refused_at + results::k_marketing_limit_hold;
    marketing_limit_until = marketing_limit_until ? std::max(*marketing_limit_until, until) : until;
}

util::Result<void> CampaignJobs::recover(const campaign::Recipient& r, Recovery recovery, const Screening& screening,
                                         const results::RowState& before) {
    results::ResultRecord rec = record_of(r, before);
    ++(recovery == Recovery::sent ? recovered_sent : recovered_unknown);
    mark_recovered(rec, recovery, screening.ledger_attempt,
                   "the account's ledger holds this row's reservation but the result log holds no record of it: its "
                   "request may have left (the log lost its attempt line); sent again only with --resend-unknown");
    return write(rec, before);
}

results::ResultRecord CampaignJobs::record_of(const campaign::Recipient& r, const results::RowState& before) const {
    results::ResultRecord rec;
    rec.row = r.row;
    rec.wa_id = r.message.wa_id;
    rec.user_name = r.message.user_name;
    rec.attempts = before.attempts;
    rec.at = m_clock.wall_now();
    return rec;
}

util::Result<void> CampaignJobs::record(const campaign::Recipient& r, results::Status status, results::Cause cause,
                                        const std::string& reason, const results::RowState& before) {
    results::ResultRecord rec = record_of(r, before);
    rec.status = status;
    rec.cause = cause;
    rec.error = reason;
    return write(rec, before);
}

util::Result<void> CampaignJobs::write(results::ResultRecord& rec, const results::RowState& before) {
    m_names.label(rec);
    mask_record(rec, m_secrets);
    ++records_written;
    if (auto written = m_log.append_batched(results::to_line(rec)); !written) {
        return util::Error{written.error().message, util::ErrorKind::write};
    }
    m_tally.record(rec.row, before, rec.status, rec.cause);
    return {};
}

}  // namespace runner
