#include <doctest/doctest.h>

#include <CLI/CLI.hpp>

#include "cli/command_docs.hpp"

namespace {

// A small command line with the awkward cases: nested subcommands, an option group, and
// descriptions holding quotes, brackets, colons, backslashes and a leading dot.
struct Fixture {
    Fixture() {
        auto* run = app.add_subcommand("run", "Send it: 'now' [or later]");
        run->add_flag("--dry-run", flag, ".starts with a dot \\ and a backslash");
        run->add_option("--limit", limit, "At most N");
        run->add_option("CAMPAIGN", campaign, "Campaign file")->required();
        auto* faults = run->add_option_group("Faults");
        faults->add_option("--latency", limit, "Milliseconds");
        auto* suppress = app.add_subcommand("suppress", "The list");
        suppress->add_subcommand("add", "Add numbers");
        app.add_subcommand("secret", "hidden")->group("");
    }
    CLI::App app{"test", "wacamp"};
    bool flag = false;
    int limit = 0;
    std::string campaign;
};

}  // namespace

TEST_SUITE("cli::command_docs") {
    TEST_CASE("describe: subcommands nested, option groups folded into their command, hidden ones left out") {
        Fixture f;
        const auto doc = cli::describe(f.app);
        REQUIRE(doc.subcommands.size() == 2);
        const auto& run = doc.subcommands[0];
        CHECK(run.name == "run");
        bool latency = false, dry_run_flag = false, limit_value = false, positional = false;
        for (const auto& o : run.options) {
            latency = latency || (!o.long_names.empty() && o.long_names[0] == "latency");
            dry_run_flag = dry_run_flag || (!o.long_names.empty() && o.long_names[0] == "dry-run" && !o.takes_value);
            limit_value = limit_value || (!o.long_names.empty() && o.long_names[0] == "limit" && o.takes_value);
            positional = positional || o.positional == "CAMPAIGN";
        }
        CHECK(latency);
        CHECK(dry_run_flag);
        CHECK(limit_value);
        CHECK(positional);
        CHECK(doc.subcommands[1].subcommands.at(0).name == "add");
    }
    TEST_CASE("zsh: descriptions escaped inside the spec's brackets and single quotes") {
        Fixture f;
        const auto zsh = cli::zsh_completion(cli::describe(f.app));
        CHECK(zsh.find("'run:Send it\\: '\\''now'\\'' \\[or later\\]'") != std::string::npos);
        CHECK(zsh.find("\"suppress/add\")") != std::string::npos);
    }
    TEST_CASE("fish: quotes and backslashes escaped; subcommands offered only until one is typed") {
        Fixture f;
        const auto fish = cli::fish_completion(cli::describe(f.app));
        CHECK(fish.find("-a run -d 'Send it: \\'now\\' [or later]'") != std::string::npos);
        CHECK(fish.find("__fish_seen_subcommand_from suppress; and not __fish_seen_subcommand_from add") !=
              std::string::npos);
        CHECK(fish.find("secret") == std::string::npos);
    }
    TEST_CASE("man: hyphens and backslashes escaped, no line read as a request") {
        Fixture f;
        const auto man = cli::man_page(cli::describe(f.app), "1.2.3");
        CHECK(man.find(".SS \"wacamp run CAMPAIGN\"") != std::string::npos);
        CHECK(man.find("\\fB\\-\\-dry\\-run\\fR\n\\&.starts with a dot \\e and a backslash") != std::string::npos);
        CHECK(man.find("\\fB\\-\\-limit\\fR \\fIVALUE\\fR") != std::string::npos);
        CHECK(man.find(".SS \"wacamp suppress add\"") != std::string::npos);
        CHECK(man.find("wacamp 1.2.3") != std::string::npos);
    }
}
