#pragma once
// Watches a run and exports its metrics (docs/metrics.md): the metrics file replaced and a
// push-add to the Pushgateway every 10 s while it sends, and both once more at the end.
// Problems are warnings: the run never stops for its metrics.

#include <chrono>
#include <functional>
#include <optional>
#include <string>

#include "observe/pushgateway.hpp"
#include "observe/run_metrics.hpp"
#include "runner/watch.hpp"
#include "service/http.hpp"
#include "util/clock.hpp"

namespace observe {

// How often the metrics are exported while the run sends.
inline constexpr std::chrono::seconds k_export_interval{10};

// Where the metrics go; either may be absent.
struct ExportTargets {
    std::string file;                // --metrics-file, checked (check_metrics_path); "": none
    std::optional<PushTarget> push;  // --metrics-push
};

// What the exporter reads the time from, pushes through and warns with; all outlive it.
struct ExportParts {
    const util::Clock& clock;
    service::HttpTransport* push_transport = nullptr;  // for pushes alone; needed with a push target
    std::function<void(const std::string&)> warn;      // a problem, for the person running it
};

enum class RunSucceeded { no, yes };
enum class FinalPush { wait, skip };

class MetricsExporter final : public runner::RunWatch {
public:
    // Exports `campaign`'s metrics to `targets`. An existing metrics file's last success of
    // the campaign is kept until this run succeeds.
    MetricsExporter(std::string campaign, ExportTargets targets, ExportParts parts);

    void recorded(results::Status status, results::Cause cause) override;
    void answered(const service::Outcome& outcome) override;
    // Sets the gauges; exports when the last export is k_export_interval old (the first at once).
    void progress(const queue::Progress& progress, const runner::RunFigures& figures) override;

    // The run has ended, and `succeeded` says whether it counts as a success (exit 0 or 1):
    // sets its duration (and its last success), writes the file and, unless `push` is skip,
    // pushes and waits for the answer.
    void finish(RunSucceeded succeeded, FinalPush push);

private:
    // Writes the file and starts a push, when any.
    void export_now();
    // Reports the failure of `done` unless it is the one reported last for the same target (a
    // Pushgateway that is down warns once, not every 10 s).
    void report(const util::Result<void>& done, std::optional<std::string>& last);

    RunMetrics m_metrics;
    ExportTargets m_targets;
    ExportParts m_parts;
    std::optional<Pusher> m_pusher;
    std::chrono::steady_clock::time_point m_started;
    std::optional<std::chrono::steady_clock::time_point> m_next_export;  // nothing: export at the next progress
    std::optional<double> m_last_success;                                // Unix seconds: this run's, else the file's
    bool m_succeeded = false;
    std::optional<std::string> m_file_problem;  // the last reported, until a write succeeds
    std::optional<std::string> m_push_problem;
};

}  // namespace observe
