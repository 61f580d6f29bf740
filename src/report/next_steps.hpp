#pragma once
// What a report says beyond the log: the recipient list as it is now (how many of its rows the
// log has not reached yet) and the next step, with its exact command.

#include <vector>

#include "report/summary.hpp"
#include "results/records.hpp"

namespace report {

// Looks at the recipient list `header` names: its data rows now (a comma-separated CSV; the
// count is of records, whatever the delimiter) and whether its SHA-256 is still the header's.
ListState look_at_list(const results::CampaignHeader& header);

// Returns what to do next with the campaign of `summary`, the step to take first; empty when
// nothing is left to do. Each step is said once.
std::vector<NextStep> next_steps_for(const Summary& summary);

}  // namespace report
