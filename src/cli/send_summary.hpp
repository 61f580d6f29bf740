#pragma once
// The end of a run as the person (text) or a log collector (one summary object) sees it.

#include "campaign/campaign.hpp"
#include "cli/output.hpp"
#include "runner/send.hpp"

namespace cli {

// Prints the summary of a finished (or stopped) run that exits with `exit_code` on stdout:
// counts, why it stopped, where the log is and the commands that continue the campaign; for
// exit codes 1 and 3 also one line on stderr saying why ("wacamp: error: …", an error object).
void print_send_summary(const campaign::Campaign& campaign, const runner::SendReport& report, int exit_code,
                        Output& out);

// The level of a summary that ends with `exit_code`: info for 0, warning for 1, else error.
Level level_for(int exit_code);

}  // namespace cli
