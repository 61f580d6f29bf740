#pragma once
// The send loop's state (queue::dispatch, dispatcher.hpp) as one class, Dispatcher: it takes
// jobs, asks the admission steps whether they may start (one call per step and turn, for every
// job of the turn), starts those every step admitted, and handles the answers: what each cause
// does to its row and to the queue (docs/decisions.md "The wire" and "Meta's answers").
// Internal to queue/: dispatcher.cpp holds the admission, the starts and the loop,
// dispatcher_answers.cpp the answers.

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <deque>
#include <queue>
#include <unordered_map>
#include <utility>
#include <vector>

#include "queue/admission.hpp"
#include "queue/dispatcher.hpp"
#include "queue/in_flight_window.hpp"
#include "queue/pace.hpp"
#include "queue/rate_limiter.hpp"
#include "queue/retry_policy.hpp"
#include "queue/send_rate.hpp"
#include "queue/set_aside.hpp"
#include "queue/side_request.hpp"
#include "service/requests.hpp"
#include "util/time.hpp"

namespace queue::detail {

using Steady = SteadyTime;
using std::chrono::microseconds;
using std::chrono::milliseconds;

constexpr milliseconds k_max_wait{100};  // how quickly a stop request is noticed
constexpr microseconds k_min_wait{20};   // no busy loop if a computed wake-up is already past
// The longest an answer may wait unread for a start that is due anyway (Wait::whole): the
// interval of 250 requests/s, about where a second wake-up per request starts to cost. The
// log's latency of such an answer includes the wait.
constexpr microseconds k_hold_answers{4000};
// The most jobs one turn admits: one call to each step (one ledger transaction) for them all.
constexpr std::size_t k_max_batch = 256;

struct InFlight {
    Job job;
    Steady started;
};

struct Waiting {
    Steady due;
    std::uint64_t seq;  // FIFO among equal due times
    Job job;
    bool operator>(const Waiting& other) const { return due != other.due ? due > other.due : seq > other.seq; }
};

// A job taken but not started: the admission steps before `step` admitted it and are not asked
// again (a reservation is not made twice) — unless the earliest use-by time of their answers
// (a recipient's window closing, the deadline) passes first: then it is asked from the first
// step again. Between turns it waits first in line.
struct Pending {
    enum class State { asking, waiting, refused, set_aside, started };
    Job job;
    std::size_t step = 0;
    State state = State::asking;            // within a turn
    SteadyTime use_by = SteadyTime::max();  // of the answers of the steps before the pace
};

// An admission step and the `later` it answered last: it is not asked again before
// block->retry_at, and the block's reason stands until the step admits a job again.
struct Step {
    Admitter* admitter = nullptr;
    std::optional<Admission::Later> block;
};

// One turn of admission: its jobs, those asked of a step and the answers (kept from turn to turn
// to spare allocations), the earliest use-by time of the jobs admitted, and how many jobs the
// last step was asked about.
struct Turn {
    std::vector<Pending> batch;
    std::vector<const Job*> asked;
    std::vector<std::size_t> asked_at;  // their places in `batch`
    std::vector<Admission> answers;
    SteadyTime use_by{};
    std::size_t reached = 0;
    std::size_t room = 0;  // how many may start now: the pace is asked about no more (ask_ahead)
};

// The stop of a cause that ends the campaign at once; nothing for the others.
std::optional<StopReason> stop_reason_of(service::Cause cause);

// Why `answer` stops the run rather than refusing one job: the campaign is too late
// (queue::Deadline), the job's price would pass the budget, or a step found the run must end
// (Refusal::stop); nothing when it does not.
std::optional<StopReason> stops_run(const Admission& answer);

// Why a flush of the observer failed: the ledger (ErrorKind::ledger) or else the log.
StopReason flush_failure(const util::Error& error);

class Dispatcher {
public:
    Dispatcher(JobSource& source, const DispatchSettings& settings, const DispatchParts& parts)
        : m_source(source),
          m_settings(settings),
          m_parts(parts),
          m_window(settings.max_concurrency, parts.limiter->burst()) {
        // The steps in the order given, then the pace (always the last: its grant is the start).
        for (Admitter* step : parts.steps) {
            if (step != nullptr) {
                m_steps.push_back({step, std::nullopt});
            }
        }
        m_steps.push_back({parts.pace != nullptr ? static_cast<Admitter*>(parts.pace) : parts.limiter, std::nullopt});
    }

