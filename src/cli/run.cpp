#include <CLI/CLI.hpp>
#include <memory>

#include "cli/commands.hpp"
#include "cli/not_built.hpp"

namespace cli {

namespace {

struct RunOptions {
    std::string campaign;
    bool dry_run = false;
    long long limit = 0;
    std::string results;
    bool force = false;
    bool yes = false;
    bool no_progress = false;
};

} // namespace

Action add_run(CLI::App& app) {
    auto opts = std::make_shared<RunOptions>();
    auto* sub = app.add_subcommand("run", "Send a campaign (continues from its result log if one exists)");
    sub->add_option("CAMPAIGN", opts->campaign, "Campaign file (YAML)")->required();
    sub->add_flag("--dry-run", opts->dry_run,
                  "Validate and render every message, write a dry-run log, send nothing");
    sub->add_option("--limit", opts->limit, "Stop after N recipients have been dispatched")
        ->check(CLI::PositiveNumber);
    sub->add_option("--results", opts->results, "Result log path (default: the campaign's)");
    sub->add_flag("--force", opts->force, "Continue even if the campaign file or CSV changed");
    sub->add_flag("--yes", opts->yes, "Do not ask for confirmation on a terminal");
    sub->add_flag("--no-progress", opts->no_progress, "Do not show progress");
    return [opts] { return not_built("run"); };
}

} // namespace cli
