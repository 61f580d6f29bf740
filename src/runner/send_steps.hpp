#pragma once
// The steps of a real run (send_campaign) and what they hand one another. Internal to runner/.

#include <cstdint>
#include <optional>

#include "campaign/paused_regions.hpp"
#include "campaign/pricing.hpp"
#include "campaign/recipients.hpp"
#include "queue/send_window.hpp"
#include "queue/zone_windows.hpp"
#include "results/log_writer.hpp"
#include "results/records.hpp"
#include "results/replay.hpp"
#include "results/run_lock.hpp"
#include "runner/account_book.hpp"
#include "runner/secrets.hpp"
#include "runner/send_options.hpp"
#include "runner/send_parts.hpp"
#include "runner/send_report.hpp"
#include "util/redact.hpp"

namespace runner {

// One run in progress. Members are destroyed in reverse: the log closes before the lock goes.
struct SendRun {
    SendRun(const campaign::Campaign& c, const SendOptions& o, const SendParts& p)
        : campaign(c), options(o), parts(p), secrets(campaign::redactor_for(c)) {}

    const campaign::Campaign& campaign;
    const SendOptions& options;
    const SendParts& parts;
    util::Redactor secrets;  // the service may echo them in its answers
    SendReport report;
    std::optional<queue::SendWindow> window;
    std::optional<queue::ZoneWindows> zone_windows;  // the window kept in each recipient's zone
    std::optional<campaign::MediaVerdicts> media;    // when images were checked; before `stream`, which uses it
    std::optional<campaign::RecipientStream> stream;
    results::CampaignHeader header;  // of the inputs as they are now
    std::optional<results::RunLock> lock;
    std::optional<results::LogState> state;  // the existing log's, when there is one
    std::optional<results::LogWriter> log;
    std::unique_ptr<AccountBook> book;              // the account's ledger (SendParts::open_book); null: none
    std::optional<campaign::PausedRegions> paused;  // message.paused_regions, for a MARKETING template
    std::optional<campaign::RowPrices> prices;      // each row's price (the campaign's rate card)
    std::int64_t spent_micros = 0;                  // with a budget: what the campaign spent before this run
    std::string campaign_key;                       // the campaign's sends in the ledger
    std::int64_t expected_jobs = 0;                 // for progress: the ETA
    std::int64_t list_rows = 0;                     // the list's data rows, for progress: remaining (0: unknown)
    bool wrote = false;                             // this run added to the log: it gets an end record
    std::string changed_category;                   // template_changed: the category the template has now
    // The existing log, of this very list, settles every row of it (every_row_settled): the
    // run sends and records nothing, and reads no row of the list.
    bool settled = false;

    // Returns the existing log's state, or null for a new log.
    const results::LogState* existing() const { return state ? &*state : nullptr; }
    // Returns the images refused by the check before sending, or null when there was none.
    const campaign::MediaVerdicts* refused_media() const { return media ? &*media : nullptr; }
    // Returns the regions the campaign sends nothing to, or null.
    const campaign::PausedRegions* paused_regions() const { return paused ? &*paused : nullptr; }
};

enum class Next { go_on, stop };

// Opens the send window and the CSV, hashes the inputs, takes the lock and replays an existing
// log, refusing one written for other inputs. Fails on unusable input.
util::Result<void> prepare(SendRun& run);

// Checks the template and the images (message.check_media: the stream is opened again with
// the verdicts), asks for confirmation (or estimates the work) and waits for
// schedule.start_at through the clock; none of it when the campaign is too late to start
// (the send step then stops at once). Next::stop with the report filled when the run ends
// here (refused key, declined, interrupted).
util::Result<Next> confirm_and_wait(SendRun& run);

// Starts a new log or opens the existing one (recording changed inputs). Fails when it cannot.
util::Result<void> open_log(SendRun& run);

// Dispatches the rows through the queue and fills the report with how it went.
void send(SendRun& run);

// Writes the end record, runs the deletion step when the run completed, and closes the log.
void finish(SendRun& run);

// After a stop because the template's category changed to `category` (template_changed): reads
// the list and the log again and adds to the report's message, and shows, the estimate for what
// is left at the new category's prices.
void estimate_after_change(SendRun& run, const std::string& category);

}  // namespace runner
