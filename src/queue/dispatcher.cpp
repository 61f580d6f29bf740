// The send loop: the admission of jobs, their starts, and the loop itself (the answers are in
// dispatcher_answers.cpp; the class in dispatch_loop.hpp).
#include "queue/dispatcher.hpp"

#include "queue/dispatch_loop.hpp"
#include "queue/side_request.hpp"

namespace queue {

namespace detail {

// Why `answer` stops the run rather than refusing one job: the campaign is too late
// (queue::Deadline), the job's price would pass the budget, or a step found the run must end
// (Refusal::stop); nothing when it does not.
std::optional<StopReason> stops_run(const Admission& answer) {
    const Admission::Never* never = answer.never();
    if (never == nullptr) {
        return std::nullopt;
    }
    switch (never->refusal) {
    case Admission::Refusal::too_late: return StopReason::too_late;
    case Admission::Refusal::budget: return StopReason::budget;
    case Admission::Refusal::stop: return never->stop_reason;
    case Admission::Refusal::frequency_cap:
    case Admission::Refusal::suppressed:
    case Admission::Refusal::marketing_limit:
    case Admission::Refusal::ledger_sent:
    case Admission::Refusal::ledger_reserved: break;
    }
    return std::nullopt;
}

// Why a flush of the observer failed: the ledger (ErrorKind::ledger) or else the log.
StopReason flush_failure(const util::Error& error) {
    return error.kind == util::ErrorKind::ledger ? StopReason::ledger_error : StopReason::log_error;
}

// ---- Admission and starts -------------------------------------------------------------------

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
    const auto room = static_cast<long long>(limit > busy() ? limit - busy() : 1);
    const long long fit = std::max<long long>(1, k_hold_answers / m_parts.limiter->interval());
    return static_cast<int>(std::clamp<long long>(1 + m_parts.limiter->burst() / 2, 1, std::min(room, fit)));
}

std::size_t Dispatcher::ask_ahead() const {
    const double rate = m_parts.limiter->current_rate();
    if (m_settings.ask_ahead.count() <= 0 || m_parts.pace != nullptr || std::isinf(rate) || m_steps.size() < 2) {
        return 0;
    }
    const double jobs = rate * std::chrono::duration<double>(m_settings.ask_ahead).count();
    return static_cast<std::size_t>(std::clamp(jobs, 0.0, static_cast<double>(k_max_batch)));
}

std::size_t Dispatcher::room_now(Steady now, std::optional<Steady>& wake) {
    const std::size_t limit = in_flight_limit();
    if (busy() >= limit) {
        return 0;
    }
    const bool retry_due = !m_waiting.empty() && m_waiting.top().due <= now;
    const bool fresh = !m_pending.empty() || (!limit_reached() && !source_exhausted());
    std::optional<Steady> aside_wake;
    const bool reopened = aside_due(now, aside_wake);
    if (!retry_due && !fresh && !reopened) {
        if (!m_waiting.empty()) {
            wake = m_waiting.top().due;
        }
        if (aside_wake && (!wake || *aside_wake < *wake)) {
            wake = aside_wake;
        }
        return 0;
    }
    std::size_t room = std::min(limit - busy(), k_max_batch);
    if (held_back(Instant{now, m_parts.clock->wall_now()}, room, wake)) {
        return 0;
    }
    if (m_parts.limiter->next_allowed(now) > now) {
        wake = m_parts.limiter->next_allowed(now, gather_count());
        if (auto pause = m_parts.limiter->paused_until(now)) {
            show(Admission::Later{.until = m_parts.clock->wall_now() + (*pause - now),
                                  .reason = "rate limited by the service"});
        }
        return 0;
    }
    // A step's reason lasts until it admits a job (ask): asking again is no end of the wait.
    if (std::none_of(m_steps.begin(), m_steps.end(),
                     [](const Step& s) { return s.block && !s.block->reason.empty(); })) {
        clear_pause();
    }
    return conforming(now, room);
}

bool Dispatcher::held_back(Instant at, std::size_t& room, std::optional<Steady>& wake) {
    for (auto& step : m_steps) {
        if (step.block && at.steady < step.block->retry_at) {
            show(*step.block);
            wake = step.block->retry_at;
            return true;
        }
        Admission why;
        const std::size_t step_room = step.admitter->room(at, why);
        if (step_room == 0) {
            no_room(step.admitter, why, at.steady, wake);
            return true;
        }
        room = std::min(room, step_room);
    }
    return false;
}

void Dispatcher::no_room(const Admitter* step, const Admission& why, Steady now, std::optional<Steady>& wake) {
    if (const auto reason = stops_run(why)) {
        stop(*reason, why.never()->reason);
        return;
    }
    const Admission::Later* later = why.later();
    if (later == nullptr) {
        wake = now;  // no wait named: asked again at once
        return;
    }
    if (passes_over(step)) {
        end_not_waiting(*later);
        return;
    }
    show(*later);
    wake = later->retry_at;
}

std::size_t Dispatcher::conforming(Steady now, std::size_t room) const {
    if (std::isinf(m_parts.limiter->current_rate())) {
        return room;  // unlimited: no pacing until the service throttles
    }
    // The local limiter lets them all start together (at most 1 + burst).
    const std::size_t most = std::min(room, static_cast<std::size_t>(m_parts.limiter->burst()) + 1);
    std::size_t n = 0;
    while (n < most && m_parts.limiter->next_allowed(now, static_cast<int>(n) + 1) <= now) {
        ++n;
    }
    return n;
}

bool Dispatcher::take(Steady now, Job& out) {
    if (!m_waiting.empty() && m_waiting.top().due <= now) {
        out = m_waiting.top().job;
        m_waiting.pop();
        return true;
    }
    // Rows whose window opened were read before any fresh one: they go first, lowest row first.
    if (!m_aside.empty()) {
        auto taken = m_aside.take_due(m_parts.clock->wall_now(), out);
        if (!taken) {
            stop(StopReason::temp_file_error,
                 "cannot take back the rows waiting for their recipients' send windows: " + taken.error().message);
            return false;
        }
        if (*taken) {
            return true;
        }
    }
    if (limit_reached() || source_exhausted()) {
        return false;
    }
    out = std::move(*m_peeked);
    m_peeked.reset();
    ++m_taken;
    return true;
}

bool Dispatcher::start_batch(Steady now) {
    std::optional<Steady> wake;
    const std::size_t room = room_now(now, wake);
    if (room == 0) {
        return false;
    }
    m_turn.batch.clear();
    while (m_turn.batch.size() < room && !m_pending.empty()) {
        m_turn.batch.push_back(std::move(m_pending.front()));
        m_pending.pop_front();
        Pending& pending = m_turn.batch.back();
        pending.state = Pending::State::asking;
        if (m_parts.clock->steady_now() > pending.use_by) {
            // What admitted it no longer holds (its recipient's window closed meanwhile, its
            // reservation is too old): the steps that admitted it let it go and are asked again.
            let_go(pending.job, pending.step);
            pending.step = 0;
            pending.use_by = SteadyTime::max();
        }
    }
    Job job;
    // With nothing waiting at the pace, the jobs of the span asked ahead join the turn: those
    // that may not start now wait at the pace (requeue), in order, admitted by the steps before.
    const std::size_t wanted = m_pending.empty() ? std::max(room, ask_ahead()) : room;
    while (m_turn.batch.size() < wanted && take(now, job)) {
        m_turn.batch.push_back(Pending{std::move(job), 0, Pending::State::asking});
    }
    if (m_turn.batch.empty()) {
        return false;
    }
    m_turn.use_by = Steady::max();
    m_turn.reached = 0;
    m_turn.room = room;
    for (std::size_t k = 0; k < m_steps.size(); ++k) {
        if (!ask(k, now)) {
            requeue();  // stopped: nothing of the turn leaves; what the steps hold is given back
            return false;
        }
    }
    const std::size_t started = start_admitted();
    requeue();
    if (m_turn.reached == 0) {
        return !m_stopping;  // all refused or waiting before the pace: look again
    }
    return started > 0 && !m_stopping;
}

bool Dispatcher::ask(std::size_t k, Steady now) {
    m_turn.asked.clear();
    m_turn.asked_at.clear();
    const bool pace = k + 1 == m_steps.size();
    for (std::size_t i = 0; i < m_turn.batch.size(); ++i) {
        Pending& pending = m_turn.batch[i];
        if (pending.state != Pending::State::asking || pending.step != k) {
            continue;
        }
        if (pace && m_turn.asked.size() == m_turn.room) {
            // Asked ahead (DispatchSettings::ask_ahead): it waits for its slot, first in line,
            // and the pace is asked only about the jobs that may start now.
            pending.state = Pending::State::waiting;
            continue;
        }
        m_turn.asked.push_back(&pending.job);
        m_turn.asked_at.push_back(i);
    }
    if (m_turn.asked.empty()) {
        return true;
    }
    if (pace) {
        m_turn.reached = m_turn.asked.size();
    }
    // Asked at the time of asking: an earlier step (the ledger) may have taken a while.
    const Instant at{m_parts.clock->steady_now(), m_parts.clock->wall_now()};
    Step& step = m_steps[k];
    if (auto answered = step.admitter->admit(m_turn.asked, at, m_turn.answers); !answered) {
        // Only the ledger fails to answer. Nothing of the turn left; its rows stay as they were.
        stop(StopReason::ledger_error, answered.error().message);
        return false;
    }
    if (m_turn.answers.size() < m_turn.asked.size()) {
        m_turn.answers.resize(m_turn.asked.size());  // a job left unanswered may start
    }
    bool admitted = false;
    const Admission::Later* later = nullptr;
    for (std::size_t j = 0; j < m_turn.asked_at.size() && !m_stopping; ++j) {
        Pending& pending = m_turn.batch[m_turn.asked_at[j]];
        const Admission& answer = m_turn.answers[j];
        if (const auto* start = answer.now()) {
            ++pending.step;
            admitted = true;
            m_turn.use_by = std::min(m_turn.use_by, start->use_by);
            if (k + 1 < m_steps.size()) {
                pending.use_by = std::min(pending.use_by, start->use_by);
            }
        } else if (const auto* wait = answer.later()) {
            if (wait->set_aside) {
                pending.state = Pending::State::set_aside;
                if (passes_over(step.admitter)) {
                    pass_over(pending.job, *wait, k);
                } else {
                    set_aside(pending.job, *wait, k);
                }
            } else {
                if (passes_over(step.admitter)) {
                    end_not_waiting(*wait);
                }
                pending.state = Pending::State::waiting;
                later = later != nullptr ? later : wait;
                if (k > 0 && wait->retry_at > pending.use_by) {
                    // It waits past what the steps before admitted it for (a reservation's
                    // use-by time): they let it go now, and are asked again when it comes back.
                    let_go(pending.job, k);
                    pending.step = 0;
                    pending.use_by = SteadyTime::max();
                }
            }
        } else {
            pending.state = Pending::State::refused;
            if (const auto reason = stops_run(answer)) {
                let_go(pending.job, k);                 // what the steps before hold for it is given back
                stop(*reason, answer.never()->reason);  // the job is not recorded: it stays to resume
            } else {
                refuse(pending.job, *answer.never(), k);
            }
        }
    }
    note_answer(step, admitted, later, now);
    return !m_stopping;
}

void Dispatcher::note_answer(Step& step, bool admitted, const Admission::Later* later, Steady now) {
    if (admitted && step.block && !step.block->reason.empty()) {
        clear_pause();  // the wait it named is over
    }
    if (later == nullptr) {
        step.block.reset();
        return;
    }
    step.block = *later;
    step.block->retry_at = std::max(later->retry_at, now);
}

std::size_t Dispatcher::start_admitted() {
    std::size_t started = 0;
    for (auto& pending : m_turn.batch) {
        if (pending.state != Pending::State::asking || pending.step < m_steps.size()) {
            continue;
        }
        if (m_stopping) {
            break;
        }
        // A grant is a start time, not a permission: a slot unused by its use-by time is
        // dropped (its time has passed; used late it could break the account's bound) and
        // asked for again at once.
        if (m_parts.clock->steady_now() > m_turn.use_by) {
            pending.step = m_steps.size() - 1;  // the pace's slot; an earlier step's lapse: start_batch
            pending.state = Pending::State::waiting;
            continue;
        }
        // With a shared pace the local limiter bounds the starts too, whatever the store grants:
        // each takes its local slot at the time it starts, not at the turn's start (the store's
        // answer, a slow log write, the process held up may come between), and one refused
        // waits for its slot, first in line; its shared slot is dropped.
        const Steady start = m_parts.clock->steady_now();
        if (m_parts.pace != nullptr && !m_parts.limiter->try_acquire(start)) {
            pending.step = m_steps.size() - 1;
            pending.state = Pending::State::waiting;
            continue;
        }
        pending.state = Pending::State::started;
        if (!launch(std::move(pending.job), start)) {
            break;
        }
        ++started;
    }
    return started;
}

void Dispatcher::requeue() {
    for (auto it = m_turn.batch.rbegin(); it != m_turn.batch.rend(); ++it) {
        // Once stopping, the jobs not started (asking) stay too, for withdraw_pending.
        if (it->state == Pending::State::waiting || (m_stopping && it->state == Pending::State::asking)) {
            m_pending.push_front(std::move(*it));
        }
    }
}

void Dispatcher::let_go(const Job& job, std::size_t k) {
    const Instant at{m_parts.clock->steady_now(), m_parts.clock->wall_now()};
    const Job* const one[] = {&job};
    for (std::size_t j = 0; j < k; ++j) {
        m_steps[j].admitter->withdraw(one);
        m_steps[j].admitter->settle(1, 0, at);
    }
}

bool Dispatcher::set_aside(const Job& job, const Admission::Later& answer, std::size_t k) {
    let_go(job, k);  // asked again from the first step when it comes back
    if (auto kept = m_aside.put(job, answer); !kept) {
        // No request left and nothing was recorded: the row stays as it was, for a resume.
        stop(StopReason::temp_file_error,
             "cannot keep the rows waiting for their recipients' send windows: " + kept.error().message);
        return false;
    }
    return true;
}

bool Dispatcher::passes_over(const Admitter* step) const {
    return m_settings.when_closed == WhenClosed::pass_over && step != nullptr && step->passable();
}

void Dispatcher::pass_over(const Job& job, const Admission::Later& answer, std::size_t k) {
    let_go(job, k);
    --m_taken;  // taken back: it does not count toward the limit
    ++m_result.passed_over;
    if (answer.until && (!m_result.passed_over_until || *answer.until < *m_result.passed_over_until)) {
        m_result.passed_over_until = answer.until;
    }
    // Not recorded: the log does not hold it, so a later run sends it.
}

void Dispatcher::end_not_waiting(const Admission::Later& why) {
    if (m_stopping) {
        return;
    }
    m_result.not_waited = why;
    if (m_result.not_waited->reason.empty()) {
        // The daily cap before its room is known for sure (requests in flight hold the last of it).
        m_result.not_waited->reason = "daily cap reached";
    }
    std::string message = m_result.not_waited->reason;
    if (why.until) {
        message += " until " + util::format_timestamp(*why.until);
    }
    stop(StopReason::limit, message + ": a test send (--limit) does not wait; the rest is left for a later run");
}

void Dispatcher::withdraw_pending() {
    const Instant at{m_parts.clock->steady_now(), m_parts.clock->wall_now()};
    for (std::size_t k = 0; k + 1 < m_steps.size(); ++k) {
        std::vector<const Job*> admitted;
        for (const auto& pending : m_pending) {
            if (pending.step > k) {
                admitted.push_back(&pending.job);
            }
        }
        if (!admitted.empty()) {
            m_steps[k].admitter->withdraw(admitted);
            m_steps[k].admitter->settle(admitted.size(), 0, at);
        }
    }
    m_pending.clear();
}

bool Dispatcher::aside_due(Steady now, std::optional<Steady>& wake) {
    if (m_aside.empty()) {
        return false;
    }
    const WallTime wall = m_parts.clock->wall_now();
    const auto opening = m_aside.next_opening();
    if (opening && *opening <= wall) {
        return true;
    }
    // Looked at again at the opening, and every second meanwhile: the wall clock may be set.
    Admission::Later why = later_until(Instant{now, wall}, opening, std::chrono::seconds(1));
    wake = why.retry_at;
    // Shown only while nothing else is left to do.
    if (!m_in_flight.empty() || !m_pending.empty() || !(limit_reached() || source_exhausted())) {
        return false;
    }
    if (const auto waits = m_aside.waits(); !waits.empty()) {
        why.notice = true;
        why.reason = fmt::format("{} row{} wait for their recipients' send windows; next: {} ({} row{})",
                                 m_aside.size(), m_aside.size() == 1 ? "" : "s", waits.front().reason,
                                 waits.front().rows, waits.front().rows == 1 ? "" : "s");
        show(why);
    }
    return false;
}

void Dispatcher::refuse(const Job& job, const Admission::Never& answer, std::size_t k) {
    let_go(job, k);
    if (auto logged = m_parts.observer->on_refused(job, answer); !logged) {
        stop(StopReason::log_error, logged.error().message);
    }
}

void Dispatcher::settle_steps() {
    if (m_ended == 0) {
        return;
    }
    const Instant at{m_parts.clock->steady_now(), m_parts.clock->wall_now()};
    for (auto& step : m_steps) {
        step.admitter->settle(m_ended, m_ended_sent, at);
    }
    m_ended = 0;
    m_ended_sent = 0;
}

void Dispatcher::show(const Admission::Later& why) {
    if (why.reason.empty()) {
        return;  // only pacing: no pause to show
    }
    m_pause = why;
    if (why.notice) {
        announce_pause();
    }
}

void Dispatcher::clear_pause() {
    m_pause.reset();
    m_announced.reset();
}

// Tells the observer once per wait (the checks repeat while it lasts).
void Dispatcher::announce_pause() {
    if (m_announced && m_announced->reason == m_pause->reason && m_announced->until == m_pause->until) {
        return;
    }
    m_announced = m_pause;
    Progress p = m_result.progress;
    p.started = m_taken;
    p.in_flight = m_in_flight.size();
    p.in_flight_limit = in_flight_limit();
    p.pause_reason = m_pause->reason;
    p.paused_until = m_pause->until;
    m_parts.observer->on_pause(p);
}

// ---- The loop ---------------------------------------------------------------------------------

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

bool Dispatcher::launch(Job job, Steady now) {
    ++job.requests;
    ++job.attempts;
    if (auto logged = m_parts.observer->on_attempt(job); !logged) {
        stop(StopReason::log_error, logged.error().message);
        return false;
    }
    std::uint64_t id = m_next_id++;
    if (m_parts.service == nullptr) {
        m_parts.transport->start(id, service::HttpRequest{});  // a simulation's transport reads no request
    } else {
        m_parts.transport->start(id, job.template_send ? service::send_template_request(*m_parts.service, job.body)
                                                       : service::send_message_request(*m_parts.service, job.body));
    }
    m_in_flight.emplace(id, InFlight{std::move(job), now});
    m_unpolled.push_back(id);
    if (!m_sent_any) {
        m_sent_any = true;  // this run has started sending: schedule.max_delay is met
        for (auto& step : m_steps) {
            step.admitter->first_sent();
        }
    }
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
    p.set_aside = m_aside.size();
    p.next_opening = m_aside.next_opening();
    p.rate_in_force = m_parts.limiter->current_rate();
    p.achieved_rate = m_send_rate.per_second(now);
    p.paused_until = m_pause ? m_pause->until : std::nullopt;
    p.pause_reason = m_pause ? m_pause->reason : std::string();
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
            if (!m_stopping && m_in_flight.empty() && m_waiting.empty() && m_pending.empty() && m_aside.empty() &&
                (limit_reached() || source_exhausted())) {
                // Rows passed over are left for a later run: the campaign is not complete.
                m_result.reason =
                    source_exhausted() && m_result.passed_over == 0 ? StopReason::completed : StopReason::limit;
                break;
            }
        }
        if (now >= m_next_progress) {
            report_progress(now);
            m_next_progress = now + m_settings.progress_interval;
        }
        std::optional<Steady> wake;
        Steady until = std::min(m_next_progress, now + k_max_wait);
        start_side(now, until);
        bool start_due = false;  // a start is scheduled at `until`
        if (!m_stopping && room_now(now, wake) == 0 && wake && *wake <= until) {
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
        settle_steps();
    }
    // A log that failed stops the run whatever else did; a second failure of the same kind keeps
    // the first message.
    if (auto flushed = m_parts.observer->flush();
        !flushed && m_result.reason != StopReason::log_error && m_result.reason != flush_failure(flushed.error())) {
        m_result.reason = flush_failure(flushed.error());
        m_result.message = flushed.error().message;
    }
    withdraw_pending();
    note_source_error();
    m_result.waiting = m_aside.waits();
    report_progress(m_parts.clock->steady_now());
    return m_result;
}

}  // namespace detail

DispatchResult dispatch(JobSource& source, const DispatchSettings& settings, const DispatchParts& parts) {
    return detail::Dispatcher(source, settings, parts).run();
}

}  // namespace queue
