#pragma once
// The records of the result log and their JSON Lines form (docs/result-log.md).
// Secrets never reach a record: no field holds one.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "results/status.hpp"
#include "util/clock.hpp"
#include "util/result.hpp"

namespace results {

// The rate card a run priced its rows with, as its `campaign` record names it (`rate_card`).
struct RateCardRef {
    std::string path;
    std::string sha256;
    std::string currency;   // "" when the record leaves it out: USD
    std::string effective;  // YYYY-MM-DD; "" when undated
    bool operator==(const RateCardRef&) const = default;
};

// `event: "campaign"`: the first line; which inputs the campaign ran on.
struct CampaignHeader {
    std::string name;
    std::string campaign_file;
    std::string campaign_sha256;
    std::string recipients_file;
    std::string recipients_sha256;
    util::TimePoint started_at;
    std::string version;
    Mode mode = Mode::send;
    std::optional<RateCardRef> rate_card = {};  // none in a log from before prices
    bool operator==(const CampaignHeader&) const = default;
};

// `event: "attempt"`: written before each request leaves.
struct AttemptRecord {
    std::int64_t row = 0;  // CSV data row, from 1
    std::string wa_id;
    int attempt = 1;  // 1 for the first request to this row
    util::TimePoint at;
    bool operator==(const AttemptRecord&) const = default;
};

// What the recipient of a template message reads: its header (a text, or "[image] LINK" and the
// like), body and footer with the row's values filled in, and its buttons' texts.
struct TemplatePreview {
    std::string header;  // empty: none
    std::string body;
    std::string footer;  // empty: none
    std::vector<std::string> buttons;
    bool operator==(const TemplatePreview&) const = default;
};

// A dry run's rendered message: the `message` object exactly as it would be sent (for a template
// message its `params` array), and for a template what its recipient will read (`preview`).
struct MessageContent {
    bool image = false;
    std::string text;                  // a text message
    std::string source;                // an image's address
    std::optional<std::string> label;  // an image's caption, when the campaign gives one
    std::string params;                // a template message: its params array as JSON; else empty
    TemplatePreview preview;           // a template message
    bool is_template() const { return !params.empty(); }
    bool operator==(const MessageContent&) const = default;
};

// Returns what a person reads of `m`, in plain lines: a text message's text; an image's caption;
// a template message's header, body, footer, then each button as "[text]".
std::string readable_text(const MessageContent& m);

// `event: "result"`: a recipient's outcome; a later one supersedes an earlier one.
struct ResultRecord {
    std::int64_t row = 0;
    std::string wa_id;
    std::string user_name;
    Status status = Status::unknown;
    int attempts = 0;
    std::optional<int> http_status;            // when there was a response
    std::optional<std::int64_t> error_code;    // Meta's error code, when the answer carried one
    std::optional<std::string> message_id;     // when the service gave one
    std::string error;                         // written only when not sent / dry_run
    Cause cause = Cause::none;                 // written only when not sent / dry_run
    std::optional<std::int64_t> latency_ms;    // when a request was made
    std::optional<std::string> template_name;  // `template`: template campaigns: the template's name
    std::optional<std::string> category;       // template campaigns: its category, when known
    // A sent template message: the row's price at its send (none when the log holds no number there).
    std::optional<double> price = {};
    // "ledger": the row's result was taken from the account's ledger, which held what the log had
    // lost (an older copy of the log, its last seconds lost in a power cut).
    std::optional<std::string> recovered;
    std::optional<MessageContent> message;  // dry runs: the rendered message
    std::vector<std::string> defaults;      // dry runs: placeholders that took their default
    util::TimePoint at;
    bool operator==(const ResultRecord&) const = default;
};

enum class DeleteStatus : std::uint8_t { deleted, failed };

// `event: "delete"`: one batch of the contact-deletion step.
struct DeleteRecord {
    int batch = 0;  // 1 for the first batch
    std::vector<std::string> ids;
    std::vector<std::string> subscriber_ids;  // written only when not empty
    DeleteStatus status = DeleteStatus::deleted;
    std::optional<int> http_status;
    std::string error;  // written only when not empty
    util::TimePoint at;
    bool operator==(const DeleteRecord&) const = default;
};

// One country's part of a plan's cost (`plan.cost.by_country`).
struct CountryCostSummary {
    std::string country;
    std::int64_t messages = 0;
    double price = 0;
    double amount = 0;  // rounded to 4 decimals
    bool operator==(const CountryCostSummary&) const = default;
};

// A dry run's estimated cost as its `end` record keeps it (`plan.cost`, campaign::CostEstimate).
struct CostSummary {
    std::string currency;
    double total = 0;  // rounded to 4 decimals
    std::int64_t messages = 0;
    std::string category;                          // "" (null): text and image messages
    std::string rate_card;                         // "" (null): none read
    std::optional<std::string> effective;          // YYYY-MM-DD
    std::vector<CountryCostSummary> by_country{};  // most messages first
    bool operator==(const CostSummary&) const = default;
};

// A dry run's plan as its `end` record keeps it (runner::Plan): when the rows to send would go
// out, and how many in each hour from the first send's.
struct PlanSummary {
    std::string kind;  // "timed", "unbounded" or "never"
    std::int64_t messages = 0;
    std::optional<util::TimePoint> first{};
    std::optional<util::TimePoint> last{};
    std::int64_t days = 0;
    std::vector<std::int64_t> per_hour{};
    std::optional<CostSummary> cost{};
    bool operator==(const PlanSummary&) const = default;
};

// `event: "end"`: a run ended; `reason` is "completed", "interrupted", "auth",
// "spam_limit", "account", "failure_threshold", "limit", …
struct EndRecord {
    std::string reason;
    StatusCounts counts;
    util::TimePoint at;
    std::optional<PlanSummary> plan = {};  // a dry run's
    bool operator==(const EndRecord&) const = default;
};

// `event: "unsent"`: the request of attempt `attempt` was answered without being acted on (the
// service has no such URL: 404, 405): the row is as it was before that attempt.
struct UnsentRecord {
    std::int64_t row = 0;
    std::string wa_id;
    int attempt = 1;
    std::optional<int> http_status;
    std::string error;
    util::TimePoint at;
    bool operator==(const UnsentRecord&) const = default;
};

using Record = std::variant<CampaignHeader, AttemptRecord, ResultRecord, DeleteRecord, EndRecord, UnsentRecord>;

// Each returns the record as one JSON object on one line, ending in '\n'.
std::string to_line(const CampaignHeader& record);
std::string to_line(const AttemptRecord& record);
std::string to_line(const ResultRecord& record);
std::string to_line(const DeleteRecord& record);
std::string to_line(const EndRecord& record);
std::string to_line(const UnsentRecord& record);
std::string to_line(const Record& record);

// Returns the record on `line` (with or without its '\n'). Fails, saying why without a
// location, on invalid JSON, an unknown `event`, or a missing or mistyped field. Unknown
// fields are ignored, so later versions may add some.
util::Result<Record> parse_record(std::string_view line);

}  // namespace results
