#include "queue/dispatcher.hpp"

#include "queue/send_rate.hpp"

#include <algorithm>
#include <queue>
#include <thread>
#include <unordered_map>
#include <utility>
#include <vector>

#include "queue/daily_cap.hpp"
#include "queue/in_flight_window.hpp"
#include "queue/rate_limiter.hpp"
#include "queue/retry_policy.hpp"
#include "service/requests.hpp"

namespace queue {

namespace {

using Steady = std::chrono::steady_clock::time_point;
using std::chrono::microseconds;
using std::chrono::milliseconds;

constexpr milliseconds k_max_wait{100};  // how quickly a stop request is noticed
constexpr microseconds k_min_wait{20};   // no busy loop if a computed wake-up is already past
// The longest an answer may wait unread for a start that is due anyway (Wait::whole): the
// interval of 250 requests/s, about where a second wake-up per request starts to cost. The
// log's latency of such an answer includes the wait.
constexpr microseconds k_hold_answers{4000};

struct InFlight {
    Job job;
    Steady started;
};

struct Waiting {
    Steady due;
    std::uint64_t seq;   // FIFO among equal due times
    Job job;
    bool operator>(const Waiting& other) const {
        return due != other.due ? due > other.due : seq > other.seq;
    }
};

class Dispatcher {
public:
    Dispatcher(JobSource& source, const DispatchSettings& settings, const DispatchParts& parts)
        : m_source(source), m_settings(settings), m_parts(parts),
          m_window(settings.max_concurrency, parts.limiter->burst()) {}

    DispatchResult run();

private:
    std::size_t in_flight_limit() const;
    int gather_count() const;
    bool startable_now(Steady now, std::optional<Steady>& wake);
    bool take(Steady now, Job& out);
    bool start_one(Steady now);
    void handle(service::Completion completion, Steady now);
    void finish(const Job& job, JobStatus status, const service::Outcome& outcome, milliseconds latency);
    void stop(StopReason reason, std::string message);
    void abandon_in_flight();
    bool source_exhausted();
    void report_progress(Steady now);
    bool cap_blocked(std::chrono::system_clock::time_point wall, std::optional<Steady>& wake, Steady now);
    bool gate_closed(std::chrono::system_clock::time_point wall, std::optional<Steady>& wake, Steady now);
    void announce_pause();

