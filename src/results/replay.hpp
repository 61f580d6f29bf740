#pragma once
// Folds a whole result log into what run, resume and the deletion step need to know. Memory does
// not grow with the log: per-row records live in a temporary file (util::DiskArray), and the
// numbers sent and the ids deleted are joined with the recipient list by external sorts
// (docs/decisions.md, "The replay's memory").

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "results/records.hpp"
#include "results/row_fold.hpp"
#include "util/clock.hpp"
#include "util/disk_array.hpp"
#include "util/external_sort.hpp"
#include "util/result.hpp"

namespace results {

// What the log says about one CSV row, and what joining the log with the recipient list found
// for it; 40 bytes, kept on disk (util::DiskArray), not in memory.
struct RowRecord : RowFold {
    static constexpr std::uint8_t k_number_sent = 1;        // a `sent` result names the row's number
    static constexpr std::uint8_t k_number_unknown = 2;     // its number had an unknown outcome under an earlier list
    static constexpr std::uint8_t k_user_deleted = 4;       // a `deleted` batch names the row's user_id
    static constexpr std::uint8_t k_marketing_limited = 8;  // its latest result: refused for the marketing limit
    static constexpr std::uint8_t k_priced = 16;            // its `sent` result carried a `price` (LogState::spent)

    std::uint8_t marks = 0;
    std::uint8_t unused = 0;
    std::int64_t marketing_at = 0;  // util::TimePoint ticks, with k_marketing_limited
    std::uint64_t number = 0;       // wa_id_code() of the latest record's wa_id; 0: none, or no list joined
    // listed_fingerprint() of the number the list had at this row when it was joined (0: none):
    // the sending pass reads the list again, and must find the same number there.
    std::uint64_t listed = 0;
    // Which record is the row's latest `attempt`, `result` or `unsent`: its ordinal among the
    // records after the header (LogState::records − 1 when it was read), modulo 2^32; 0: none.
    std::uint32_t latest_record = 0;
    // ReplayOptions::observe's answer for the row's latest `result`; 0 before any.
    std::uint32_t note = 0;

    bool marked(std::uint8_t mark) const { return (marks & mark) != 0; }
    // When the row's latest result was a marketing-limit refusal: that answer's time.
    std::optional<util::TimePoint> marketing_limited_at() const {
        if (!marked(k_marketing_limited)) {
            return std::nullopt;
        }
        return util::TimePoint(util::TimePoint::duration(marketing_at));
    }
};

// One row of the recipient list, as the replay joins it with the log.
struct ListedRow {
    std::int64_t row = 0;
    std::string wa_id;    // its normalised number; empty when the row has none
    std::string user_id;  // empty when none
};

// A number's fingerprint as RowRecord::listed keeps it: never 0.
std::uint64_t listed_fingerprint(std::string_view wa_id);

// The recipient list's rows in increasing row order, by the stream contract of util/result.hpp.
using RowSource = std::function<util::Result<bool>(ListedRow&)>;

struct ReplayOptions {
    // Count the `sent` results newer than `now` − 24 h (for rate.per_day); none are counted
    // when unset.
    std::optional<util::TimePoint> now{};
    // The recipient list as it is now. When set, every row is marked with whether its number
    // was sent (or had an unknown outcome) under any row, and whether its user_id was deleted
    // (LogState::joined()); run, resume and the deletion step need it, the counts do not.
    RowSource rows{};
    // A reader's own figures (report's), from each record after the header in log order, before
    // the replay folds it. What it returns for a `result` is kept with the row: RowRecord::note.
    std::function<std::uint32_t(const Record&)> observe{};
    // Where the per-row records and the sorts of numbers and ids go (tests make them fail).
    util::DiskArrayOptions records{};
    util::ExternalSortOptions sort{};
};

// `sent` results of the trailing 24 hours, counted by minute: each minute's sends carry the
// end of that minute (a send counts a little longer, never shorter), sends later than `now`
// all carry the latest of them. At most 1,442 entries however many sends.
struct RecentSends {
    util::TimePoint at;
    std::int64_t count = 0;
};

struct LogState {
    CampaignHeader header;         // line 1
    CampaignHeader latest_header;  // the last `campaign` record (a later run may add one)
    int runs = 1;                  // `campaign` records in the log
    StatusCounts counts;           // rows per status; pending rows are not counted
    std::int64_t named_rows = 0;   // rows an attempt, result or unsent names (pending ones too)
    CauseCounts causes;            // failed and skipped rows per cause
    // The sum of `price` over the rows' `sent` results (each row's first), and how many carried one.
    double spent = 0;
    std::int64_t priced = 0;
    // The category of the template the last `sent` result that names one was sent at, as the
    // log has it: what the campaign last sent at ("" when none says).
    std::string sent_category;
    std::optional<util::TimePoint> first_at;  // earliest time any record carries
    std::optional<util::TimePoint> last_at;   // latest time any record carries
    std::vector<RecentSends> recent_sent;     // see ReplayOptions::now; oldest first
    int delete_batches = 0;
    int delete_batches_failed = 0;
    std::optional<EndRecord> last_end;  // the latest `end` record
    bool ended = false;                 // an `end` follows the last record but `delete` ones: the last run finished
    std::int64_t records = 0;           // records read
    std::vector<std::string> warnings;  // "PATH:LINE: …", at most about a hundred, then a note of the rest
    std::int64_t warning_count = 0;     // all of them

    // Returns what is known of `row` (1-based); a pending row without marks for rows neither
    // the log nor the list names. Fails when the records cannot be read back from disk (the
    // caller must stop: an unreadable row is not a pending one).
    util::Result<RowRecord> record(std::int64_t row) const;
    // The state part of record().
    util::Result<RowState> row(std::int64_t row) const;
    // Returns the highest row number the log names (0 when none).
    std::int64_t max_row() const { return m_max_row; }
    // Whether the rows carry the marks of ReplayOptions::rows.
    bool joined() const { return m_joined; }
    // With ReplayOptions::rows: the list's highest row number (its rows are 1 to this).
    std::int64_t listed_rows() const { return m_listed_rows; }

    // For replay().
    mutable util::DiskArray<RowRecord> m_records;  // by row number
    std::int64_t m_max_row = 0;
    std::int64_t m_listed_rows = 0;
    bool m_joined = false;
};

// Row numbers above this are taken for corruption (warned and ignored), not a reason to
// allocate gigabytes.
inline constexpr std::int64_t k_max_row = 100'000'000;

// Reads the log at `path` to its end and folds it into a LogState, joined with
// `options.rows` when set. Fails when the file cannot be read or its first line is not a
// `campaign` record (an empty file included), when the list cannot be read, and when a
// temporary file cannot be made, written or read back (util::ErrorKind::temp_file); unusable
// lines are warnings, not failures.
util::Result<LogState> replay(const std::string& path, const ReplayOptions& options = {});

}  // namespace results
