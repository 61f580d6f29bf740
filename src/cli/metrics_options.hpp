#pragma once
// --metrics-file and --metrics-push on run and resume: the options, their checks before
// anything is sent, and the exporter that watches the run (observe/, docs/metrics.md).

#include <memory>
#include <string>

#include "cli/output.hpp"
#include "observe/exporter.hpp"
#include "runner/ui.hpp"
#include "util/clock.hpp"

namespace CLI {
class App;
class Option;
}  // namespace CLI

namespace cli {

struct MetricsOptions {
    std::string file;  // --metrics-file
    std::string push;  // --metrics-push
};

// Adds --metrics-file and --metrics-push to `sub`, stored in `options`; both exclude
// `dry_run` when given.
void add_metrics_options(CLI::App& sub, MetricsOptions& options, CLI::Option* dry_run = nullptr);

// Checks `options`, the push URL taken from WACAMP_METRICS_PUSH when not given (exit 2 on a
// bad one, before anything is read or sent), and registers its credentials with `out`, so that
// nothing printed shows them. Returns the targets, or nothing after reporting the problem
// through `out`. For real sends only: a dry run exports nothing.
std::optional<observe::ExportTargets> check_metrics_or_report(const MetricsOptions& options, Output& out);

// The metrics of one run, when any target was given: the exporter and what it pushes through.
class RunExport {
public:
    // Exports `campaign`'s metrics to `targets` (none: does nothing), warning through `ui`.
    RunExport(const std::string& campaign, const observe::ExportTargets& targets, const util::Clock& clock,
              runner::RunUi& ui);
    ~RunExport();
    RunExport(const RunExport&) = delete;
    RunExport& operator=(const RunExport&) = delete;

    // What watches the run; null without targets.
    runner::RunWatch* watch();
    // The run ended with `exit_code` (0 and 1 are a success); `stops` stop requests came
    // (after a second one, nothing more is waited for: no last push).
    void finish(int exit_code, int stops);

private:
    struct Parts;
    std::unique_ptr<Parts> m_parts;
};

}  // namespace cli
