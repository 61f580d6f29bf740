#pragma once
// Checks made before anything is sent: the template named by the campaign, and the preview
// that `run` shows on a terminal.

#include <optional>
#include <string>

#include "campaign/campaign.hpp"
#include "campaign/media_verdicts.hpp"
#include "results/replay.hpp"
#include "runner/send.hpp"
#include "runner/ui.hpp"
#include "service/http.hpp"
#include "util/result.hpp"

namespace runner {

struct TemplateCheckResult {
    std::optional<queue::StopReason> stop;  // auth (a refused key), account, tls or endpoint: stop (exit 3)
    std::string message;
};

// Asks the service for its templates and checks that `campaign.template_check` names one with
// status APPROVED. Fails (for exit 2) when it does not, or the list cannot be had; a refused
// key or account, a certificate that failed verification, or a wrong URL comes back as `stop`.
util::Result<TemplateCheckResult> check_template(const campaign::Campaign& campaign, service::HttpTransport& transport);

// Counts what a run would do with every row at `now` (one pass over the CSV) and renders the
// first message to be sent. `state` is the existing log's, or null; `media`, the images refused
// by a check before sending, or null.
util::Result<Preview> make_preview(const campaign::Campaign& campaign, const results::LogState* state,
                                   const SendOptions& options, const std::string& results_path, util::TimePoint now,
                                   const campaign::MediaVerdicts* media = nullptr);

// Estimates, cheaply (the CSV is read but not validated), how many rows a run will send: the
// CSV's rows less those the log has settled, capped by the limit. For progress and its ETA.
std::int64_t estimate_jobs(const campaign::Campaign& campaign, const results::LogState* state,
                           const SendOptions& options);

}  // namespace runner
