#pragma once
// A result log folded into the figures of a report (docs/commands.md "report"), in the replay's
// one streaming pass (results::replay: each row's state, in a temporary file), in flat memory:
// ten million rows cost the process no more than a hundred thousand.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "report/review.hpp"
#include "report/spend.hpp"
#include "results/records.hpp"
#include "util/clock.hpp"
#include "util/disk_array.hpp"
#include "util/result.hpp"
#include "util/zone.hpp"

namespace campaign {
struct Campaign;
}  // namespace campaign

namespace report {

// Rows whose final result shares a status, a cause, an HTTP status and a Meta error code.
// Past k_max_error_groups distinct groups, the rest of a status and cause share one group
// (`others`, without HTTP status or code), so that a log of countless distinct codes costs
// bounded memory.
struct ErrorGroup {
    results::Status status = results::Status::failed;
    results::Cause cause = results::Cause::none;
    std::optional<int> http_status;
    std::optional<std::int64_t> error_code;
    bool others = false;  // the rows of this status and cause whose group was not kept
    std::int64_t count = 0;
    std::string sample;  // the first error text seen for the group (at most ~300 bytes)
};

// A row whose outcome is unknown: its request went out and got no answer.
struct UnknownRow {
    std::int64_t row = 0;
    std::string error;  // its last result's error, or why it is unknown ("in flight when a run stopped")
};

struct LatencySummary {
    std::int64_t count = 0;  // result lines with latency_ms (one per request made)
    std::int64_t p50 = 0;
    std::int64_t p95 = 0;
    std::int64_t p99 = 0;
    std::int64_t max = 0;
};

// The contact-deletion step, present when the log has `delete` records.
struct CleanupSummary {
    int batches = 0;
    int deleted = 0;               // batches with status `deleted`
    int failed = 0;                // batches with status `failed`
    std::int64_t ids_deleted = 0;  // ids in `deleted` batches
    bool last_failed = false;      // the latest batch failed: `delete-contacts` should be rerun
};

// Requests answered without a send and tried again, by a later request of their row (in the same
// run or a later one), of one kind: "5xx", "no answer" (a timeout, a lost connection) or the
// answer's cause ("rate_limited", "pair_rate", …).
struct RetriedCount {
    std::string kind;
    std::int64_t count = 0;
};

// The recipient list the log's latest run read, as it is now.
struct ListState {
    enum class Found { same, changed, missing };
    Found found = Found::missing;
    std::int64_t rows = 0;  // data rows in the CSV now (same or changed)
    std::string problem;    // missing: why it cannot be read
};

// The rows whose latest result named one template (a `template` field): how many ended sent
// and failed.
struct TemplateCount {
    std::string name;
    std::int64_t sent = 0;
    std::int64_t failed = 0;
};

// What to do next with the campaign: why, and the exact command.
struct NextStep {
    std::string what;     // "to continue", "to finish the deletion step", …
    std::string command;  // "wacamp resume results/spring.jsonl"
};

struct Summary {
    static constexpr std::size_t k_not_sent_listed = 100;
    static constexpr std::size_t k_max_error_groups = 1000;
    static constexpr std::size_t k_max_templates = 250;  // further templates are not counted

    std::string log_path;
    results::CampaignHeader header;         // line 1
    results::CampaignHeader latest_header;  // the last `campaign` record: the inputs of the latest run
    int runs = 1;                           // `campaign` records
    std::optional<results::EndRecord> last_end;
    bool ended = false;  // the last record is an `end`
    std::int64_t records = 0;

    std::int64_t rows = 0;                    // rows the log names
    results::StatusCounts counts;             // final state per row, as results::replay folds it
    std::int64_t in_flight = 0;               // of `unknown`: an attempt after the last result
    std::vector<ErrorGroup> errors;           // rows not sent, most frequent first
    std::vector<TemplateCount> templates;     // by template, in order of appearance, when more than one
    std::vector<std::int64_t> not_sent_rows;  // the first k_not_sent_listed failed or unknown rows
    std::vector<std::int64_t> invalid_rows;   // the first k_not_sent_listed invalid rows
    static constexpr std::size_t k_unknown_listed = 20;
    std::vector<UnknownRow> unknown_rows;  // the first k_unknown_listed unknown rows, with their last error
    ListState list;                        // the CSV now
    std::vector<NextStep> next_steps;      // the first is the one to take; empty: nothing left to do

    util::TimePoint first_at;                   // earliest time of any record
    util::TimePoint last_at;                    // latest time of any record
    std::int64_t attempts = 0;                  // `attempt` records: requests that left
    std::int64_t sent_results = 0;              // `result` records with status sent
    util::Millis sending_span{0};               // per run, first attempt to last request outcome, summed
    std::optional<double> send_rate;            // sent_results per second of sending_span
    std::int64_t rate_limited = 0;              // result lines with cause rate_limited
    std::int64_t retried = 0;                   // result lines a later request of their row superseded
    std::vector<RetriedCount> retried_by_kind;  // of `retried`, most first
    LatencySummary latency;
    Spend spend;  // the sum of the sent rows' prices, by category and by country

    std::optional<CleanupSummary> cleanup;
    // Rows the deletion step (cleanup.delete_contacts) deletes whose user_id cell is empty: their
    // contacts cannot be deleted. Counted only when summarize() is given the campaign.
    static constexpr std::size_t k_without_user_id_listed = 5;
    bool user_ids_counted = false;  // whether the two below were counted
    std::int64_t without_user_id = 0;
    std::vector<std::int64_t> without_user_id_rows;  // the first k_without_user_id_listed
    Review review;                                   // a dry run's messages; empty for a log without them
    std::vector<std::string> warnings;               // "PATH:LINE: …", the first ~100
    std::int64_t warning_count = 0;                  // all of them
    // The zone the text and HTML reports show times in, beside UTC (summarize() leaves UTC; the
    // caller sets the campaign's: runner::shown_zone). JSON, CSV and the workbook keep UTC.
    util::TimeZone zone = util::TimeZone::utc();
};

// Returns the rows of the list not yet in the log: the CSV's rows less those the log names
// (0 when the CSV cannot be read).
std::int64_t not_yet_attempted(const Summary& summary);

// Reads the log at `path` to its end and returns its summary. Fails, naming `path`, when it
// cannot be opened or read or its first line is not a `campaign` record, or when the per-row
// state cannot be kept in its temporary file (made per `scratch`: TMPDIR unless it names a
// directory); unusable lines (a torn last line) are warnings. The recipient list the latest run
// read is looked at as it is now (its rows counted, its SHA-256 compared), and the next steps
// worked out. With `campaign` (the campaign the log's header names, loaded) whose deletion step is
// on, the rows of its list that the step deletes and that have an empty user_id are counted too
// (none when the list cannot be read: the report says so of the list).
util::Result<Summary> summarize(const std::string& path, const util::DiskArrayOptions& scratch = {},
                                const campaign::Campaign* campaign = nullptr);

}  // namespace report
