#pragma once
// The vocabulary of the result log: a recipient's status, the cause of a failure, the run's
// mode, and counts per status (docs/result-log.md).

#include <array>
#include <cstdint>
#include <optional>
#include <string_view>

namespace results {

enum class Status : std::uint8_t { sent, failed, invalid, skipped, dry_run, unknown };
inline constexpr std::size_t k_status_count = 6;

// Why a recipient did not end `sent`; `none` when it did (or nothing went wrong). The causes
// after `duplicate` name Meta's answers about one recipient (docs/result-log.md) and what the
// account's ledger skips (`suppressed`, `frequency_cap`).
enum class Cause : std::uint8_t {
    none,
    rate_limited,
    transient,
    auth,
    spam_limit,
    rejected,
    invalid,
    duplicate,
    pair_rate,        // Meta 131056: too many messages to this one user just now
    marketing_limit,  // Meta 131049: the user's marketing limit; retried once 24 h have passed
    opted_out,        // Meta 131050: the user stopped marketing messages; never retried
    undeliverable,    // Meta 131026: not on WhatsApp, an old app, terms not accepted
    outside_window,   // Meta 131047: more than 24 h since the user last wrote
    account,          // Meta 131031, 131042, 131045, 133010, 131064: the account cannot send
    suppressed,       // on the account's suppression list
    frequency_cap,    // messaged as often as rate.per_recipient allows
    // Meta's template answers and its policy block (docs/result-log.md):
    template_refused,   // "template": 132000, 132001, 132007: the campaign stopped
    template_params,    // 132005, 132012, 132018: this row's values
    template_paused,    // 132015: paused by Meta for low quality: the campaign stopped
    template_disabled,  // 132016: the campaign stopped; a new template is needed
    experiment,         // 130472: the user is in a Meta marketing experiment; never retried
    policy_block,       // 368: the account is temporarily blocked for a policy violation
    region_paused,      // skipped: a MARKETING template to a region Meta delivers none to (message.paused_regions)
};
inline constexpr std::size_t k_cause_count = 23;

// Whether the log belongs to a real run or a dry run ("send" / "dry_run").
enum class Mode : std::uint8_t { send, dry_run };

// Returns the log's spelling of `status` ("sent", "dry_run", …).
std::string_view to_string(Status status);
// Returns the log's spelling of `cause` ("rate_limited", …; "none" for none).
std::string_view to_string(Cause cause);
// Returns "send" or "dry_run".
std::string_view to_string(Mode mode);

// Returns the Status spelled `text`, or nothing when it names none.
std::optional<Status> parse_status(std::string_view text);
// Returns the Cause spelled `text`, or nothing when it names none.
std::optional<Cause> parse_cause(std::string_view text);
// Returns the Mode spelled `text`, or nothing when it names none.
std::optional<Mode> parse_mode(std::string_view text);

// How many recipients ended in each status.
struct StatusCounts {
    std::array<std::int64_t, k_status_count> by_status{};

    std::int64_t& operator[](Status s) { return by_status[static_cast<std::size_t>(s)]; }
    std::int64_t operator[](Status s) const { return by_status[static_cast<std::size_t>(s)]; }
    // Returns the sum over all statuses.
    std::int64_t total() const;
    bool operator==(const StatusCounts&) const = default;
};

// How many recipients ended `failed` or `skipped` for each cause.
struct CauseCounts {
    std::array<std::int64_t, k_cause_count> by_cause{};

    std::int64_t& operator[](Cause c) { return by_cause[static_cast<std::size_t>(c)]; }
    std::int64_t operator[](Cause c) const { return by_cause[static_cast<std::size_t>(c)]; }
    bool operator==(const CauseCounts&) const = default;
};

// Whether a row in `status` is counted in CauseCounts under its cause.
constexpr bool counts_cause(Status status) {
    return status == Status::failed || status == Status::skipped;
}

// Every status, in declaration order, for loops over counts.
inline constexpr std::array<Status, k_status_count> k_all_statuses = {
    Status::sent, Status::failed, Status::invalid, Status::skipped, Status::dry_run, Status::unknown};

}  // namespace results
