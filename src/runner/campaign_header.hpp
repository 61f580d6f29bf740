#pragma once
// The campaign record that opens every result log, real or dry run.

#include "campaign/campaign.hpp"
#include "results/records.hpp"
#include "util/clock.hpp"
#include "util/result.hpp"

namespace runner {

// Returns the campaign record for a log of `mode` of `campaign` started at `now`: its name, the
// absolute paths of the campaign file and the recipient list with their SHA-256, and this
// version. Fails, with the path, when either file cannot be read.
util::Result<results::CampaignHeader> make_campaign_header(const campaign::Campaign& campaign, results::Mode mode,
                                                           util::TimePoint now);

}  // namespace runner
