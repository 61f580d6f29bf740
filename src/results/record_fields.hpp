#pragma once
// The members of one result-log line as parse_record reads them: every key any record kind
// has, and the reader that fills them from the line in one pass (util::JsonScanner, no DOM).
// Internal to results/.

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "results/records.hpp"
#include "util/json_scan.hpp"

namespace results::detail {

// Every field any record kind has. The hot ones come first: lookup is a linear scan.
enum class Key : std::uint8_t {
    event,
    row,
    wa_id,
    at,
    attempt,
    status,
    user_name,
    attempts,
    http_status,
    latency_ms,
    error,
    cause,
    error_code,
    message_id,
    batch,
    ids,
    subscriber_ids,
    reason,
    counts,
    name,
    campaign_file,
    campaign_sha256,
    recipients_file,
    recipients_sha256,
    started_at,
    version,
    mode,
    message,
    defaults,
    template_name,
    category,
    preview,
    plan,
    recovered,
    price,
    rate_card,
    count_
};
inline constexpr auto k_key_count = static_cast<std::size_t>(Key::count_);
inline constexpr std::array<std::string_view, k_key_count> k_key_names = {"event",
                                                                          "row",
                                                                          "wa_id",
                                                                          "at",
                                                                          "attempt",
                                                                          "status",
                                                                          "user_name",
                                                                          "attempts",
                                                                          "http_status",
                                                                          "latency_ms",
                                                                          "error",
                                                                          "cause",
                                                                          "error_code",
                                                                          "message_id",
                                                                          "batch",
                                                                          "ids",
                                                                          "subscriber_ids",
                                                                          "reason",
                                                                          "counts",
                                                                          "name",
                                                                          "campaign_file",
                                                                          "campaign_sha256",
                                                                          "recipients_file",
                                                                          "recipients_sha256",
                                                                          "started_at",
                                                                          "version",
                                                                          "mode",
                                                                          "message",
                                                                          "defaults",
                                                                          "template",
                                                                          "category",
                                                                          "preview",
                                                                          "plan",
                                                                          "recovered",
                                                                          "price",
                                                                          "rate_card"};

// The members of one line, by key; `null` counts as absent.
struct Fields {
    std::array<bool, k_key_count> present{};
    std::array<std::string_view, k_key_count> text;  // into the line, or into `decoded`
    std::array<std::string, k_key_count> decoded;    // strings that had escapes
    std::array<std::int64_t, k_key_count> number{};
    std::vector<std::string> ids;
    std::vector<std::string> subscriber_ids;
    std::vector<std::string> defaults;
    std::optional<MessageContent> message;
    std::optional<TemplatePreview> preview;
    std::optional<PlanSummary> plan;
    std::optional<double> price;  // a JSON number; anything else there is left out, not an error
    std::optional<RateCardRef> rate_card;
    StatusCounts counts;
    std::string mistyped;  // a known field of the wrong type: valid JSON, unusable record

    bool has(Key k) const { return present[static_cast<std::size_t>(k)]; }
    std::string_view str(Key k) const { return text[static_cast<std::size_t>(k)]; }
    std::int64_t num(Key k) const { return number[static_cast<std::size_t>(k)]; }
};

// Reads the member `name` of a line into `f` (skipping one no record kind has); false when the
// line is not JSON as expected, or a known member has the wrong type (then `f.mistyped` says so).
bool read_member(util::JsonScanner& in, Fields& f, std::string_view name);

}  // namespace results::detail
