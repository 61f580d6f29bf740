#pragma once
// Why a dispatch ended: the result log's `end.reason` and the summary's words.

#include <string_view>

namespace queue {

enum class StopReason {
    completed,
    limit,
    auth,
    spam_limit,
    account,  // Meta said the account cannot send (locked, payment, not registered, …)
    failure_threshold,
    interrupted,
    log_error,
    input_error,
    throttled,
    tls,
    ledger_error,       // the account's ledger could not be read or written
    endpoint,           // the service has no such URL (404, 405): service.base_url is wrong
    template_refused,   // "template": Meta refused the template itself (132000, 132001, 132007), or
                        // 10 rows' values in a row (132005, 132012, 132018)
    template_paused,    // 132015: Meta paused the template for low quality
    template_disabled,  // 132016: Meta disabled the template
    policy_block,       // 368: the account is temporarily blocked for a policy violation
    too_late,           // schedule.not_after passed, or nothing sent by start_at + max_delay (queue::Deadline)
    temp_file_error,    // a temporary file (the rows set aside for their windows) could not be made,
                        // written or read back: the log is fine, the rows are as they were
    budget,             // the next row's price would pass pricing.budget (or --budget)
    template_changed,   // the template's category changed in the template list while sending
                        // (runner::TemplateRecheck): its price changed with it
};

// The log's name of `reason`: "completed", "limit", "auth", …
std::string_view to_string(StopReason reason);

}  // namespace queue
