// The send loop's answers: what each cause does to its row and to the queue.
#include "queue/dispatch_loop.hpp"
#include "queue/side_request.hpp"

namespace queue {

namespace detail {

// The stop of a cause that ends the campaign at once; nothing for the others.
std::optional<StopReason> stop_reason_of(service::Cause cause) {
    switch (cause) {
    case service::Cause::auth: return StopReason::auth;
    case service::Cause::spam_limit: return StopReason::spam_limit;
    case service::Cause::account: return StopReason::account;
    case service::Cause::tls: return StopReason::tls;
    case service::Cause::endpoint: return StopReason::endpoint;
    case service::Cause::template_refused: return StopReason::template_refused;
    case service::Cause::template_paused: return StopReason::template_paused;
    case service::Cause::template_disabled: return StopReason::template_disabled;
    case service::Cause::policy_block: return StopReason::policy_block;
    default: return std::nullopt;
    }
}

// ---- Answers ----------------------------------------------------------------------------------

void Dispatcher::finish(const Job& job, JobStatus status, const service::Outcome& outcome, milliseconds latency) {
    ++m_ended;  // every finished job was in flight: the admission steps admitted it
    if (status == JobStatus::sent) {
        ++m_ended_sent;
        ++m_result.progress.sent;
    } else if (status == JobStatus::failed) {
        ++m_result.progress.failed;
    } else if (status == JobStatus::unknown) {
        ++m_result.progress.unknown;
    }
    if (auto logged = m_parts.observer->on_result(job, status, outcome, latency); !logged) {
        stop(StopReason::log_error, logged.error().message);
    }
}

void Dispatcher::note_throttle(const service::Outcome& outcome, Steady now) {
    if (outcome.cause == service::Cause::rate_limited) {
        if (!m_throttled_since) {
            m_throttled_since = now;
        }
        m_last_throttle = outcome.error;
    } else {
        m_throttled_since.reset();
    }
}

void Dispatcher::start_side(Steady now, Steady& until) {
    if (m_parts.side == nullptr || m_stopping || m_side_id != 0) {
        return;
    }
    if (auto request = m_parts.side->due(Instant{now, m_parts.clock->wall_now()})) {
        m_side_id = m_next_id++;
        m_parts.transport->start(m_side_id, std::move(*request));
        return;
    }
    if (const auto next = m_parts.side->next_due(); next && *next < until) {
        until = std::max(now, *next);
    }
}

void Dispatcher::handle(service::Completion completion, Steady now) {
    if (completion.id == m_side_id) {
        m_side_id = 0;
        m_parts.side->answered(completion, Instant{now, m_parts.clock->wall_now()});
        return;
    }
    auto it = m_in_flight.find(completion.id);
    if (it == m_in_flight.end()) {
        return;
    }
    InFlight flight = std::move(it->second);
    m_in_flight.erase(it);
    m_window.on_answer(completion.latency);
    Job& job = flight.job;
    const service::Outcome outcome = service::classify(completion, m_parts.clock->wall_now(), job.marketing_hold);
    const milliseconds latency = completion.latency;
    note_throttle(outcome, now);
    if (const auto reason = stop_reason_of(outcome.cause)) {
        // tls: the request never left; resume sends it once the certificate is fixed or trusted.
        // endpoint: no such URL, so nothing was acted on: the row is not failed, resume sends it.
        const bool unsent = outcome.cause == service::Cause::endpoint;
        finish(job, unsent ? JobStatus::unsent : JobStatus::failed, outcome, latency);
        stop(*reason, unsent ? wrong_endpoint(job, outcome) : outcome.error);
        return;
    }
    switch (outcome.cause) {
    case service::Cause::none:
        on_sent(job, outcome, latency, now);
        // It named its message id, and its code stops the campaign all the same: the row is sent.
        if (const auto reason = stop_reason_of(outcome.code_cause)) {
            stop(*reason, outcome.error + " (that message itself was accepted: recorded sent)");
        }
        return;
    case service::Cause::rate_limited:
        // Not processed by the service: it goes again, and does not count as an attempt.
        m_parts.limiter->on_throttled(now, outcome.retry_after, flight.started);
        if (m_parts.pace != nullptr) {
            m_parts.pace->on_throttled(now, outcome.retry_after, flight.started);  // every runner of the account
        }
        --job.attempts;
        finish(job, JobStatus::retrying, outcome, latency);
        m_waiting.push({now, m_seq++, std::move(job)});
        return;
    case service::Cause::pair_rate: on_pair_rate(job, outcome, latency, now); return;
    case service::Cause::transient: on_transient(job, outcome, latency, now); break;
    case service::Cause::rejected:
    case service::Cause::marketing_limit:
    case service::Cause::opted_out:
    case service::Cause::undeliverable:
    case service::Cause::outside_window:
    case service::Cause::experiment:
        // Refused for this recipient: not retried in this run, and a failure in a row.
        finish(job, JobStatus::failed, outcome, latency);
        break;
    case service::Cause::template_params: on_template_params(job, outcome, latency); break;
    case service::Cause::auth:
    case service::Cause::spam_limit:
    case service::Cause::account:
    case service::Cause::tls:
    case service::Cause::endpoint:
    case service::Cause::template_refused:
    case service::Cause::template_paused:
    case service::Cause::template_disabled:
    case service::Cause::policy_block: return;  // stopped above
    }
    ++m_consecutive_failures;
    if (m_settings.max_consecutive_failures > 0 && m_consecutive_failures >= m_settings.max_consecutive_failures) {
        stop(StopReason::failure_threshold,
             "the last " + std::to_string(m_consecutive_failures) + " requests failed; last error: " + outcome.error);
    }
}

std::string Dispatcher::wrong_endpoint(const Job& job, const service::Outcome& outcome) const {
    if (m_parts.service == nullptr) {
        return outcome.error;
    }
    // The URL the request went to: send-template for a template message.
    const auto request = job.template_send ? service::send_template_request(*m_parts.service, {})
                                           : service::send_message_request(*m_parts.service, {});
    return service::wrong_endpoint(request, outcome);
}

void Dispatcher::on_sent(Job& job, const service::Outcome& outcome, milliseconds latency, Steady now) {
    m_parts.limiter->on_success(now);
    m_consecutive_failures = 0;
    m_template_params_in_a_row = 0;
    m_send_rate.add(now);
    finish(job, JobStatus::sent, outcome, latency);
}

void Dispatcher::on_transient(Job& job, const service::Outcome& outcome, milliseconds latency, Steady now) {
    if (outcome.ambiguous && m_settings.ambiguous == campaign::Ambiguous::hold) {
        finish(job, JobStatus::unknown, outcome, latency);
    } else if (m_parts.retry->may_retry(job.attempts) && !m_stopping) {
        finish(job, JobStatus::retrying, outcome, latency);
        m_waiting.push({now + m_parts.retry->backoff(job.attempts), m_seq++, std::move(job)});
    } else {
        finish(job, JobStatus::failed, outcome, latency);
    }
}

// One row's values do not fit the template: that row fails; as many in a row say that every
// row would (a wrong variable in the campaign), so the campaign stops.
void Dispatcher::on_template_params(const Job& job, const service::Outcome& outcome, milliseconds latency) {
    finish(job, JobStatus::failed, outcome, latency);
    if (++m_template_params_in_a_row >= k_template_params_stop) {
        stop(StopReason::template_refused,
             fmt::format("the template refused the values of the last {} rows; last error: {}",
                         m_template_params_in_a_row, outcome.error));
    }
}

// Meta limits the messages to one user, not the number's pace: only this row waits. The queue
// is neither paused nor slowed, and the answer counts neither as an attempt nor as a failure.
void Dispatcher::on_pair_rate(Job& job, const service::Outcome& outcome, milliseconds latency, Steady now) {
    --job.attempts;
    ++job.pair_rate_answers;
    if (job.pair_rate_answers >= k_pair_rate_max_answers) {
        finish(job, JobStatus::failed, outcome, latency);
        return;
    }
    finish(job, JobStatus::retrying, outcome, latency);
    m_waiting.push({now + pair_rate_wait(job.pair_rate_answers), m_seq++, std::move(job)});
}

}  // namespace detail

std::string_view to_string(StopReason reason) {
    switch (reason) {
    case StopReason::completed: return "completed";
    case StopReason::limit: return "limit";
    case StopReason::auth: return "auth";
    case StopReason::spam_limit: return "spam_limit";
    case StopReason::account: return "account";
    case StopReason::failure_threshold: return "failure_threshold";
    case StopReason::interrupted: return "interrupted";
    case StopReason::log_error: return "log_error";
    case StopReason::input_error: return "input_error";
    case StopReason::throttled: return "throttled";
    case StopReason::tls: return "tls";
    case StopReason::ledger_error: return "ledger_error";
    case StopReason::endpoint: return "endpoint";
    case StopReason::template_refused: return "template";
    case StopReason::template_paused: return "template_paused";
    case StopReason::template_disabled: return "template_disabled";
    case StopReason::policy_block: return "policy_block";
    case StopReason::too_late: return "too_late";
    case StopReason::budget: return "budget";
    case StopReason::template_changed: return "template_changed";
    case StopReason::temp_file_error: return "temp_file_error";
    }
    return "completed";
}

}  // namespace queue
