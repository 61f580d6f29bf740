#pragma once
// One function per subcommand: each adds its subcommand to `app` and returns the action
// that runs it once the command line has been parsed. Options live in the action's closure.

#include <functional>

namespace CLI {
class App;
}  // namespace CLI

namespace cli {

// Runs a parsed subcommand and returns its exit code.
using Action = std::function<int()>;

Action add_run(CLI::App& app);
Action add_resume(CLI::App& app);
Action add_validate(CLI::App& app);
Action add_templates(CLI::App& app);
Action add_delete_contacts(CLI::App& app);
Action add_report(CLI::App& app);
Action add_sandbox(CLI::App& app);
Action add_suppress(CLI::App& app);
Action add_completion(CLI::App& app);
Action add_man(CLI::App& app);

}  // namespace cli
