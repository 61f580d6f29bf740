#include <CLI/CLI.hpp>
#include <memory>

#include "cli/commands.hpp"
#include "cli/not_built.hpp"

namespace cli {

Action add_delete_contacts(CLI::App& app) {
    auto opts = std::make_shared<std::string>();
    auto* sub = app.add_subcommand("delete-contacts",
                                   "Run or finish a campaign's contact-deletion step from its log");
    sub->add_option("RESULTS", *opts, "Result log (JSON Lines)")->required();
    return [opts] { return not_built("delete-contacts"); };
}

} // namespace cli
