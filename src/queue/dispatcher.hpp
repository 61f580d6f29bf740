#pragma once
// The send loop: keeps up to `concurrency` requests in flight on one thread (with `auto`, as
// many as an InFlightWindow sizes from the latency and the rate in force), each job admitted
// before it starts by the admission steps in a fixed order — the deadline, the send window, the daily cap
// (the ledger, or without one queue::DailyCap), the pace (shared, or this runner's rate
// limiter) — retrying as the retry policy says, until the source is empty or a stop rule
// fires. A closed window or a reached cap only waits: the run never ends while work is left.

#include <atomic>
#include <chrono>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "campaign/campaign.hpp"
#include "queue/job.hpp"
#include "queue/set_aside.hpp"
#include "queue/stop_reason.hpp"
#include "service/config.hpp"
#include "service/http.hpp"
#include "util/clock.hpp"

namespace queue {

class Admitter;
class Pace;
class RateLimiter;
class RetryPolicy;
class SideRequest;

// Template answers about one row's values (132005, 132012, 132018) with no success between them
// that stop the campaign (reason template_refused): every row would fail alike.
inline constexpr int k_template_params_stop = 10;

// What a job does when its recipient's window is closed or the account's day has no room left:
// waits (a run), or is passed over, unrecorded, for a later run (--limit: a test send ends).
enum class WhenClosed { wait, pass_over };

struct DispatchSettings {
    std::optional<int> concurrency;  // requests in flight; nullopt: auto
    int max_concurrency = 256;       // the cap of auto
    campaign::Ambiguous ambiguous = campaign::Ambiguous::hold;
    int max_consecutive_failures = 25;
    std::chrono::milliseconds max_throttled{30 * 60 * 1000};  // continuous throttling, then stop
    long long limit = 0;                                      // jobs to take from the source; 0: all
    WhenClosed when_closed = WhenClosed::wait;                // pass_over: jobs passed over do not count
    std::chrono::milliseconds stop_grace{10'000};             // wait for in-flight requests on a stop
    std::chrono::milliseconds progress_interval{1'000};
    // At a paced rate, with this runner's own pace: how far ahead the steps before the pace are
    // asked. When no job waits at the pace, a turn takes the jobs of this span (at least those
    // that may start now, at most k_max_batch): the steps admit them together — the ledger
    // reserves them in one transaction — and they wait at the pace, first in line, each starting
    // at its slot. 0: only the jobs that may start now are asked. Keep it well below the steps'
    // use-by times (the ledger's 2 s): a job that waits past one is let go and asked again.
    std::chrono::milliseconds ask_ahead{0};
};

// The dispatcher's collaborators; all outlive it.
struct DispatchParts {
    // Where requests go; null for a transport that reads none (the plan's simulation): each
    // request then leaves empty.
    const service::ServiceConfig* service = nullptr;
    service::HttpTransport* transport = nullptr;
    const util::Clock* clock = nullptr;
    // This runner's pace: it sizes each turn's starts (with a shared pace too: a runner asks
    // for no more than it could start), and without `pace` it is the last admission step.
    RateLimiter* limiter = nullptr;
    RetryPolicy* retry = nullptr;
    // The admission steps before the pace, in the order they are asked (nulls are skipped): the
    // campaign's deadline (queue::Deadline; its `never` stops the run with too_late), the
    // template's recheck (runner::TemplateRecheck; `never` stops the run with its stop_reason),
    // the send window, the daily cap and the account's other limits (the ledger's reservations,
    // or without a ledger a DailyCap), the budget (`never` stops the run with budget). The
    // runner builds them (runner::AdmissionSteps).
    std::vector<Admitter*> steps{};
    DispatchObserver* observer = nullptr;
    const std::atomic<int>* stop_requests = nullptr;  // 1: finish in-flight and stop; 2+: stop now
    Pace* pace = nullptr;                             // the account's pace, shared; null: `limiter` alone
    // A request off the send path, carried on the same transport between the sends (the
    // template list read again: runner::TemplateRecheck); null: none.
    SideRequest* side = nullptr;
};

struct DispatchResult {
    StopReason reason = StopReason::completed;
    std::string message;  // what stopped it, for people (e.g. the service's auth error)
    Progress progress;
    // Requests stopped before they left: their `attempt` lines were logged, then the log could
    // not be written, so the transport never sent them. Counted in progress.unknown too (the log
    // shows them so).
    std::int64_t never_left = 0;
    // The rows still set aside for their recipients' windows when it stopped, by zone, the
    // earliest opening first (a run that completes has none).
    std::vector<ZoneWait> waiting;
    // WhenClosed::pass_over: the jobs passed over because their recipients' windows were closed
    // (not recorded, not counted toward the limit) and the earliest opening among them; and,
    // when the run ended rather than wait for the send window or the day's room, that wait.
    std::int64_t passed_over = 0;
    std::optional<WallTime> passed_over_until;
    std::optional<Admission::Later> not_waited;
};

// Runs `source` to the end or to a stop.
DispatchResult dispatch(JobSource& source, const DispatchSettings& settings, const DispatchParts& parts);

}  // namespace queue