    DispatchResult run();

private:
    // Admission and starts.
    std::size_t in_flight_limit() const;
    int gather_count() const;
    // How many jobs a turn takes when none waits at the pace: those of DispatchSettings::ask_ahead
    // at the rate in force; 0 when the steps are not asked ahead.
    std::size_t ask_ahead() const;
    // How many jobs may start now; 0 when none may, and then `wake` says when one might.
    std::size_t room_now(Steady now, std::optional<Steady>& wake);
    // Whether an admission step holds every job back at `at` (showing why); else narrows `room`
    // to what the steps allow.
    bool held_back(Instant at, std::size_t& room, std::optional<Steady>& wake);
    // What follows when `step` has no room at `now`, answering `why` for every job: the run
    // stops (a `never` that stops it), ends rather than wait (a test send passing over the step),
    // or waits as `why` says, showing it; `wake` says when to look again.
    void no_room(const Admitter* step, const Admission& why, Steady now, std::optional<Steady>& wake);
    // How many of `room` jobs the local limiter lets start together now.
    std::size_t conforming(Steady now, std::size_t room) const;
    bool limit_reached() const { return m_settings.limit > 0 && m_taken >= m_settings.limit; }
    bool take(Steady now, Job& out);
    // Takes the jobs that may start now (those waiting first in line first), asks the admission
    // steps about them in order and starts those every step admitted. Returns false when no
    // more may start this turn.
    bool start_batch(Steady now);
    // Asks step `k` about the jobs of the turn that reached it, one call for them all, and
    // applies its answers; false when the dispatch stops.
    bool ask(std::size_t k, Steady now);
    // Keeps `step`'s `later` of this turn (the first, when any); an admission ends its wait.
    void note_answer(Step& step, bool admitted, const Admission::Later* later, Steady now);
    // Starts the jobs of the turn every step admitted, each by its use-by time; returns how many.
    std::size_t start_admitted();
    // Puts the jobs of the turn still waiting for a step back first in line, in order.
    void requeue();
    // Sets `job` aside until its recipient's window opens (`answer`, of step `k`); the steps
    // before it admitted it. False when it cannot be kept (the dispatch stops).
    bool set_aside(const Job& job, const Admission::Later& answer, std::size_t k);
    // Whether a job set aside may be taken back at `now`, else when to look again (`wake`),
    // showing why the queue waits when nothing else can start.
    bool aside_due(Steady now, std::optional<Steady>& wake);
    // Tells the steps before `k`, which admitted `job`, that it ended unstarted on those answers:
    // what they hold for it (the ledger's reservation) is given back (Admitter::withdraw).
    void let_go(const Job& job, std::size_t k);
    // Records that step `k` refused `job` for good; the steps before it admitted it.
    void refuse(const Job& job, const Admission::Never& answer, std::size_t k);
    // Whether a wait that step `step` asks for is not waited (WhenClosed::pass_over: the send
    // window, the recipient's window, the day's room; never the pace).
    bool passes_over(const Admitter* step) const;
    // Passes a job over (its recipient's window is closed: `answer`, of step `k`): unrecorded,
    // not counted toward the limit, left for a later run.
    void pass_over(const Job& job, const Admission::Later& answer, std::size_t k);
    // Ends the run rather than wait as `why` says (the send window, the day's room).
    void end_not_waiting(const Admission::Later& why);
    // Gives back what the steps hold for the jobs taken but never started (a stop came first).
    void withdraw_pending();
    // Tells every step how the requests answered since the last call ended.
    void settle_steps();
    // Writes the job's attempt line and hands its request to the transport.
    bool launch(Job job, Steady now);
    // Starts the request off the send path (DispatchParts::side) when it is due and none is in
    // flight; narrows `until` to when the next one falls due.
    void start_side(Steady now, Steady& until);
    std::size_t busy() const { return m_in_flight.size(); }
    // Shows `why` as the queue's pause (when it has a reason), told once when it is news.
    void show(const Admission::Later& why);
    void clear_pause();
    void announce_pause();
    // Answers: what each cause does to the row and to the queue.
    void handle(service::Completion completion, Steady now);
    void note_throttle(const service::Outcome& outcome, Steady now);
    void on_sent(Job& job, const service::Outcome& outcome, milliseconds latency, Steady now);
    void on_transient(Job& job, const service::Outcome& outcome, milliseconds latency, Steady now);
    void on_pair_rate(Job& job, const service::Outcome& outcome, milliseconds latency, Steady now);
    void on_template_params(const Job& job, const service::Outcome& outcome, milliseconds latency);
    // What a person is told of a wrong-endpoint answer to `job`'s request, naming its URL.
    std::string wrong_endpoint(const Job& job, const service::Outcome& outcome) const;
    void finish(const Job& job, JobStatus status, const service::Outcome& outcome, milliseconds latency);
    void stop(StopReason reason, std::string message);
    void abandon_in_flight();
    // Finishes the requests started since the last poll as unknown (the log shows them so) and
    // counts them in never_left: the transport never sent them.
    void abandon_unsent();
    // Stops with `throttled` once every answer since `m_throttled_since` was a throttle for
    // longer than max_throttled (a Retry-After pause counts: no answer comes meanwhile).
    void check_throttled(Steady now);
    bool source_exhausted();
    // Turns an Error of the source into the stop reason (see JobSource::next).
    void note_source_error();
    void report_progress(Steady now);

