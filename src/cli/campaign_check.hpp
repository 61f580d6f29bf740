#pragma once
// A campaign checked whole before a command does anything with it (validate, run, the dry run):
// the campaign file's keys and values, the columns and placeholders against the CSV's header,
// and a template campaign's template against the account's template list. Every problem is
// reported at once, each as "FILE:LINE: …".

#include <optional>
#include <string>
#include <vector>

#include "campaign/campaign.hpp"
#include "campaign/campaign_file.hpp"
#include "cli/exit_code.hpp"
#include "cli/output.hpp"

namespace cli {

// Whether a template campaign is checked against the account's template list (one GET), or
// not (--offline: said so).
enum class TemplateList { read, offline };

// A campaign that may be used, or the exit code of a command that must end (2: a problem of
// the campaign; 3: the service refused the key or the account, or could not be reached).
struct CheckedCampaign {
    std::optional<campaign::Campaign> campaign;
    int exit_code = k_exit_done;
};

// Reads the campaign file at `path` and checks it whole: every key (with `secrets`), every
// mapped column and placeholder against the CSV's header, and, for a template campaign, its
// template as `list` says (check_template). Reports every problem found at once through `out`,
// then "FILE is not usable; nothing was sent" (exit 2); only a file that cannot be read or is
// not one YAML mapping stops the check before the rest. A usable campaign is adopted
// (adopt_campaign) and returned.
CheckedCampaign check_campaign_or_report(const std::string& path, campaign::SecretsPolicy secrets, TemplateList list,
                                         Output& out);

// Why a template campaign cannot be sent as it is: the exit code (2: the template does not fit
// or cannot be checked for want of service.api_key; 3: a refused key or account, a
// certificate, a wrong endpoint, or no template list to be had) and what to say.
struct TemplateRefusal {
    ExitCode code = k_exit_bad_input;
    std::string message;
};

// For a template campaign, asks the service for its template list once and checks `campaign`
// against its template (runner::resolve_template), filling in the template's id; with
// TemplateList::offline says "template not checked" instead. Says through `out` what it found
// (the template is APPROVED, which record was used); returns why the campaign cannot be sent,
// or nothing.
std::optional<TemplateRefusal> check_template(campaign::Campaign& campaign, TemplateList list, Output& out);

// Makes `campaign` the command's: registers its secrets with `out`, names it (and its account)
// in every JSON line, and warns of plain http:// to a host that is not loopback. Returns false
// when the log file is one of the campaign's own files (reported, exit 2).
bool adopt_campaign(const campaign::Campaign& campaign, Output& out);

// Reports `problems` (each "FILE:LINE: …") of the campaign file at `path` as one error, exit 2:
// text adds "wacamp: error: PATH is not usable; nothing was sent".
void report_unusable(const std::string& path, const std::vector<std::string>& problems, Output& out);

}  // namespace cli
