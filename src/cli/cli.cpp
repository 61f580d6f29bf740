#include "cli/cli.hpp"

#include <fmt/core.h>
#include <CLI/CLI.hpp>
#include <csignal>
#include <map>

#include "cli/commands.hpp"
#include "cli/exit_code.hpp"
#include "cli/output.hpp"
#include "cli/stream.hpp"

namespace cli {

int run(int argc, char** argv) {
    keep_standard_streams_open();
    // A file size limit (ulimit -f) makes a write fail with EFBIG, which every command reports
    // and stops on, rather than kill the process in the middle of a line or a report.
    std::signal(SIGXFSZ, SIG_IGN);
    CLI::App app{"wacamp " WACAMP_VERSION " — batch campaigns for the WhatsApp messaging automation service", "wacamp"};
    app.set_version_flag("--version", "wacamp " WACAMP_VERSION);
    app.require_subcommand(1);
    app.footer(
        "Exit codes: 0 done, 1 some recipients failed or unknown, 2 bad input "
        "(nothing sent), 3 stopped early (resumable).\n"
        "Run 'wacamp COMMAND --help' for a command's options.");

    std::map<const CLI::App*, Action> actions;
    const auto add = [&](Action (*adder)(CLI::App&)) {
        Action action = adder(app);
        // The subcommand the adder just created is the newest one.
        auto all = app.get_subcommands([](const CLI::App*) { return true; });
        actions[all.back()] = std::move(action);
    };
    add(add_run);
    add(add_resume);
    add(add_validate);
    add(add_templates);
    add(add_delete_contacts);
    add(add_report);
    add(add_sandbox);
    add(add_suppress);
    add(add_completion);
    add(add_man);

    try {
        app.parse(argc, argv);
    } catch (const CLI::ParseError& e) {
        int code = app.exit(e);
        return code == 0 ? k_exit_done : k_exit_bad_input;
    }

    try {
        for (const auto& [sub, action] : actions) {
            if (sub->parsed()) {
                return action();
            }
        }
        return k_exit_bad_input;
    } catch (const std::exception& e) {
        print_error(util::Redactor{}, e.what());
        return k_exit_stopped;
    }
}

}  // namespace cli
