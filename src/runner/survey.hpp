#pragma once
// One pass over a campaign's list as a dry run and validate make it: each row read and screened
// (ScreenedRows), and of the rows to send what the plan and the cost estimate are made from.

#include <cstdint>
#include <functional>
#include <optional>

#include "campaign/campaign.hpp"
#include "campaign/pricing.hpp"
#include "campaign/recipients.hpp"
#include "runner/account_book.hpp"
#include "runner/plan.hpp"
#include "runner/screened_rows.hpp"
#include "util/clock.hpp"
#include "util/result.hpp"

namespace runner {

// What a survey found of the rows to send: those valid and not held back by the screening.
struct Survey {
    std::int64_t to_send = 0;
    RecentlyMessaged recent;            // of them: numbers the account messaged lately
    std::optional<ZoneSequence> zones;  // with a window per recipient: their zones, in order
    campaign::CostEstimate cost;
    // The list could not be read to its end, or the ledger failed: why. The rows read before
    // were surveyed.
    std::optional<util::Error> unread;

    // The plan's inputs for these rows at `now`, the ledger's room read from `book` (may be null).
    PlanInputs plan_inputs(util::TimePoint now, AccountBook* book);
};

// Told of each row read, what the screening said of it, and whether it is one to send.
using SurveyRow = std::function<util::Result<void>(const campaign::Recipient&, const Screening&, bool to_send)>;

// Reads `rows` of `campaign` to the end, at the wall time of `clock`, telling `each` of every row
// after counting it. Fails when the cost cannot be estimated, a row's zone cannot be kept, or
// `each` fails; a list (or ledger) that fails part way is Survey::unread.
util::Result<Survey> survey(const campaign::Campaign& campaign, ScreenedRows& rows, const util::Clock& clock,
                            const SurveyRow& each);

}  // namespace runner
