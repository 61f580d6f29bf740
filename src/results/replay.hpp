#pragma once
// Folds a whole result log into what resume, run, report and cleanup need to know.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "results/records.hpp"
#include "results/wa_id_set.hpp"
#include "util/clock.hpp"
#include "util/result.hpp"

namespace results {

// What the log says about one CSV row, in 4 bytes (logs have millions of rows).
struct RowState {
    static constexpr std::uint8_t k_has_result = 1;  // a `result` was written
    static constexpr std::uint8_t k_in_flight = 2;   // an `attempt` came after the last result
    static constexpr std::uint8_t k_ever_sent = 4;   // some result said `sent`

    Status status = Status::unknown;  // the latest result's; `unknown` while in flight
    Cause cause = Cause::none;        // the latest result's
    std::uint8_t attempts = 0;        // requests made so far (saturates at 255)
    std::uint8_t flags = 0;

    // No record names the row: it was never dispatched.
    bool pending() const { return flags == 0; }
    bool has_result() const { return (flags & k_has_result) != 0; }
    // The process died with this row's request in flight: it may or may not have arrived.
    bool in_flight() const { return (flags & k_in_flight) != 0; }
    bool ever_sent() const { return (flags & k_ever_sent) != 0; }
};

struct ReplayOptions {
    // Keep the times of `sent` results newer than `now` − 24 h (for rate.per_day);
    // none are kept when unset.
    std::optional<util::TimePoint> now;
};

struct LogState {
    CampaignHeader header;                     // line 1
    CampaignHeader latest_header;              // the last `campaign` record (a later run may add one)
    int runs = 1;                              // `campaign` records in the log
    std::vector<RowState> rows;                // by row number; [0] is unused
    StatusCounts counts;                       // rows per status; pending rows are not counted
    CauseCounts causes;                        // failed and skipped rows per cause
    std::optional<util::TimePoint> first_at;   // earliest time any record carries
    std::optional<util::TimePoint> last_at;    // latest time any record carries
    std::vector<util::TimePoint> recent_sent;  // see ReplayOptions::now; oldest first
    WaIdSet sent_wa_ids;                       // every wa_id a `sent` result names
    WaIdSet unknown_wa_ids;                    // numbers of unknown outcome under an earlier recipient list
    std::vector<std::string> deleted_ids;      // ids of `deleted` batches, sorted, distinct
    // When each row whose latest result is `failed` with cause marketing_limit got that answer.
    std::unordered_map<std::int64_t, util::TimePoint> marketing_limited;
    int delete_batches = 0;
    int delete_batches_failed = 0;
    std::optional<EndRecord> last_end;  // the latest `end` record
    bool ended = false;                 // the log's last record is an `end`: the last run finished
    std::int64_t records = 0;           // records read
    std::vector<std::string> warnings;  // "PATH:LINE: …", at most about a hundred

    // Returns the state of `row` (1-based); pending for rows the log never named.
    RowState row(std::int64_t row) const;
    // Returns the highest row number the log names (0 when none).
    std::int64_t max_row() const;
    // Returns when `row` was last refused for Meta's marketing limit, or nothing when its latest
    // result is not such a refusal.
    std::optional<util::TimePoint> marketing_limited_at(std::int64_t row) const;
    // Returns whether a `deleted` batch included `id`.
    bool was_deleted(std::string_view id) const;
};

// Row numbers above this are taken for corruption (warned and ignored), not a reason to
// allocate gigabytes.
inline constexpr std::int64_t k_max_row = 100'000'000;

// Reads the log at `path` to its end and folds it into a LogState. Fails when the file
// cannot be read or its first line is not a `campaign` record (an empty file included);
// unusable lines are warnings, not failures.
util::Result<LogState> replay(const std::string& path, const ReplayOptions& options = {});

}  // namespace results
