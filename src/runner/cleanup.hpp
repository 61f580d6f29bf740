#pragma once
// The campaign's final step: setting the contacts it reached to DELETED, in batches, each
// recorded in the result log so a later run finishes it without repeating a done batch.

#include <atomic>
#include <string>

#include "campaign/campaign.hpp"
#include "results/log_writer.hpp"
#include "results/replay.hpp"
#include "runner/send_report.hpp"
#include "service/http.hpp"
#include "util/clock.hpp"

namespace runner {

// What the deletion step sends through, waits with, and stops on (`stop_requests` counts
// SIGINT/SIGTERM).
struct CleanupParts {
    service::HttpTransport& transport;
    util::Clock& clock;
    const std::atomic<int>& stop_requests;
    results::ReplayOptions replay{};  // where the log's replay keeps its records (tests make it fail)
    // The log's replay joined with the list (replay_with_list), when nothing was written to the
    // log since it was made: the step uses it instead of replaying the log again. Null: the
    // step replays the log itself.
    const results::LogState* replayed = nullptr;
};

// Deletes the contacts of the rows the log records as sent (or of every row with
// `cleanup.only: all`) that no `deleted` batch names yet. The caller holds the run lock and
// `log` is open on the campaign's result log. Stops at the first refused credential or wrong URL, and
// between batches on a stop request.
CleanupSummary delete_contacts(const campaign::Campaign& campaign, results::LogWriter& log, const CleanupParts& parts);

}  // namespace runner
