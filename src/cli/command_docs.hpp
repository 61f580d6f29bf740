#pragma once
// The command line described from its own CLI11 definition, and what is generated from that
// description so it never drifts: shell completions (bash, zsh, fish) and the man page wacamp(1).

#include <string>
#include <vector>

namespace CLI {
class App;
}  // namespace CLI

namespace cli {

struct OptionDoc {
    std::vector<std::string> long_names;   // without "--"
    std::vector<std::string> short_names;  // without "-"
    std::string positional;                // the positional's name ("CAMPAIGN"); "" for an option
    std::string description;
    bool takes_value = false;
};

struct CommandDoc {
    std::string name;  // "" for the program itself
    std::string description;
    std::vector<OptionDoc> options;
    std::vector<CommandDoc> subcommands;
};

// Describes `app` and its subcommands, recursively (the built-in --help included).
CommandDoc describe(const CLI::App& app);

// A bash completion script: `source` it, or install it as share/bash-completion/completions/wacamp.
std::string bash_completion(const CommandDoc& program);
// A zsh completion function (#compdef wacamp), installed as share/zsh/vendor-completions/_wacamp.
std::string zsh_completion(const CommandDoc& program);
// fish completions, installed as share/fish/vendor_completions.d/wacamp.fish.
std::string fish_completion(const CommandDoc& program);
// The man page wacamp(1) in roff (man(7) macros), for `version`.
std::string man_page(const CommandDoc& program, const std::string& version);

}  // namespace cli
