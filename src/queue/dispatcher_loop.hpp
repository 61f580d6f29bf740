#pragma once
// The dispatcher's loop as a class, internal to queue/: dispatcher.cpp runs it (taking jobs,
// starting them, stopping), dispatcher_answers.cpp handles the answers, dispatcher_admission.cpp
// decides whether and when the next request may start (the in-flight limit, the send window,
// the daily cap, the rate).

#include <chrono>
#include <cstdint>
#include <deque>
#include <optional>
#include <queue>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "queue/dispatcher.hpp"
#include "queue/in_flight_window.hpp"
#include "queue/rate_limiter.hpp"
#include "queue/send_rate.hpp"
#include "queue/shared_pace.hpp"

namespace queue::detail {

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
    std::uint64_t seq;  // FIFO among equal due times
    Job job;
    bool operator>(const Waiting& other) const { return due != other.due ? due > other.due : seq > other.seq; }
};

class Dispatcher {
public:
    Dispatcher(JobSource& source, const DispatchSettings& settings, const DispatchParts& parts)
        : m_source(source),
          m_settings(settings),
          m_parts(parts),
          m_window(settings.max_concurrency, parts.limiter->burst()) {}

    DispatchResult run();

private:
    std::size_t in_flight_limit() const;
    int gather_count() const;
    bool startable_now(Steady now, std::optional<Steady>& wake);
    bool take(Steady now, Job& out);
    // Whether the shared pace holds the queue back now (until m_pace_retry).
    bool pace_blocked(std::optional<Steady>& wake, Steady now);
    // Takes the jobs that may start now, reserves them with the account (one call) and
    // starts those granted. Returns false when none started.
    bool start_batch(Steady now);
    // With a shared pace: reserves the jobs that may start now with the account, then asks the
    // pace for slots and starts as many as it grants, each by the grant's use-by time. Returns
    // false when none started.
    bool start_paced(Steady now);
    // How many jobs may start now with a shared pace (in flight, the local limiter, 1 + burst).
    std::size_t paced_room(Steady now) const;
    // Keeps the pace's answer: when to ask again and why the wait.
    void note_pace_answer(const PaceAnswer& answer, std::size_t granted, std::size_t asked, std::size_t started,
                          Steady now);
    // Reserves `batch` with the account (one call) and leaves in it only the jobs granted;
    // false when the dispatch stops.
    bool reserve(std::vector<Job>& batch, Steady now);
    // Writes the job's attempt line and hands its request to the transport.
    bool launch(Job job, Steady now);
    // Applies the account's answers to `batch`: keeps the granted jobs in it, records the
    // refused ones and defers the others.
    void admit(std::vector<Job>& batch, const std::vector<Reservation>& answers, Steady now);
    // Whether a send the account deferred (Reservation::later) holds the queue back now.
    bool account_blocked(std::optional<Steady>& wake, Steady now);
    // Requests in flight plus those being started this turn.
    std::size_t busy() const { return m_in_flight.size() + m_starting; }
    // Answers (dispatcher_answers.cpp): what each cause does to the row and to the queue.
    void handle(service::Completion completion, Steady now);
    void note_throttle(const service::Outcome& outcome, Steady now);
    void on_sent(Job& job, const service::Outcome& outcome, milliseconds latency, Steady now);
    void on_transient(Job& job, const service::Outcome& outcome, milliseconds latency, Steady now);
    void on_pair_rate(Job& job, const service::Outcome& outcome, milliseconds latency, Steady now);
    void on_template_params(const Job& job, const service::Outcome& outcome, milliseconds latency);
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
    bool cap_blocked(std::chrono::system_clock::time_point wall, std::optional<Steady>& wake, Steady now);
    bool gate_closed(std::chrono::system_clock::time_point wall, std::optional<Steady>& wake, Steady now);
    void announce_pause();

    JobSource& m_source;
    const DispatchSettings& m_settings;
    DispatchParts m_parts;
    InFlightWindow m_window;  // used with concurrency auto
    std::unordered_map<std::uint64_t, InFlight> m_in_flight;
    std::vector<std::uint64_t> m_unpolled;  // started since the transport was last polled: not left yet
    std::priority_queue<Waiting, std::vector<Waiting>, std::greater<>> m_waiting;
    std::optional<Job> m_peeked;
    std::deque<Job> m_deferred;  // granted no slot by the account yet: they go first
    std::optional<std::chrono::system_clock::time_point> m_account_until;  // when room opens
    Steady m_account_retry{};                                              // when to ask the account again
    std::string m_account_reason;
    // Taken and reserved with the account, but granted no slot by the shared pace yet: they go
    // first, without another reservation.
    std::deque<Job> m_held;
    Steady m_pace_retry{};  // when to ask the shared pace again
    std::string m_pace_reason;
    std::optional<std::chrono::system_clock::time_point> m_pace_until;
    bool m_pace_notice = false;  // the pace's reason is told once (on_pause), not only shown
    std::size_t m_starting = 0;
    bool m_exhausted = false;
    std::optional<util::Error> m_source_error;  // why the source ended early
    long long m_taken = 0;
    std::uint64_t m_next_id = 1;
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
    std::string m_pause_reason;
    std::optional<std::chrono::system_clock::time_point> m_paused_until;
    std::optional<std::pair<std::string, std::optional<std::chrono::system_clock::time_point>>> m_announced;
};

}  // namespace queue::detail
