#pragma once
// Admission: may a job start at an instant, and if not, until when and why. Every mechanism that
// holds jobs back answers this one question in this one shape, for a batch of jobs at a time:
// the campaign's deadline (queue::Deadline), the template's recheck, the send window, the daily
// cap (the account's ledger, or without one queue::DailyCap), the budget, the pace (this
// runner's RateLimiter, or the account's pace shared with its other runners). The dispatcher
// asks them in the order DispatchParts::steps lists them, the pace last, before a job starts
// (docs/architecture.md "One message").

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <optional>
#include <span>
#include <string>
#include <utility>
#include <variant>
#include <vector>

#include "queue/stop_reason.hpp"
#include "util/result.hpp"

namespace queue {

struct Job;

using SteadyTime = std::chrono::steady_clock::time_point;
using WallTime = std::chrono::system_clock::time_point;

// One moment on both clocks: the steady one for waiting, the wall one for days and for people.
struct Instant {
    SteadyTime steady;
    WallTime wall;
};

// The three answers to "may this job start?", each with only what it carries; an Admission
// holds one of them and names them (Admission::Now, ::Later, ::Never, ::Refusal). They stand
// outside the class so that their member initializers are known where its variant is declared.
namespace admission {

// Why a job was refused for good: its number is at rate.per_recipient, on the suppression list,
// or held by a 131049 answer; or the campaign is too late (queue::Deadline), which refuses every
// job alike: the dispatcher stops the run (too_late) and records none of them. The budget
// (runner::BudgetGuard) refuses a job whose price would pass it: the dispatcher stops the run
// (budget), recording nothing, as for too_late. A step that found the run must end (the
// template changed under it: runner::TemplateRecheck) refuses every job with `stop`: the
// dispatcher stops the run with `stop_reason`, recording nothing. The account's ledger holds the
// row already, for another run of the campaign (a copy of its log sent from at the same time):
// sent (ledger_sent), or reserved for a request of its own (ledger_reserved): recorded as
// screening records a row the ledger remembers, sent or unknown.
enum class Refusal { frequency_cap, suppressed, marketing_limit, too_late, budget, stop, ledger_sent, ledger_reserved };

// It may start (reserved with the account, its slot granted), by `use_by`.
struct Now {
    // The latest time the job may start; a slot unused by then is dropped, never used late.
    SteadyTime use_by = SteadyTime::max();
};

// Not before `retry_at`, when the question is asked again.
struct Later {
    SteadyTime retry_at{};
    std::optional<WallTime> until{};  // when the wait ends by the wall clock, when known
    std::string reason{};             // why, for people; empty for a wait that is only pacing
    bool notice = false;              // the reason is news, told once (DispatchObserver::on_pause)
    // This job alone waits (its recipient's window is closed; queue::ZoneWindows): the dispatcher
    // sets it aside until `until` (queue::SetAside) and goes on with the others, instead of
    // holding every job back until retry_at.
    bool set_aside = false;
};

// Refused for good in this run: DispatchObserver::on_refused records it, unless the refusal
// stops the run (stops_run).
struct Never {
    Refusal refusal = Refusal::frequency_cap;
    std::optional<WallTime> until{};                 // when the number could be messaged again, when known
    std::string reason{};                            // why, for people
    StopReason stop_reason = StopReason::completed;  // Refusal::stop: why the run ends
    std::int64_t attempt = 0;  // ledger_sent, ledger_reserved: the request the ledger's row stands for
};

}  // namespace admission

// The answer for one job: now, later or never. Built from one of the three, which convert
// (`out[i] = Admission::Later{.retry_at = t}`); by default, now with no use-by time.
class Admission {
public:
    using Refusal = admission::Refusal;
    using Now = admission::Now;
    using Later = admission::Later;
    using Never = admission::Never;

    Admission() = default;
    Admission(Now now) : m_answer(now) {}
    Admission(Later later) : m_answer(std::move(later)) {}
    Admission(Never never) : m_answer(std::move(never)) {}

    bool is_now() const { return std::holds_alternative<Now>(m_answer); }
    // The answer as that alternative; null when it is another.
    const Now* now() const { return std::get_if<Now>(&m_answer); }
    const Later* later() const { return std::get_if<Later>(&m_answer); }
    Later* later() { return std::get_if<Later>(&m_answer); }
    const Never* never() const { return std::get_if<Never>(&m_answer); }

private:
    std::variant<Now, Later, Never> m_answer;
};

// The room of a step that does not bound how many jobs may start at once.
inline constexpr std::size_t k_any_room = std::numeric_limits<std::size_t>::max();

// A `later` answer for a wait that ends at the wall time `until` (when known): asked again by
// then, and meanwhile every `poll` (the wait may end sooner, or the wall clock be set).
Admission::Later later_until(Instant at, std::optional<WallTime> until, std::chrono::seconds poll);

// One mechanism that may hold jobs back, as the dispatcher asks it. Every answer is for the
// instant it is given; only what an answer commits (a reservation, a slot) outlives the call.
class Admitter {
public:
    virtual ~Admitter() = default;

    // How many jobs may start at `at` whatever they are, committing nothing: k_any_room when
    // this step does not bound it. With 0, `why` holds the answer every job would get: later, or
    // a never that ends the run.
    // Asked every turn of the send loop, before jobs are taken from the source.
    virtual std::size_t room(Instant /*at*/, Admission& /*why*/) const { return k_any_room; }

    // Answers each of `jobs` at `at`, in order, into `out` (one answer each). A job answered
    // now counts as started for this step (reserved, its slot taken) until settle() says it
    // ended. Fails when the step cannot answer (the ledger cannot be written): nothing of
    // `jobs` may start, and the dispatch stops.
    virtual util::Result<void> admit(std::span<const Job* const> jobs, Instant at, std::vector<Admission>& out) = 0;

    // `ended` of the jobs this step admitted have ended (answered, abandoned, or refused by a
    // later step), `sent` of them sent, by `at`. Does nothing unless overridden.
    virtual void settle(std::size_t /*ended*/, std::size_t /*sent*/, Instant /*at*/) {}

    // `jobs`, which this step admitted, will never start in this dispatch (it stopped first):
    // what the step holds for them alone (the ledger's reservation) is given back. settle() is
    // told of them apart. Does nothing unless overridden.
    virtual void withdraw(std::span<const Job* const> /*jobs*/) {}

    // Whether a dispatch that does not wait (WhenClosed::pass_over: a test send) passes over the
    // waits this step asks for rather than wait: a closed window, the day's room. False unless
    // overridden (the pace is always waited for).
    virtual bool passable() const { return false; }

    // This run's first request left. Does nothing unless overridden (queue::Deadline:
    // schedule.max_delay is met).
    virtual void first_sent() {}
};

}  // namespace queue
