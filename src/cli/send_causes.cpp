#include "cli/send_causes.hpp"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "results/retry_rule.hpp"
#include "runner/send.hpp"
#include "util/time.hpp"

namespace cli {

namespace {

using results::Cause;

// Every cause but none, in the order of the enum.
template <typename F>
void for_each_cause(const results::CauseCounts& causes, F&& f) {
    for (std::size_t i = 1; i < results::k_cause_count; ++i) {
        const auto cause = static_cast<Cause>(i);
        if (causes[cause] > 0) {
            f(cause, causes[cause]);
        }
    }
}

// `n` rows of message.paused_regions, said for people.
std::string paused_text(std::int64_t n) {
    return fmt::format(
        "{} recipient(s) not sent: Meta delivers no MARKETING template to their region (message.paused_regions; "
        "region_paused)",
        n);
}

// What a person should know of `n` rows that ended with `cause`; "" when the counts say enough.
std::string explanation(Cause cause, std::int64_t n) {
    switch (cause) {
    case Cause::outside_window:
        return fmt::format(
            "{} recipient(s) have not written in the last 24 h: WhatsApp only lets a template message reach them "
            "(outside_window)",
            n);
    case Cause::marketing_limit:
        return fmt::format(
            "{} recipient(s) reached WhatsApp's limit of marketing messages per user (marketing_limit): a later "
            "run or resume retries them once 24 h have passed since that answer",
            n);
    case Cause::pair_rate:
        return fmt::format(
            "{} recipient(s) were still getting too many messages in a short time when this run gave up on them "
            "(pair_rate): a later run or resume tries them again",
            n);
    case Cause::opted_out:
        return fmt::format("{} recipient(s) stopped marketing messages (opted_out): they are never sent again", n);
    case Cause::region_paused: return paused_text(n) + ": a later run looks again";
    default: return {};
    }
}

}  // namespace

std::string cause_lines(const runner::SendReport& r, util::TimePoint now, const util::TimeZone& shown) {
    std::string counts;
    std::string notes;
    const auto held = marketing_hold_note(r, now, shown);
    for_each_cause(r.causes, [&](Cause cause, std::int64_t n) {
        counts += fmt::format("{}{} {}", counts.empty() ? "" : " · ", results::to_string(cause), n);
        // The hold says it with the time: the general note would say it twice.
        if (cause == Cause::marketing_limit && !held.empty()) {
            return;
        }
        if (auto text = explanation(cause, n); !text.empty()) {
            notes += "  " + text + "\n";
        }
    });
    if (!held.empty()) {
        notes += fmt::format("  {}; a later run or resume sends them then\n", held);
    }
    return counts.empty() ? notes : fmt::format("  failed or skipped, by cause: {}\n{}", counts, notes);
}

std::string marketing_hold_note(const runner::SendReport& r, util::TimePoint now, const util::TimeZone& shown) {
    if (r.held_marketing_limit == 0 || !r.marketing_limit_until) {
        return {};
    }
    return fmt::format("{} recipient(s) held for WhatsApp's marketing limit until {}", r.held_marketing_limit,
                       util::format_zoned_time(*r.marketing_limit_until, now, shown));
}

std::string region_paused_line(const results::CauseCounts& causes) {
    const std::int64_t n = causes[Cause::region_paused];
    return n > 0 ? paused_text(n) + "\n" : std::string();
}

results::CauseCounts ledger_causes(results::CauseCounts causes) {
    causes[Cause::region_paused] = 0;
    return causes;
}

std::string failed_causes(const results::CauseCounts& causes) {
    std::string out;
    for_each_cause(causes, [&](Cause cause, std::int64_t n) {
        if (!results::of_skipped_rows(cause)) {
            out += fmt::format("{}{} {}", out.empty() ? "" : ", ", results::to_string(cause), n);
        }
    });
    return out;
}

std::string cause_list(const results::CauseCounts& causes) {
    std::string out;
    for_each_cause(causes, [&](Cause cause, std::int64_t n) {
        out += fmt::format("{}{} {}", out.empty() ? "" : ", ", results::to_string(cause), n);
    });
    return out;
}

std::int64_t total_of(const results::CauseCounts& causes) {
    std::int64_t total = 0;
    for_each_cause(causes, [&](Cause, std::int64_t n) { total += n; });
    return total;
}

nlohmann::ordered_json cause_counts_json(const results::CauseCounts& causes) {
    auto out = nlohmann::ordered_json::object();
    for_each_cause(causes, [&](Cause cause, std::int64_t n) { out[std::string(results::to_string(cause))] = n; });
    return out;
}

}  // namespace cli
