#pragma once
// What run, resume and delete-contacts share: loading the campaign, the end-of-run summary,
// and the exit code of a run.

#include <atomic>
#include <optional>
#include <string>

#include "campaign/campaign.hpp"
#include "campaign/campaign_file.hpp"
#include "runner/send.hpp"
#include "util/redact.hpp"

namespace cli {

// Loads the campaign at `path`, printing every problem on stderr when it cannot; registers
// its secrets with `redactor`.
std::optional<campaign::Campaign> load_campaign_or_report(const std::string& path, campaign::SecretsPolicy secrets,
                                                          util::Redactor& redactor);

// Runs `campaign` with `options` and prints its summary (or why nothing was sent); returns
// the exit code.
int send_and_summarise(const campaign::Campaign& campaign, const runner::SendOptions& options,
                       runner::RunUi& ui, const std::atomic<int>& stops, const util::Redactor& redactor);

// Prints the summary of a finished (or stopped) run on stdout.
void print_send_summary(const campaign::Campaign& campaign, const runner::SendReport& report,
                        const util::Redactor& redactor);

// The exit code for a run that ended as `report` says.
int exit_code_for(const runner::SendReport& report);

// The log's durability for a --sync value ("every", "none", else interval).
results::Durability durability_of(const std::string& sync);

// Reads the campaign header of the result log at `path`: the campaign file it names.
util::Result<std::string> campaign_file_of_log(const std::string& path);

} // namespace cli
