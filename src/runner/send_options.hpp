#pragma once
// What a run of a campaign is asked to do (send_campaign's options): the flags of `run` and
// `resume` as the runner takes them.

#include <string>

#include "results/log_writer.hpp"

namespace runner {

enum class RetryRejected { no, yes };
enum class ResendUnknown { no, yes };
enum class ChangedInputs { refuse, accept };
// Whether schedule.not_after and schedule.max_delay are waived for this run (--late-ok).
enum class LateOk { no, yes };
// Whether connections are opened before the first send (runner/warm_up.hpp): the CLI's runs do,
// over the real transport; tests of the loop over a fake one need not.
enum class WarmConnections { no, yes };

struct SendOptions {
    std::string results_path;  // empty: the campaign's
    long long limit = 0;       // recipients to dispatch this run; 0: all
    ChangedInputs changed_inputs = ChangedInputs::refuse;
    RetryRejected retry_rejected = RetryRejected::no;
    ResendUnknown resend_unknown = ResendUnknown::no;
    results::Durability durability = results::Durability::interval;  // when the log is fdatasync'ed
    LateOk late_ok = LateOk::no;
};

}  // namespace runner
