#pragma once
// One run's figures as Prometheus metric families (docs/metrics.md), every series labelled
// with the campaign, rendered in the text exposition format. Pure: no clock, no I/O. Its
// series are bounded whatever the number of recipients: statuses, causes and request
// outcomes are fixed sets, and one pause reason is kept at a time.

#include <chrono>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "queue/job.hpp"
#include "results/status.hpp"
#include "runner/ui.hpp"
#include "service/classify.hpp"

namespace observe {

// The name of the family that says when the campaign last ran successfully.
inline constexpr std::string_view k_last_success = "wacamp_last_success_timestamp_seconds";

class RunMetrics {
public:
    // Starts every family at zero for `campaign`.
    explicit RunMetrics(std::string campaign);
    ~RunMetrics();
    RunMetrics(const RunMetrics&) = delete;
    RunMetrics& operator=(const RunMetrics&) = delete;

    // Counts a row's outcome in this run, as its result record says.
    void recorded(results::Status status, results::Cause cause);
    // Counts a request's outcome (and a throttled one).
    void answered(const service::Outcome& outcome);
    // Sets the queue's gauges from `progress` and the runner's `figures`.
    void progress(const queue::Progress& progress, const runner::RunFigures& figures);
    // Sets how long the run has taken so far.
    void set_duration(std::chrono::duration<double> elapsed);

    // Returns every family with a series, HELP and TYPE lines first, in the text exposition
    // format; with `last_success` (Unix seconds) also wacamp_last_success_timestamp_seconds.
    std::string render(std::optional<double> last_success) const;

private:
    struct Families;
    std::string m_campaign;
    std::unique_ptr<Families> m_families;
};

// Returns a request's outcome as the label of wacamp_requests_total: "sent", "no_answer" (it
// left and got no answer), else the service's cause ("rate_limited", "transient", …).
std::string_view request_outcome(const service::Outcome& outcome);

// Returns the value of wacamp_last_success_timestamp_seconds for `campaign` in `exposition`
// (a metrics file an earlier run wrote); nothing when it holds none.
std::optional<double> last_success_in(std::string_view exposition, std::string_view campaign);

}  // namespace observe
