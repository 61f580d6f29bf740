#include <CLI/CLI.hpp>
#include <memory>

#include "cli/commands.hpp"
#include "cli/not_built.hpp"

namespace cli {

Action add_validate(CLI::App& app) {
    auto opts = std::make_shared<std::string>();
    auto* sub = app.add_subcommand("validate",
                                   "Check a campaign file and every CSV row; no network, no log");
    sub->add_option("CAMPAIGN", *opts, "Campaign file (YAML)")->required();
    return [opts] { return not_built("validate"); };
}

} // namespace cli
