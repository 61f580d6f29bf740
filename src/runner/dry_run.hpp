#pragma once
// A dry run: every row read, validated and rendered, a log of its own written, and no
// network call at all.

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "campaign/campaign.hpp"
#include "campaign/media_verdicts.hpp"
#include "campaign/pricing.hpp"
#include "results/status.hpp"
#include "runner/account_book.hpp"
#include "runner/plan.hpp"
#include "util/clock.hpp"
#include "util/result.hpp"

namespace runner {

struct RenderedSample {
    long long row = 0;
    std::string wa_id;
    std::string body;     // the send-message (or send-template) JSON that a real run would send
    std::string preview;  // a template message as the phone shows it (campaign::phone_view); else empty
};

// With a window per recipient: the rows that would be sent in one zone, and when its window next
// opens (the run's start when it is open then; nullopt: never).
struct ZoneRows {
    std::string zone;
    std::int64_t rows = 0;
    std::optional<util::TimePoint> opens;
};

struct DryRunReport {
    std::string results_path;             // the dry run's own log
    results::StatusCounts counts;         // dry_run, invalid, skipped
    results::CauseCounts causes;          // of the skipped: duplicate, suppressed, frequency_cap, marketing_limit
    std::vector<RenderedSample> samples;  // the first few messages
    std::vector<std::string> problems;    // the first few bad rows, "FILE:LINE: row N: why"
    std::chrono::milliseconds duration{0};
    Plan plan;                    // when the rows to send would go out (runner::make_plan)
    campaign::CostEstimate cost;  // what the rows to send would cost (campaign::CostTally)
    // schedule.window.timezone: recipient: the rows that would be sent by zone, most first, and
    // how many of them took schedule.window.fallback_timezone
    std::vector<ZoneRows> zones;
    std::int64_t fallback_rows = 0;
};

// Returns where the dry run of a campaign whose log is `results_path` writes its own log:
// "x.jsonl" → "x.dry-run.jsonl".
std::string dry_run_path(const std::string& results_path);

// What a dry run holds the rows against besides the campaign file and the CSV.
struct DryRunChecks {
    const campaign::MediaVerdicts* media = nullptr;  // images a check refused: their rows are invalid
    AccountBook* book = nullptr;                     // the account's ledger, opened read only: its rows are skipped
};

// Returns `cost` as a dry run's `end` record keeps it (`plan.cost`): amounts rounded to 4 decimals.
results::CostSummary summary_of(const campaign::CostEstimate& cost);

// Runs the dry run of `campaign`, its plan and its cost, writing the log at dry_run_path(`results_path`) afresh.
// Times come from `clock`. A row the ledger would hold back is `skipped` with the ledger's
// cause (suppressed, frequency_cap, marketing_limit). Fails on unusable input (header,
// columns, placeholders), an unwritable log, or an unreadable ledger.
util::Result<DryRunReport> dry_run(const campaign::Campaign& campaign, const std::string& results_path,
                                   std::size_t sample_count, const util::Clock& clock, const DryRunChecks& checks = {});

}  // namespace runner
