#include "runner/log_observer.hpp"

#include <fmt/format.h>
#include <algorithm>

#include "queue/admission.hpp"
#include "results/records.hpp"
#include "runner/account_book.hpp"
#include "runner/secrets.hpp"
#include "util/text.hpp"

namespace runner {

results::Cause to_log_cause(service::Cause cause) {
    switch (cause) {
    case service::Cause::none: return results::Cause::none;
    case service::Cause::rate_limited: return results::Cause::rate_limited;
    case service::Cause::transient: return results::Cause::transient;
    case service::Cause::auth: return results::Cause::auth;
    case service::Cause::spam_limit: return results::Cause::spam_limit;
    case service::Cause::rejected: return results::Cause::rejected;
    case service::Cause::tls: return results::Cause::transient;  // never left: resume retries it
    case service::Cause::pair_rate: return results::Cause::pair_rate;
    case service::Cause::marketing_limit: return results::Cause::marketing_limit;
    case service::Cause::opted_out: return results::Cause::opted_out;
    case service::Cause::undeliverable: return results::Cause::undeliverable;
    case service::Cause::outside_window: return results::Cause::outside_window;
    case service::Cause::account: return results::Cause::account;
    case service::Cause::endpoint: return results::Cause::transient;  // written as `unsent`, not as a result
    case service::Cause::template_refused: return results::Cause::template_refused;
    case service::Cause::template_params: return results::Cause::template_params;
    case service::Cause::template_paused: return results::Cause::template_paused;
    case service::Cause::template_disabled: return results::Cause::template_disabled;
    case service::Cause::experiment: return results::Cause::experiment;
    case service::Cause::policy_block: return results::Cause::policy_block;
    }
    return results::Cause::none;
}

namespace {

// A result record of `job`: its row, number, name and requests so far.
results::ResultRecord result_of(const queue::Job& job) {
    results::ResultRecord record;
    record.row = job.row;
    record.wa_id = job.wa_id;
    record.user_name = job.user_name;
    record.attempts = job.requests;
    return record;
}

}  // namespace

TemplateNames template_names_of(const campaign::Campaign& c) {
    if (c.message.type != campaign::MessageType::template_message) {
        return {};
    }
    const auto& t = c.message.templated;
    return {t.name, t.category.empty() ? std::nullopt : std::optional(t.category)};
}

util::Result<void> LogObserver::on_attempt(const queue::Job& job) {
    results::AttemptRecord record;
    record.row = job.row;
    record.wa_id = job.wa_id;
    record.attempt = job.requests;
    record.at = m_clock.wall_now();
    auto written = m_log.append_batched(results::to_line(record));
    if (written) {
        m_tally.attempt(job.row, results::RowState::unpack(job.note));
    }
    return written;
}

util::Result<void> LogObserver::on_unsent(const queue::Job& job, const service::Outcome& outcome) {
    results::UnsentRecord record;
    record.row = job.row;
    record.wa_id = job.wa_id;
    record.attempt = job.requests;
    if (outcome.http_status) {
        record.http_status = static_cast<int>(*outcome.http_status);
    }
    record.error = m_secrets.apply(outcome.error);
    record.at = m_clock.wall_now();
    auto written = m_log.append_batched(results::to_line(record));
    if (written) {
        m_tally.unsent(job.row);
    }
    return written;
}

util::Result<void> LogObserver::on_result(const queue::Job& job, queue::JobStatus status,
                                          const service::Outcome& outcome, std::chrono::milliseconds latency) {
    if (status == queue::JobStatus::unsent) {
        if (m_budget != nullptr) {
            m_budget->ended(job, status);
        }
        return on_unsent(job, outcome);
    }
    results::ResultRecord record = result_of(job);
    switch (status) {
    case queue::JobStatus::sent: record.status = results::Status::sent; break;
    case queue::JobStatus::unknown: record.status = results::Status::unknown; break;
    case queue::JobStatus::failed:
    case queue::JobStatus::retrying:
    case queue::JobStatus::unsent: record.status = results::Status::failed; break;
    }
    if (outcome.http_status) {
        record.http_status = static_cast<int>(*outcome.http_status);
        record.latency_ms = latency.count();
    } else if (latency.count() > 0) {
        record.latency_ms = latency.count();
    }
    record.error_code = outcome.error_code;
    if (!outcome.message_id.empty()) {
        record.message_id = outcome.message_id;
    }
    if (outcome.cause == service::Cause::rate_limited) {
        ++m_throttled;
    }
    if (m_watch != nullptr) {
        m_watch->answered(outcome);
    }
    if (!outcome.sent()) {
        record.error = outcome.error;
        record.cause = to_log_cause(outcome.cause);
    }
    if (job.template_send && status == queue::JobStatus::sent) {
        record.price = job.price;
    }
    if (m_budget != nullptr) {
        m_budget->ended(job, status);
    }
    return write_result(record, status == queue::JobStatus::retrying ? Retry::follows : Retry::none);
}

util::Result<void> LogObserver::on_refused(const queue::Job& job, const queue::Admission::Never& answer) {
    results::ResultRecord record = result_of(job);
    if (answer.refusal == queue::Admission::Refusal::ledger_sent ||
        answer.refusal == queue::Admission::Refusal::ledger_reserved) {
        return on_held_elsewhere(record, answer);
    }
    record.status = results::Status::skipped;
    switch (answer.refusal) {
    case queue::Admission::Refusal::frequency_cap: record.cause = results::Cause::frequency_cap; break;
    case queue::Admission::Refusal::suppressed: record.cause = results::Cause::suppressed; break;
    case queue::Admission::Refusal::marketing_limit:
        // As screening records a hold: failed, so that a later run sends once the hold ends.
        record.status = results::Status::failed;
        record.cause = results::Cause::marketing_limit;
        break;
    case queue::Admission::Refusal::too_late:
    case queue::Admission::Refusal::budget:
    case queue::Admission::Refusal::stop: break;  // never told: the dispatcher stops the run instead
    case queue::Admission::Refusal::ledger_sent:
    case queue::Admission::Refusal::ledger_reserved: break;  // on_held_elsewhere
    }
    record.error = answer.reason;
    auto written = write_result(record, Retry::none);
    if (written) {
        ++m_refused[record.cause];
    }
    return written;
}

util::Result<void> LogObserver::on_held_elsewhere(results::ResultRecord& record,
                                                  const queue::Admission::Never& answer) {
    // As screening records a row the ledger remembers (CampaignJobs::recover).
    const bool sent = answer.refusal == queue::Admission::Refusal::ledger_sent;
    ++(sent ? m_recovered_sent : m_recovered_unknown);
    mark_recovered(record, sent ? Recovery::sent : Recovery::unknown, answer.attempt, answer.reason);
    return write_result(record, Retry::none);
}

util::Result<void> LogObserver::write_result(results::ResultRecord& record, Retry retry) {
    record.at = m_clock.wall_now();
    m_names.label(record);
    mask_record(record, m_secrets);
    std::string line = results::to_line(record);
    auto written = m_log.append_batched(line);
    if (record.status != results::Status::unknown) {
        m_unflushed.push_back(std::move(line));
    }
    if (written) {
        m_tally.result(record.row, record.status, record.cause, retry);
    } else {
        give_unwritten();
    }
    return written;
}

util::Result<void> LogObserver::flush() {
    auto flushed = m_log.flush();
    if (flushed) {
        m_unflushed.clear();
    } else {
        give_unwritten();
    }
    return flushed;
}

void LogObserver::give_unwritten() {
    if (m_unflushed.empty()) {
        return;
    }
    m_ui.warning(fmt::format(
        "the result log could not be written: {} result(s) the service answered may be missing from it, given "
        "here so that none is lost. A row given as \"sent\" was delivered: do not send it again (resume's "
        "--resend-unknown would)",
        m_unflushed.size()));
    for (const auto& line : m_unflushed) {
        m_ui.warning("result not in the log: " + util::printable(std::string_view(line).substr(0, line.size() - 1)));
    }
    m_unflushed.clear();
}

RunFigures LogObserver::figures() const {
    RunFigures figures{.total = m_total, .held_back = m_refused, .rows = m_rows, .settled = m_tally.settled()};
    if (m_screened != nullptr) {
        for (std::size_t i = 0; i < results::k_cause_count; ++i) {
            figures.held_back.by_cause[i] += m_screened->by_cause[i];
        }
    }
    return figures;
}

void LogObserver::on_progress(const queue::Progress& progress) {
    const RunFigures run = figures();
    m_ui.progress(progress, run);
    if (m_watch != nullptr) {
        m_watch->progress(progress, run);
    }
}

void LogObserver::report_end(const queue::DispatchResult& result) {
    if (m_watch == nullptr) {
        return;
    }
    queue::Progress last = result.progress;
    last.in_flight = 0;  // what was in flight was recorded, or abandoned as unknown
    last.pause_reason.clear();
    last.paused_until.reset();
    RunFigures run = figures();
    if (result.reason == queue::StopReason::completed) {
        // The list is done. The total was estimated from the CSV's rows, invalid ones and
        // duplicates among them: nothing remains all the same.
        run.total = std::min(run.total, last.sent + last.failed + last.unknown + run.held_back_total());
    }
    m_watch->progress(last, run);
}

void LogObserver::on_pause(const queue::Progress& progress) {
    m_ui.paused(progress);
}

}  // namespace runner