    JobSource& m_source;
    const DispatchSettings& m_settings;
    DispatchParts m_parts;
    InFlightWindow m_window;    // used with concurrency auto
    std::vector<Step> m_steps;  // the admission steps, in order; the pace last
    std::unordered_map<std::uint64_t, InFlight> m_in_flight;
    std::vector<std::uint64_t> m_unpolled;  // started since the transport was last polled: not left yet
    std::priority_queue<Waiting, std::vector<Waiting>, std::greater<>> m_waiting;
    std::optional<Job> m_peeked;
    std::deque<Pending> m_pending;  // taken, admitted by some steps, waiting for the next: they go first
    SetAside m_aside;               // waiting for their recipients' windows (queue::ZoneWindows)
    Turn m_turn;
    std::size_t m_ended = 0;  // requests answered since the steps were last told (settle_steps)
    std::size_t m_ended_sent = 0;
    bool m_exhausted = false;
    std::optional<util::Error> m_source_error;  // why the source ended early
    long long m_taken = 0;
    std::uint64_t m_next_id = 1;
    std::uint64_t m_side_id = 0;  // the request off the send path in flight; 0: none
    bool m_sent_any = false;      // a request of this run has left (Admitter::first_sent)
    std::uint64_t m_seq = 0;
    int m_consecutive_failures = 0;
    int m_template_params_in_a_row = 0;       // since the last success
    std::optional<Steady> m_throttled_since;  // the first throttle since the last other answer
    std::string m_last_throttle;              // its error text, for the stop message
    bool m_stopping = false;
    Steady m_stop_deadline{};
    DispatchResult m_result;
    SendRate m_send_rate;
    Steady m_next_progress{};
    std::optional<Admission::Later> m_pause;      // the wait the queue shows (Progress::pause_reason)
    std::optional<Admission::Later> m_announced;  // the last one told (on_pause)
};

}  // namespace queue::detail