    JobSource& m_source;
    const DispatchSettings& m_settings;
    DispatchParts m_parts;
    InFlightWindow m_window;  // used with concurrency auto
    std::unordered_map<std::uint64_t, InFlight> m_in_flight;
    std::priority_queue<Waiting, std::vector<Waiting>, std::greater<>> m_waiting;
    std::optional<Job> m_peeked;
    bool m_exhausted = false;
    long long m_taken = 0;
    std::uint64_t m_next_id = 1;
    std::uint64_t m_seq = 0;
    int m_consecutive_failures = 0;
    bool m_stopping = false;
    Steady m_stop_deadline{};
    DispatchResult m_result;
    SendRate m_send_rate;
    Steady m_next_progress{};
    std::string m_pause_reason;
    std::optional<std::chrono::system_clock::time_point> m_paused_until;
    std::optional<std::pair<std::string, std::optional<std::chrono::system_clock::time_point>>> m_announced;
};

bool Dispatcher::source_exhausted() {
    if (m_peeked || m_exhausted) {
        return m_exhausted && !m_peeked;
    }
    Job job;
    if (m_source.next(job)) {
        m_peeked = std::move(job);
        return false;
    }
    m_exhausted = true;
    return true;
}

bool Dispatcher::cap_blocked(std::chrono::system_clock::time_point wall, std::optional<Steady>& wake, Steady now) {
    DailyCap* cap = m_parts.daily_cap;
    if (cap == nullptr) {
        return false;
    }
    long long used = cap->sent_in_window(wall) + static_cast<long long>(m_in_flight.size());
    if (used < cap->per_day()) {
        return false;
    }
    auto until = cap->blocked_until(wall);
    if (until) {
        // Only then is it a pause; before, requests in flight hold the last slots and may
        // still fail and give them back.
        m_pause_reason = "daily cap reached";
        m_paused_until = until;
        announce_pause();
    }
    // Re-check at least every second: in-flight requests may end without a send.
    auto step = until ? std::min<std::chrono::system_clock::duration>(*until - wall, std::chrono::seconds(1))
                      : std::chrono::system_clock::duration(std::chrono::seconds(1));
    wake = now + std::chrono::duration_cast<Steady::duration>(step);
    return true;
}

bool Dispatcher::gate_closed(std::chrono::system_clock::time_point wall, std::optional<Steady>& wake, Steady now) {
    if (m_parts.gate == nullptr) {
        return false;
    }
    auto until = m_parts.gate->closed_until(wall);
    if (!until) {
        return false;
    }
    m_pause_reason = m_parts.gate->reason();
    m_paused_until = *until == std::chrono::system_clock::time_point::max() ? std::nullopt : until;
    announce_pause();
    // Wake at the opening, re-checking every second meanwhile: the wall clock may be set.
    auto step = std::min<std::chrono::system_clock::duration>(*until - wall, std::chrono::seconds(1));
    wake = now + std::chrono::duration_cast<Steady::duration>(step);
    return true;
}

// Tells the observer once per wait (the checks above repeat while it lasts).
void Dispatcher::announce_pause() {
    if (m_announced && m_announced->first == m_pause_reason && m_announced->second == m_paused_until) {
        return;
    }
    m_announced.emplace(m_pause_reason, m_paused_until);
    Progress p = m_result.progress;
    p.started = m_taken;
    p.in_flight = m_in_flight.size();
    p.in_flight_limit = in_flight_limit();
    p.pause_reason = m_pause_reason;
    p.paused_until = m_paused_until;
    m_parts.observer->on_pause(p);
}

std::size_t Dispatcher::in_flight_limit() const {
    if (m_settings.concurrency) {
        return static_cast<std::size_t>(std::max(*m_settings.concurrency, 1));
    }
    return static_cast<std::size_t>(m_window.limit(m_parts.limiter->current_rate()));
}

// How many starts to gather into one wake-up while the rate holds them back. With a burst the
// limiter lets several start together without losing any of the rate, so one wake-up can serve
// them: half the burst plus one (a wake-up late by the other half's intervals still loses
// nothing), no more than the in-flight limit has room for, and no more than fit in
// k_hold_answers (the answers of the last batch wait unread until the next).
int Dispatcher::gather_count() const {
    const std::size_t limit = in_flight_limit();
    const auto room = static_cast<long long>(limit > m_in_flight.size() ? limit - m_in_flight.size() : 1);
    const long long fit = std::max<long long>(1, k_hold_answers / m_parts.limiter->interval());
    return static_cast<int>(std::clamp<long long>(1 + m_parts.limiter->burst() / 2, 1, std::min(room, fit)));
}

// Whether a job could start now; otherwise `wake` says when it might.
bool Dispatcher::startable_now(Steady now, std::optional<Steady>& wake) {
    if (m_in_flight.size() >= in_flight_limit()) {
        return false;
    }
    bool retry_due = !m_waiting.empty() && m_waiting.top().due <= now;
    bool fresh = !(m_settings.limit > 0 && m_taken >= m_settings.limit) && !source_exhausted();
    if (!retry_due && !fresh) {
        if (!m_waiting.empty()) {
            wake = m_waiting.top().due;
        }
        return false;
    }
    if (gate_closed(m_parts.clock->wall_now(), wake, now) || cap_blocked(m_parts.clock->wall_now(), wake, now)) {
        return false;
    }
    Steady allowed = m_parts.limiter->next_allowed(now);
    if (allowed > now) {
        wake = m_parts.limiter->next_allowed(now, gather_count());
        if (auto pause = m_parts.limiter->paused_until(now)) {
            m_pause_reason = "rate limited by the service";
            m_paused_until = m_parts.clock->wall_now() + (*pause - now);
        }
        return false;
    }
    m_pause_reason.clear();
    m_paused_until.reset();
    m_announced.reset();
    return true;
}

bool Dispatcher::take(Steady now, Job& out) {
    if (!m_waiting.empty() && m_waiting.top().due <= now) {
        out = m_waiting.top().job;
        m_waiting.pop();
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

bool Dispatcher::start_one(Steady now) {
    std::optional<Steady> wake;
    if (!startable_now(now, wake) || !m_parts.limiter->try_acquire(now)) {
        return false;
    }
    Job job;
    if (!take(now, job)) {
        return false;
    }
    ++job.requests;
    ++job.attempts;
    if (auto logged = m_parts.observer->on_attempt(job); !logged) {
        stop(StopReason::log_error, logged.error().message);
        return false;
    }
    std::uint64_t id = m_next_id++;
    m_parts.transport->start(id, service::send_message_request(*m_parts.service, job.body));
    m_in_flight.emplace(id, InFlight{std::move(job), now});
    return true;
}

void Dispatcher::finish(const Job& job, JobStatus status, const service::Outcome& outcome, milliseconds latency) {
    if (status == JobStatus::sent) {
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

void Dispatcher::stop(StopReason reason, std::string message) {
    if (m_stopping) {
        return;
    }
    m_stopping = true;
    m_stop_deadline = m_parts.clock->steady_now() + m_settings.stop_grace;
    m_result.reason = reason;
    m_result.message = std::move(message);
}

void Dispatcher::handle(service::Completion completion, Steady now) {
    auto it = m_in_flight.find(completion.id);
    if (it == m_in_flight.end()) {
        return;
    }
    InFlight flight = std::move(it->second);
    m_in_flight.erase(it);
    m_window.on_answer(completion.latency);
    Job& job = flight.job;
    const service::Outcome outcome = service::classify(completion, m_parts.clock->wall_now());
    const milliseconds latency = completion.latency;

    switch (outcome.cause) {
    case service::Cause::none:
        m_parts.limiter->on_success(now);
        m_consecutive_failures = 0;
        m_send_rate.add(now);
        if (m_parts.daily_cap != nullptr) {
            m_parts.daily_cap->record(m_parts.clock->wall_now());
        }
        finish(job, JobStatus::sent, outcome, latency);
        return;
    case service::Cause::rate_limited:
        // Not processed by the service: it goes again, and does not count as an attempt.
        m_parts.limiter->on_throttled(now, outcome.retry_after, flight.started);
        --job.attempts;
        finish(job, JobStatus::retrying, outcome, latency);
        m_waiting.push({now, m_seq++, std::move(job)});
        return;
    case service::Cause::auth:
    case service::Cause::spam_limit:
        finish(job, JobStatus::failed, outcome, latency);
        stop(outcome.cause == service::Cause::auth ? StopReason::auth : StopReason::spam_limit, outcome.error);
        return;
    case service::Cause::transient:
        ++m_consecutive_failures;
        if (outcome.ambiguous && m_settings.ambiguous == campaign::Ambiguous::hold) {
            finish(job, JobStatus::unknown, outcome, latency);
        } else if (m_parts.retry->may_retry(job.attempts) && !m_stopping) {
            finish(job, JobStatus::retrying, outcome, latency);
            m_waiting.push({now + m_parts.retry->backoff(job.attempts), m_seq++, std::move(job)});
        } else {
            finish(job, JobStatus::failed, outcome, latency);
        }
        break;
    case service::Cause::rejected:
        ++m_consecutive_failures;
        finish(job, JobStatus::failed, outcome, latency);
        break;
    }
    if (m_settings.max_consecutive_failures > 0 && m_consecutive_failures >= m_settings.max_consecutive_failures) {
        stop(StopReason::failure_threshold,
             "the last " + std::to_string(m_consecutive_failures) + " requests failed; last error: " + outcome.error);
    }
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
        if (m_stopping && (m_in_flight.empty() || now >= m_stop_deadline)) {
            abandon_in_flight();
            break;
        }
        if (!m_stopping) {
            while (start_one(now)) {
            }
            if (m_in_flight.empty() && m_waiting.empty() &&
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
            stop(StopReason::log_error, flushed.error().message);
            abandon_in_flight();
            break;
        }
        for (auto& completion : m_parts.transport->poll(wait, mode)) {
            handle(std::move(completion), m_parts.clock->steady_now());
        }
    }
    if (auto flushed = m_parts.observer->flush(); !flushed && m_result.reason != StopReason::log_error) {
        m_result.reason = StopReason::log_error;
        m_result.message = flushed.error().message;
    }
    report_progress(m_parts.clock->steady_now());
    return m_result;
}

} // namespace

std::string_view to_string(StopReason reason) {
    switch (reason) {
    case StopReason::completed: return "completed";
    case StopReason::limit: return "limit";
    case StopReason::auth: return "auth";
    case StopReason::spam_limit: return "spam_limit";
    case StopReason::failure_threshold: return "failure_threshold";
    case StopReason::interrupted: return "interrupted";
    case StopReason::log_error: return "log_error";
    case StopReason::input_error: return "input_error";
    }
    return "completed";
}

DispatchResult dispatch(JobSource& source, const DispatchSettings& settings, const DispatchParts& parts) {
    return Dispatcher(source, settings, parts).run();
}

} // namespace queue
