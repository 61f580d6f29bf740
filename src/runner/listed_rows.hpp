#pragma once
// The recipient list as the log's replay joins it (results::ReplayOptions::rows): each row's
// normalised number and user_id, read in one pass of the CSV (RecipientStream::open_unsurveyed).

#include "campaign/campaign.hpp"
#include "results/replay.hpp"
#include "util/result.hpp"

namespace runner {

// Opens the CSV of `campaign` for the join. A row without a usable number has an empty wa_id;
// duplicates are not looked for (the join marks every row of a number alike), which spares
// the duplicate pass. Fails when the CSV cannot be opened or its columns do not fit.
util::Result<results::RowSource> listed_rows(const campaign::Campaign& campaign);

// Replays the log at `path` joined with the recipient list of `campaign`.
util::Result<results::LogState> replay_with_list(const std::string& path, const campaign::Campaign& campaign,
                                                 results::ReplayOptions options = {});

}  // namespace runner
