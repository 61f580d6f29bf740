#pragma once
// A real run of a campaign: from the campaign file and CSV (and an existing result log, which
// it continues) through the queue to the service, recording everything in the result log,
// then the contact-deletion step when configured.

#include <atomic>
#include <chrono>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "account/ledger.hpp"
#include "campaign/campaign.hpp"
#include "queue/dispatcher.hpp"
#include "results/log_writer.hpp"
#include "results/replay.hpp"
#include "results/status.hpp"
#include "runner/account_book.hpp"
#include "runner/send_options.hpp"
#include "runner/send_parts.hpp"
#include "runner/send_report.hpp"
#include "runner/ui.hpp"
#include "runner/watch.hpp"
#include "service/http.hpp"
#include "util/clock.hpp"
#include "util/result.hpp"

namespace runner {

// Runs `campaign`: prepares, checks its images (message.check_media), asks for confirmation
// and waits for the start time, sends, and
// finishes (end record, deletion step). Fails (nothing sent) on unusable input: a CSV whose
// header lacks a mapped column, a log of changed inputs without ChangedInputs::accept, a held
// lock, a template that is not approved.
util::Result<SendReport> send_campaign(const campaign::Campaign& campaign, const SendOptions& options,
                                       const SendParts& parts);

}  // namespace runner
