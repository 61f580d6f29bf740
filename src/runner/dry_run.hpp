#pragma once
// A dry run: every row read, validated and rendered, a log of its own written, and no
// network call at all.

#include <chrono>
#include <string>
#include <vector>

#include "campaign/campaign.hpp"
#include "campaign/media_verdicts.hpp"
#include "results/status.hpp"
#include "util/clock.hpp"
#include "util/result.hpp"

namespace runner {

struct RenderedSample {
    long long row = 0;
    std::string wa_id;
    std::string body;  // the send-message JSON that a real run would send
};

struct DryRunReport {
    std::string results_path;             // the dry run's own log
    results::StatusCounts counts;         // dry_run, invalid, skipped
    std::vector<RenderedSample> samples;  // the first few messages
    std::vector<std::string> problems;    // the first few bad rows, "FILE:LINE: row N: why"
    std::chrono::milliseconds duration{0};
};

// Returns where the dry run of a campaign whose log is `results_path` writes its own log:
// "x.jsonl" → "x.dry-run.jsonl".
std::string dry_run_path(const std::string& results_path);

// Runs the dry run of `campaign`, writing the log at dry_run_path(`results_path`) afresh.
// Times come from `clock`; `media`, when not null, holds the images a check refused (their
// rows are invalid). Fails on unusable input (header, columns, placeholders) or an unwritable
// log.
util::Result<DryRunReport> dry_run(const campaign::Campaign& campaign, const std::string& results_path,
                                   std::size_t sample_count, const util::Clock& clock,
                                   const campaign::MediaVerdicts* media = nullptr);

}  // namespace runner
