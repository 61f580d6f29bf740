#include "queue/dispatcher_loop.hpp"

#include <algorithm>
#include <utility>

#include "queue/shared_pace.hpp"
#include "service/requests.hpp"
#include "util/time.hpp"

namespace queue {

namespace detail {

namespace {

// Why a flush of the observer failed: the ledger (ErrorKind::ledger) or else the log.
StopReason flush_failure(const util::Error& error) {
    return error.kind == util::ErrorKind::ledger ? StopReason::ledger_error : StopReason::log_error;
}

}  // namespace

bool Dispatcher::source_exhausted() {
    if (m_peeked || m_exhausted) {
        return m_exhausted && !m_peeked;
    }
    Job job;
    auto more = m_source.next(job);
    if (more && *more) {
        m_peeked = std::move(job);
        return false;
    }
    if (!more) {
        m_source_error = more.error();
    }
    m_exhausted = true;
    return true;
}

void Dispatcher::note_source_error() {
    if (!m_source_error) {
        return;
    }
    // A log the source could not write stops the run whatever else did; input that could not
    // be read on only a run that would have completed.
    if (m_source_error->kind == util::ErrorKind::write || m_source_error->kind == util::ErrorKind::ledger) {
        m_result.reason =
            m_source_error->kind == util::ErrorKind::write ? StopReason::log_error : StopReason::ledger_error;
        m_result.message = m_source_error->message;
    } else if (m_result.reason == StopReason::completed) {
        m_result.reason = StopReason::input_error;
        m_result.message = m_source_error->message;
    }
}

bool Dispatcher::take(Steady now, Job& out) {
    if (!m_waiting.empty() && m_waiting.top().due <= now) {
        out = m_waiting.top().job;
        m_waiting.pop();
        return true;
    }
    if (!m_deferred.empty()) {
        out = std::move(m_deferred.front());
        m_deferred.pop_front();
        return true;
    }
    if ((m_settings.limit > 0 && m_taken >= m_settings.limit) || source_exhausted()) {
        return false;
    }
    out = std::move(*m_peeked);
    m_peeked.reset();
    ++m_taken;
    return true;
}

bool Dispatcher::start_batch(Steady now) {
    if (m_parts.pace != nullptr) {
        return start_paced(now);
    }
    // One reservation call per turn: at most what the in-flight limit has room for.
    constexpr std::size_t k_max_batch = 256;
    std::vector<Job> batch;
    std::optional<Steady> wake;
    while (batch.size() < k_max_batch && startable_now(now, wake) && m_parts.limiter->try_acquire(now)) {
        Job job;
        if (!take(now, job)) {
            break;
        }
        batch.push_back(std::move(job));
        ++m_starting;
    }
    m_starting = 0;
    if (batch.empty()) {
        return false;
    }
    if (m_parts.reserver == nullptr) {
        for (auto& job : batch) {
            if (!launch(std::move(job), now)) {
                return false;
            }
        }
        return true;
    }
    if (!reserve(batch, now)) {
        return false;
    }
    for (auto& job : batch) {
        if (m_stopping) {
            break;
        }
        launch(std::move(job), now);
    }
    return !m_stopping;
}

bool Dispatcher::reserve(std::vector<Job>& batch, Steady now) {
    if (m_parts.reserver == nullptr || batch.empty()) {
        return true;
    }
    std::vector<const Job*> jobs;
    for (const auto& job : batch) {
        jobs.push_back(&job);
    }
    auto answers = m_parts.reserver->reserve(jobs);
    if (!answers) {
        // Nothing of the batch left; its rows stay as they were.
        stop(StopReason::ledger_error, answers.error().message);
        return false;
    }
    admit(batch, *answers, now);
    return !m_stopping;
}

std::size_t Dispatcher::paced_room(Steady now) const {
    // As many as could start now: the local limiter lets them all start together (at most
    // 1 + burst), and there is room in flight.
    const std::size_t limit = in_flight_limit();
    const std::size_t room = limit > busy() ? limit - busy() : 0;
    const std::size_t most = std::min(room, static_cast<std::size_t>(m_parts.limiter->burst()) + 1);
    std::size_t n = 0;
    while (n < most && m_parts.limiter->next_allowed(now, static_cast<int>(n) + 1) <= now) {
        ++n;
    }
    return n;
}

bool Dispatcher::start_paced(Steady now) {
    std::optional<Steady> wake;
    if (!startable_now(now, wake)) {
        return false;
    }
    const std::size_t room = paced_room(now);
    // The jobs to ask slots for: those already reserved with the account first, then new ones,
    // reserved before the question: the slots are for now, and nothing slow (the ledger) may
    // come between a grant and the requests leaving.
    std::vector<Job> fresh;
    while (m_held.size() + fresh.size() < room) {
        Job job;
        if (!take(now, job)) {
            break;
        }
        fresh.push_back(std::move(job));
    }
    const bool took = !fresh.empty();
    if (!reserve(fresh, now)) {
        return false;
    }
    for (auto& job : fresh) {
        m_held.push_back(std::move(job));
    }
    if (m_held.empty()) {
        return took && !m_stopping;  // all refused or deferred: look again
    }
    const std::size_t asked = std::min(m_held.size(), room);
    if (asked == 0) {
        return false;
    }
    // Asked at the time of asking: reserving may have taken a while since `now`.
    const PaceAnswer answer = m_parts.pace->take(m_parts.clock->steady_now(), static_cast<int>(asked));
    const std::size_t granted = std::min(static_cast<std::size_t>(std::max(answer.granted, 0)), asked);
    std::size_t started = 0;
    // A grant is a start time, not a permission: a slot unused by `use_by` is dropped (its time
    // has passed; used late it could break the account's bound) and asked for again.
    while (started < granted && !m_stopping && m_parts.clock->steady_now() <= answer.use_by) {
        Job job = std::move(m_held.front());
        m_held.pop_front();
        m_parts.limiter->try_acquire(now);
        if (!launch(std::move(job), now)) {
            return false;
        }
        ++started;
    }
    note_pace_answer(answer, granted, asked, started, now);
    return started > 0 && !m_stopping;
}

void Dispatcher::note_pace_answer(const PaceAnswer& answer, std::size_t granted, std::size_t asked, std::size_t started,
                                  Steady now) {
    if (granted > 0) {
        m_pace_reason.clear();
        m_pace_until.reset();
        m_pace_notice = false;
        m_pause_reason.clear();
        m_paused_until.reset();
        m_announced.reset();
    }
    if (started < granted) {
        m_pace_retry = now;  // slots dropped: ask again at once
    } else if (granted < asked) {
        // Fewer than asked for: no more before the pace says.
        m_pace_retry = std::max(answer.retry_at, now);
        if (granted == 0) {
            m_pace_reason = answer.reason;
            m_pace_until = answer.paused_until;
            m_pace_notice = answer.notice;
        }
    }
}

void Dispatcher::admit(std::vector<Job>& batch, const std::vector<Reservation>& answers, Steady now) {
    std::vector<Job> granted;
    for (std::size_t i = 0; i < batch.size() && !m_stopping; ++i) {
        const Reservation& answer = i < answers.size() ? answers[i] : Reservation{};
        switch (answer.verdict) {
        case Reservation::Verdict::granted: granted.push_back(std::move(batch[i])); break;
        case Reservation::Verdict::refused:
            if (auto logged = m_parts.observer->on_refused(batch[i], answer); !logged) {
                stop(StopReason::log_error, logged.error().message);
            }
            break;
        case Reservation::Verdict::later:
            m_deferred.push_back(std::move(batch[i]));
            m_account_until = answer.until;
            m_account_reason = answer.reason;
            // Ask again when room opens, and meanwhile every few seconds: another runner may
            // give a slot back.
            m_account_retry = now + std::chrono::seconds(5);
            if (answer.until) {
                const auto left = *answer.until - m_parts.clock->wall_now();
                m_account_retry = std::min(m_account_retry, now + std::chrono::duration_cast<Steady::duration>(left));
            }
            break;
        }
    }
    batch = std::move(granted);
}

bool Dispatcher::launch(Job job, Steady now) {
    ++job.requests;
    ++job.attempts;
    if (auto logged = m_parts.observer->on_attempt(job); !logged) {
        stop(StopReason::log_error, logged.error().message);
        return false;
    }
    std::uint64_t id = m_next_id++;
    m_parts.transport->start(id, job.template_send ? service::send_template_request(*m_parts.service, job.body)
                                                   : service::send_message_request(*m_parts.service, job.body));
    m_in_flight.emplace(id, InFlight{std::move(job), now});
    m_unpolled.push_back(id);
    return true;
}

void Dispatcher::stop(StopReason reason, std::string message) {
    if (m_stopping) {
        return;
    }
    m_stopping = true;
    m_stop_deadline = m_parts.clock->steady_now() + m_settings.stop_grace;
    m_result.reason = reason;
    m_result.message = std::move(message);
}

void Dispatcher::check_throttled(Steady now) {
    if (!m_throttled_since || now - *m_throttled_since < m_settings.max_throttled) {
        return;
    }
    std::string message = "the service has throttled every request for " +
                          util::format_duration(std::chrono::duration_cast<milliseconds>(now - *m_throttled_since),
                                                util::DurationStyle::compact) +
                          " (abort.max_throttled)";
    if (!m_last_throttle.empty()) {
        message += "; last answer: " + m_last_throttle;
    }
    stop(StopReason::throttled, std::move(message));
}

void Dispatcher::abandon_in_flight() {
    service::Outcome outcome;
    outcome.cause = service::Cause::transient;
    outcome.ambiguous = true;
    outcome.error = "stopped while the request was in flight";
    for (auto& [id, flight] : m_in_flight) {
        finish(flight.job, JobStatus::unknown, outcome, milliseconds(0));
    }
    m_in_flight.clear();
}

void Dispatcher::abandon_unsent() {
    service::Outcome outcome;
    outcome.cause = service::Cause::transient;
    outcome.ambiguous = true;  // as the log reads it: an attempt without an answer
    outcome.error = "never sent: the result log could not be written before the request left";
    for (const auto id : m_unpolled) {
        auto it = m_in_flight.find(id);
        if (it == m_in_flight.end()) {
            continue;
        }
        finish(it->second.job, JobStatus::unknown, outcome, milliseconds(0));
        ++m_result.never_left;
        m_in_flight.erase(it);
    }
    m_unpolled.clear();
}

void Dispatcher::report_progress(Steady now) {
    Progress& p = m_result.progress;
    p.started = m_taken;
    p.in_flight = m_in_flight.size();
    p.in_flight_limit = in_flight_limit();
    p.retry_waiting = m_waiting.size();
    p.rate_in_force = m_parts.limiter->current_rate();
    p.achieved_rate = m_send_rate.per_second(now);
    p.paused_until = m_paused_until;
    p.pause_reason = m_pause_reason;
    m_parts.observer->on_progress(p);
}

DispatchResult Dispatcher::run() {
    m_next_progress = m_parts.clock->steady_now();
    for (;;) {
        Steady now = m_parts.clock->steady_now();
        int stops = m_parts.stop_requests != nullptr ? m_parts.stop_requests->load() : 0;
        if (stops >= 2) {
            stop(StopReason::interrupted, "interrupted twice: stopped at once");
            abandon_in_flight();
            break;
        }
        if (stops == 1) {
            stop(StopReason::interrupted, "interrupted");
        }
        check_throttled(now);
        if (m_stopping && (m_in_flight.empty() || now >= m_stop_deadline)) {
            abandon_in_flight();
            break;
        }
        if (!m_stopping) {
            while (start_batch(now)) {
            }
            // A stop while starting (the ledger or the log failed) keeps its reason.
            if (!m_stopping && m_in_flight.empty() && m_waiting.empty() && m_deferred.empty() && m_held.empty() &&
                ((m_settings.limit > 0 && m_taken >= m_settings.limit) || source_exhausted())) {
                m_result.reason = source_exhausted() ? StopReason::completed : StopReason::limit;
                break;
            }
        }
        if (now >= m_next_progress) {
            report_progress(now);
            m_next_progress = now + m_settings.progress_interval;
        }
        std::optional<Steady> wake;
        Steady until = std::min(m_next_progress, now + k_max_wait);
        bool start_due = false;  // a start is scheduled at `until`
        if (!m_stopping && !startable_now(now, wake) && wake && *wake <= until) {
            until = *wake;
            start_due = true;
        }
        const auto wait = std::max(k_min_wait, std::chrono::ceil<microseconds>(until - now));
        // A start due soon: sleep to it and read the answers that came meanwhile in the same
        // wake-up, one wake-up a request at a paced rate instead of two (answer, then start).
        const auto mode = start_due && wait <= k_hold_answers ? service::Wait::whole : service::Wait::first_progress;
        if (auto flushed = m_parts.observer->flush(); !flushed) {
            // The requests started this turn have not left (the transport sends when polled).
            stop(flush_failure(flushed.error()), flushed.error().message);
            abandon_unsent();
            abandon_in_flight();
            break;
        }
        m_unpolled.clear();  // polling hands them to the network
        for (auto& completion : m_parts.transport->poll(wait, mode)) {
            handle(std::move(completion), m_parts.clock->steady_now());
        }
    }
    // A log that failed stops the run whatever else did; a second failure of the same kind keeps
    // the first message.
    if (auto flushed = m_parts.observer->flush();
        !flushed && m_result.reason != StopReason::log_error && m_result.reason != flush_failure(flushed.error())) {
        m_result.reason = flush_failure(flushed.error());
        m_result.message = flushed.error().message;
    }
    note_source_error();
    report_progress(m_parts.clock->steady_now());
    return m_result;
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
    }
    return "completed";
}

DispatchResult dispatch(JobSource& source, const DispatchSettings& settings, const DispatchParts& parts) {
    return detail::Dispatcher(source, settings, parts).run();
}

}  // namespace queue
