#pragma once
// A message waiting to be sent, and what the dispatcher reports about it.

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "queue/admission.hpp"
#include "service/classify.hpp"
#include "util/result.hpp"

namespace queue {

struct Job {
    std::int64_t row = 0;
    std::string wa_id;
    std::string user_name;
    std::string body;            // the send-message (or send-template) JSON
    bool template_send = false;  // goes to send-template
    // Whether a 131049 answer is the marketing limit (text, image, MARKETING templates)
    service::MarketingHold marketing_hold = service::MarketingHold::applies;
    int requests = 0;           // requests made for this row so far, over all runs (the log's `attempt`)
    int attempts = 0;           // attempts counted against retry.max_attempts in this run
    int pair_rate_answers = 0;  // Meta's pair-rate answers (131056) for this row in this run
    // The source's own word about the row, kept with the job wherever it waits (set aside on
    // disk too): the runner's the row's state in the log before this run (results::RowState::pack)
    std::uint32_t note = 0;
    int zone = -1;     // the recipient's zone (ZoneWindows::zone) for a window per recipient; -1: none
    double price = 0;  // what one delivered message costs (the campaign's rate card): the budget's
};

// Where fresh jobs come from, in order.
class JobSource {
public:
    virtual ~JobSource() = default;
    // Fills `out` with the next job: true, or false when there are no more. An Error ends the
    // jobs early: the dispatch finishes what it started, then stops with input_error, or with
    // log_error when the Error's kind is util::ErrorKind::write (a row could not be logged).
    virtual util::Result<bool> next(Job& out) = 0;
};

// What became of one request.
enum class JobStatus {
    sent,      // final
    failed,    // final
    unknown,   // final: may or may not have been delivered
    retrying,  // not final: another request will follow
    // Answered without being acted on (a wrong endpoint): the row is as it was before this
    // request, and a later run sends it
    unsent,
};

struct Progress {
    std::int64_t sent = 0;
    std::int64_t failed = 0;
    std::int64_t unknown = 0;
    std::int64_t started = 0;  // jobs taken from the source
    std::size_t in_flight = 0;
    std::size_t in_flight_limit = 0;  // the most allowed in flight now (auto: the window in force)
    std::size_t retry_waiting = 0;
    // Rows set aside until their recipients' windows open (queue::ZoneWindows), and the next
    // opening among them
    std::int64_t set_aside = 0;
    std::optional<std::chrono::system_clock::time_point> next_opening;
    double rate_in_force = 0;  // requests/s the limiter allows now
    double achieved_rate = 0;  // sends/s over the last few seconds
    std::optional<std::chrono::system_clock::time_point> paused_until;
    std::string pause_reason;  // "rate limited by the service", "daily cap reached", …
};

// The dispatcher's reports; the runner writes them to the result log and the screen.
class DispatchObserver {
public:
    virtual ~DispatchObserver() = default;
    // A request for `job` (number job.requests) is about to leave. A failure (the log cannot
    // be written) stops the dispatch before the request leaves.
    virtual util::Result<void> on_attempt(const Job& job) = 0;
    // A request for `job` came back (or was abandoned) with `outcome`; `status` says
    // whether that is final. A failure to record it stops the dispatch.
    virtual util::Result<void> on_result(const Job& job, JobStatus status, const service::Outcome& outcome,
                                         std::chrono::milliseconds latency) = 0;
    // An admission step refused `job` for good with `answer` (its refusal and reason): no
    // request left. A failure to record it stops the dispatch.
    virtual util::Result<void> on_refused(const Job&, const Admission::Never& /*answer*/) { return {}; }
    // Called about once a second with the state of the queue.
    virtual void on_progress(const Progress& progress) = 0;
    // Called once when the queue starts to wait for an admission step whose reason is news
    // (Admission::Later::notice: the send window, the daily cap, the rate store unreachable), with
    // pause_reason and paused_until set; not for the service's short rate-limit pauses.
    // Does nothing unless overridden.
    virtual void on_pause(const Progress&) {}
    // Called before requests started since the last call may leave (the transport only sends
    // when polled) and before the dispatcher waits: what on_attempt and on_result recorded
    // must be written by then. A failure stops the dispatch before those requests leave, with
    // ledger_error when the Error's kind is util::ErrorKind::ledger, else log_error.
    virtual util::Result<void> flush() { return {}; }
};

}  // namespace queue
