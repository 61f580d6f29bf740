#pragma once
// What a run's summary says of the rows that failed or were skipped, by cause: the counts, and
// what a person can do about the causes Meta gives for one recipient.

#include <nlohmann/json_fwd.hpp>
#include <string>

#include "results/status.hpp"
#include "runner/send.hpp"
#include "util/clock.hpp"
#include "util/zone.hpp"

namespace cli {

// Returns the summary's lines ("  …\n") on failed and skipped rows by cause: one line of
// counts, then a line for each cause that needs explaining (outside_window, marketing_limit,
// pair_rate, opted_out); times are shown on `shown`'s clock beside UTC, dated unless on `now`'s
// day. "" when no row failed or was skipped.
std::string cause_lines(const runner::SendReport& report, util::TimePoint now, const util::TimeZone& shown);

// Returns "N held for WhatsApp's marketing limit until T" for rows this run left alone because
// Meta's marketing limit refused them less than 24 h ago (T as cause_lines says it); "" when none.
std::string marketing_hold_note(const runner::SendReport& report, util::TimePoint now, const util::TimeZone& shown);

// Returns "opted_out 1, outside_window 2": the failed rows per cause (the causes of skipped
// rows left out); "" when none.
std::string failed_causes(const results::CauseCounts& causes);

// Returns "suppressed 2, frequency_cap 1": every cause counted in `causes`, in the enum's order;
// "" when none.
std::string cause_list(const results::CauseCounts& causes);

// Returns the sum of `causes` over every cause.
std::int64_t total_of(const results::CauseCounts& causes);

// Returns {"opted_out": 1, …}: the failed and skipped rows per cause, for causes with any.
nlohmann::ordered_json cause_counts_json(const results::CauseCounts& causes);

// Returns "N recipient(s) not sent: Meta delivers no MARKETING template to their region
// (message.paused_regions; region_paused)\n" for the rows of `causes` held back so; "" for none.
std::string region_paused_line(const results::CauseCounts& causes);

// Returns `causes` without region_paused: what the account's ledger held back.
results::CauseCounts ledger_causes(results::CauseCounts causes);

}  // namespace cli
