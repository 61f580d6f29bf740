#pragma once
// A real run of a campaign: from the campaign file and CSV (and an existing result log, which
// it continues) through the queue to the service, recording everything in the result log,
// then the contact-deletion step when configured.

#include <atomic>
#include <chrono>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "account/ledger.hpp"
#include "campaign/campaign.hpp"
#include "queue/dispatcher.hpp"
#include "results/log_writer.hpp"
#include "results/replay.hpp"
#include "results/status.hpp"
#include "runner/account_book.hpp"
#include "runner/ui.hpp"
#include "runner/watch.hpp"
#include "service/http.hpp"
#include "util/clock.hpp"
#include "util/result.hpp"

namespace runner {

enum class RetryRejected { no, yes };
enum class ResendUnknown { no, yes };
enum class ChangedInputs { refuse, accept };
// Whether schedule.not_after and schedule.max_delay are waived for this run (--late-ok).
enum class LateOk { no, yes };
// Whether connections are opened before the first send (runner/warm_up.hpp): the CLI's runs do,
// over the real transport; tests of the loop over a fake one need not.
enum class WarmConnections { no, yes };

struct SendOptions {
    std::string results_path;  // empty: the campaign's
    long long limit = 0;       // recipients to dispatch this run; 0: all
    ChangedInputs changed_inputs = ChangedInputs::refuse;
    RetryRejected retry_rejected = RetryRejected::no;
    ResendUnknown resend_unknown = ResendUnknown::no;
    results::Durability durability = results::Durability::interval;  // when the log is fdatasync'ed
    LateOk late_ok = LateOk::no;
};

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

// What a run sends through, waits with, talks to, and stops on.
struct SendParts {
    service::HttpTransport& transport;
    util::Clock& clock;
    RunUi& ui;
    const std::atomic<int>& stop_requests;  // counts SIGINT/SIGTERM
    // Where images are checked (message.check_media): their hosts are not the service, whose
    // CA file they need not share. Null: `transport`.
    service::HttpTransport* media_transport = nullptr;
    // Told of each outcome and request, and of progress (metrics). Null: nobody watches.
    RunWatch* watch = nullptr;
    // Where the replay of an existing log keeps its per-row records and sorts (tests make them
    // fail); `now` and `rows` are the run's own.
    results::ReplayOptions replay{};
    // Opens the account's ledger read-write, syncing its commits as asked (--sync every: full),
    // when the prepare step reaches it: after the run lock and the replay, so that unusable
    // input never creates a ledger. Null, or returning null: no ledger (account.ledger: off).
    // The CLI passes AccountBook::open; tests may pass a fake.
    std::function<util::Result<std::unique_ptr<AccountBook>>(account::Sync)> open_book{};
    // The account's pace shared with its other runners (account.rate_store); null: this
    // runner's own rate limiter alone. Built by the CLI, connected on first use.
    queue::Pace* pace = nullptr;
    WarmConnections warm = WarmConnections::no;
};

// Runs `campaign`: prepares, checks its images (message.check_media), asks for confirmation
// and waits for the start time, sends, and
// finishes (end record, deletion step). Fails (nothing sent) on unusable input: a CSV whose
// header lacks a mapped column, a log of changed inputs without ChangedInputs::accept, a held
// lock, a template that is not approved.
util::Result<SendReport> send_campaign(const campaign::Campaign& campaign, const SendOptions& options,
                                       const SendParts& parts);

}  // namespace runner
