#include <CLI/CLI.hpp>
#include <memory>

#include "cli/commands.hpp"
#include "cli/not_built.hpp"

namespace cli {

namespace {

struct ReportOptions {
    std::string results;
    std::string format = "text";
    std::string output;
};

} // namespace

Action add_report(CLI::App& app) {
    auto opts = std::make_shared<ReportOptions>();
    auto* sub = app.add_subcommand("report", "Summarise a result log");
    sub->add_option("RESULTS", opts->results, "Result log (JSON Lines)")->required();
    sub->add_option("--format", opts->format, "text, csv (a row per recipient), json or html")
        ->check(CLI::IsMember({"text", "csv", "json", "html"}));
    sub->add_option("--output", opts->output, "Write to FILE instead of stdout");
    return [opts] { return not_built("report"); };
}

} // namespace cli
