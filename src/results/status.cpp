#include "results/status.hpp"

#include <numeric>

namespace results {

namespace {

constexpr std::array<std::string_view, k_status_count> k_status_names = {"sent",    "failed",  "invalid",
                                                                         "skipped", "dry_run", "unknown"};
constexpr std::array<std::string_view, k_cause_count> k_cause_names = {
    "none",           "rate_limited",    "transient",       "auth",
    "spam_limit",     "rejected",        "invalid",         "duplicate",
    "pair_rate",      "marketing_limit", "opted_out",       "undeliverable",
    "outside_window", "account",         "suppressed",      "frequency_cap",
    "template",       "template_params", "template_paused", "template_disabled",
    "experiment",     "policy_block",    "region_paused"};
constexpr std::array<std::string_view, 2> k_mode_names = {"send", "dry_run"};

template <typename E, std::size_t N>
std::optional<E> find_name(const std::array<std::string_view, N>& names, std::string_view text) {
    for (std::size_t i = 0; i < N; ++i) {
        if (names[i] == text) {
            return static_cast<E>(i);
        }
    }
    return std::nullopt;
}

}  // namespace

std::string_view to_string(Status status) {
    return k_status_names.at(static_cast<std::size_t>(status));
}

std::string_view to_string(Cause cause) {
    return k_cause_names.at(static_cast<std::size_t>(cause));
}

std::string_view to_string(Mode mode) {
    return k_mode_names.at(static_cast<std::size_t>(mode));
}

std::optional<Status> parse_status(std::string_view text) {
    return find_name<Status>(k_status_names, text);
}

std::optional<Cause> parse_cause(std::string_view text) {
    return find_name<Cause>(k_cause_names, text);
}

std::optional<Mode> parse_mode(std::string_view text) {
    return find_name<Mode>(k_mode_names, text);
}

std::int64_t StatusCounts::total() const {
    return std::accumulate(by_status.begin(), by_status.end(), std::int64_t{0});
}

}  // namespace results
