#include <CLI/CLI.hpp>

#include "cli/commands.hpp"
#include "cli/not_built.hpp"

namespace cli {

Action add_templates(CLI::App& app) {
    app.add_subcommand("templates", "List the account's message templates");
    return [] { return not_built("templates"); };
}

} // namespace cli
