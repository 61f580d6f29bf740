// wacamp completion bash|zsh|fish, wacamp man: what is generated from the command line's own
// definition (cli/command_docs.*), printed to stdout.

#include <CLI/CLI.hpp>
#include <memory>

#include "cli/command_docs.hpp"
#include "cli/commands.hpp"
#include "cli/exit_code.hpp"
#include "cli/output.hpp"

namespace cli {

Action add_completion(CLI::App& app) {
    auto shell = std::make_shared<std::string>();
    auto* sub = app.add_subcommand("completion", "Print the shell completion script for bash, zsh or fish");
    sub->add_option("SHELL", *shell, "bash, zsh or fish")->required()->check(CLI::IsMember({"bash", "zsh", "fish"}));
    const CLI::App* root = &app;
    return [shell, root] {
        const CommandDoc program = describe(*root);
        const std::string text = *shell == "bash"  ? bash_completion(program)
                                 : *shell == "zsh" ? zsh_completion(program)
                                                   : fish_completion(program);
        return print_out(util::Redactor{}, text) ? k_exit_done : k_exit_bad_input;
    };
}

Action add_man(CLI::App& app) {
    app.add_subcommand("man", "Print the man page wacamp(1) (roff), generated from the commands' own help");
    const CLI::App* root = &app;
    return [root] {
        return print_out(util::Redactor{}, man_page(describe(*root), WACAMP_VERSION)) ? k_exit_done : k_exit_bad_input;
    };
}

}  // namespace cli
