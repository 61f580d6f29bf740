#pragma once
// What a run reports, as it goes, to whatever watches it besides the person running it (the
// metrics exporters of observe/). The runner calls it; it never prints or fails the run.

#include "queue/job.hpp"
#include "results/status.hpp"
#include "runner/ui.hpp"
#include "service/classify.hpp"

namespace runner {

class RunWatch {
public:
    virtual ~RunWatch() = default;
    // A row's outcome in this run was recorded: its last `result` record of the run, with
    // `status` and `cause` (none when sent). A failed request that is to be retried is not one.
    virtual void recorded(results::Status status, results::Cause cause) = 0;
    // A request came back, or was given up, with `outcome`.
    virtual void answered(const service::Outcome& outcome) = 0;
    // The queue's state with the runner's figures: about once a second while sending, and once
    // more when the queue has stopped (nothing in flight, no pause).
    virtual void progress(const queue::Progress& progress, const RunFigures& figures) = 0;
};

}  // namespace runner
