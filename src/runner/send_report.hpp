#pragma once
// What a run of a campaign did (send_campaign's report), the deletion step's included.

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "queue/set_aside.hpp"
#include "queue/stop_reason.hpp"
#include "results/status.hpp"
#include "util/clock.hpp"

namespace runner {

struct CleanupSummary {
    bool ran = false;
    int batches_deleted = 0;
    int batches_failed = 0;
    std::int64_t ids_deleted = 0;
    std::string error;         // of the last failed batch
    bool interrupted = false;  // a stop request (or log_error) ended it with batches left to do
    bool refused = false;      // credentials refused or certificate failed: later batches not tried
    std::string log_error;     // the log could not be written: why it stopped
    // Rows the step would delete whose user_id cell is empty: how many, and the first few.
    static constexpr std::int64_t k_rows_named = 5;
    std::int64_t without_user_id = 0;
    std::vector<std::int64_t> without_user_id_rows;
};

struct SendReport {
    queue::StopReason reason = queue::StopReason::completed;
    std::string message;                 // what stopped it, when it stopped early
    results::StatusCounts counts;        // final state of every row recorded in the log
    std::int64_t not_yet_attempted = 0;  // rows of the list the log does not hold yet (--limit, a stop)
    std::int64_t held_unknown = 0;       // unknown rows left alone (no --resend-unknown)
    // Rows the result log had lost and the account's ledger held: recorded sent (never sent
    // again) or unknown (sent again only with --resend-unknown).
    std::int64_t recovered_sent = 0;
    std::int64_t recovered_unknown = 0;
    std::int64_t never_left = 0;            // of the unknown: logged as attempts, never sent (the log failed first)
    std::int64_t held_rejected = 0;         // rejected rows left alone (no --retry-failed)
    std::int64_t held_marketing_limit = 0;  // refused for the marketing limit < 24 h ago
    std::optional<util::TimePoint> marketing_limit_until;  // when a later run may send the last of them
    // Rows set aside for their recipients' windows when the run stopped, by zone (unsent, no
    // record: a resume sends them)
    std::vector<queue::ZoneWait> waiting_for_window;
    // --limit: rows passed over because their recipients' windows were closed (unsent, no record:
    // a later run sends them), the earliest opening among them; and the wait for the send window
    // or the day's room the run ended rather than make (its reason and end, when known).
    std::int64_t passed_over = 0;
    std::optional<util::TimePoint> passed_over_until;
    std::string not_waited;
    std::optional<util::TimePoint> not_waited_until;
    results::CauseCounts causes;  // failed and skipped rows per cause
    std::int64_t sent_this_run = 0;
    std::int64_t throttled_this_run = 0;  // requests the service answered "rate limited"
    double rate_in_force = 0;             // requests/s the queue allowed itself at the end
    std::chrono::milliseconds duration{0};
    std::string results_path;
    bool already_complete = false;  // nothing was left to do
    bool declined = false;          // the person answered no
    CleanupSummary cleanup;
};

}  // namespace runner
