#pragma once
// Checks made before anything is sent: the template named by the campaign, and the preview
// that `run` shows on a terminal.

#include <optional>
#include <string>

#include "campaign/campaign.hpp"
#include "campaign/media_verdicts.hpp"
#include "results/replay.hpp"
#include "runner/send_options.hpp"
#include "runner/send_steps.hpp"
#include "runner/ui.hpp"
#include "service/http.hpp"
#include "util/result.hpp"

namespace runner {

struct TemplateCheckResult {
    std::optional<queue::StopReason> stop{};  // auth (a refused key), account, tls or endpoint: stop (exit 3)
    // The list could not be had (no answer, an error status, a body that is not a template
    // list): the campaign cannot be checked, as when `templates` cannot list them (exit 3).
    bool unreachable = false;
    std::string message{};
    // The campaign's template was chosen among several records of its name and language: which.
    std::string note{};
};

// Asks the service for its templates and checks that `campaign.template_check` names one with
// status APPROVED. Fails (for exit 2) when it does not, or the list cannot be had; a refused
// key or account, a certificate that failed verification, or a wrong URL comes back as `stop`.
util::Result<TemplateCheckResult> check_template(const campaign::Campaign& campaign, service::HttpTransport& transport);

// For a template campaign (message.type: template): asks the service for its templates once and
// finds the campaign's (match_template), filling in its id, category and text, and `note` when it
// was chosen among several records. Fails (exit 2)
// when the template does not fit the campaign; a refused key or account, a certificate that
// failed verification or a wrong endpoint comes back as `stop`, a list that cannot be had as
// `unreachable`.
util::Result<TemplateCheckResult> resolve_template(campaign::Campaign& campaign, service::HttpTransport& transport);

// Counts what `run` would do with every row now (one pass over the CSV, each row that could be
// sent screened against the account's ledger as the run will screen it), says when it starts
// and about how long it takes, and renders the first message that will be sent. The cost is
// estimated at the template's category in `priced_as` when given (a category that changed under
// the campaign), else in the run's campaign.
util::Result<Preview> make_preview(const SendRun& run, const campaign::Campaign* priced_as = nullptr);

// The CSV's data rows, and the jobs a run will start: the rows less those the log has settled,
// capped by the limit.
struct JobEstimate {
    std::int64_t rows = 0;
    std::int64_t jobs = 0;
};

// Estimates, cheaply (the CSV is read but not validated), how many rows a run will send. For
// progress: what remains, and the ETA.
JobEstimate estimate_jobs(const campaign::Campaign& campaign, const results::LogState* state,
                          const SendOptions& options);

}  // namespace runner
