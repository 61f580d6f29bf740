#include <CLI/CLI.hpp>

#include "cli/commands.hpp"
#include "cli/not_built.hpp"

namespace cli {

Action add_sandbox(CLI::App& app) {
    app.add_subcommand("sandbox", "Serve a local fake of the service on 127.0.0.1");
    return [] { return not_built("sandbox"); };
}

} // namespace cli
