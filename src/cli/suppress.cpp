// wacamp suppress list|add|remove|import: the account's suppression list by hand
// (docs/ledger.md "Commands").

#include <fmt/format.h>
#include <CLI/CLI.hpp>
#include <chrono>
#include <memory>
#include <nlohmann/json.hpp>

#include "account/ledger.hpp"
#include "campaign/campaign_file.hpp"
#include "cli/commands.hpp"
#include "cli/exit_code.hpp"
#include "cli/output.hpp"
#include "cli/run_common.hpp"
#include "cli/suppress_list.hpp"
#include "runner/suppression_list.hpp"
#include "util/env.hpp"

namespace cli {

namespace {

struct SuppressOptions {
    std::string campaign;
    std::string account;
    std::string ledger;
    std::string reason;
    std::vector<std::string> numbers;
    std::string file;
    bool json = false;
};

// The ledger and account a command works on, and how the numbers it is given are read.
struct Target {
    std::string account;
    std::string ledger;  // a path or a PostgreSQL URL
    campaign::PhoneNormalizer phones;
    runner::NumberForm form;
    std::string password;  // the campaign file's ledger password, if any
};

// "1 number", "3 numbers".
std::string numbers(std::size_t n) {
    return fmt::format("{} number{}", n, n == 1 ? "" : "s");
}

std::optional<Target> campaign_target(const std::string& path, Output& out) {
    auto c = load_campaign_or_report(path, campaign::SecretsPolicy::optional, out);
    if (!c) {
        return std::nullopt;
    }
    if (!c->account.ledger) {
        out.error(fmt::format("{}: account.ledger is off, so the account has no suppression list here; give "
                              "account.ledger a path, or use --account NAME --ledger PATH",
                              path),
                  k_exit_bad_input);
        return std::nullopt;
    }
    auto phones = campaign::PhoneNormalizer::create(c->recipients.default_country);
    if (!phones) {
        out.error(phones.error().message, k_exit_bad_input);
        return std::nullopt;
    }
    return Target{c->account.name, *c->account.ledger, std::move(*phones), runner::NumberForm::as_csv,
                  c->account.ledger_password};
}

std::optional<Target> account_target(const SuppressOptions& opts, Output& out) {
    if (!campaign::valid_account_name(opts.account)) {
        out.error(
            fmt::format("--account: expected a name of 1 to {} printable characters", campaign::k_max_account_name),
            k_exit_bad_input);
        return std::nullopt;
    }
    auto ledger = opts.ledger.empty() ? campaign::default_ledger_path(util::ProcessEnvironment{}) : opts.ledger;
    if (!ledger) {
        out.error("neither XDG_STATE_HOME nor HOME is set, so the ledger has no default place; give --ledger PATH",
                  k_exit_bad_input);
        return std::nullopt;
    }
    // No default country: a number typed without its country code would be a guess.
    auto phones = campaign::PhoneNormalizer::create("");
    if (!phones) {
        out.error(phones.error().message, k_exit_bad_input);
        return std::nullopt;
    }
    return Target{opts.account, *ledger, std::move(*phones), runner::NumberForm::international, ""};
}

std::unique_ptr<account::Ledger> open_or_report(const Target& target, account::Access access, Output& out) {
    auto ledger =
        account::open_ledger(target.ledger, {.account = target.account, .access = access, .password = target.password});
    if (!ledger) {
        out.error(ledger.error().message, k_exit_bad_input);
        return nullptr;
    }
    return std::move(*ledger);
}

// The wa_ids of the numbers on the command line; nothing (after saying which are unusable)
// when any is.
std::optional<std::vector<std::string>> numbers_or_report(const SuppressOptions& opts, const Target& target,
                                                          Output& out) {
    auto wa_ids = runner::normalize_numbers(opts.numbers, target.phones, target.form);
    if (!wa_ids) {
        const auto& problems = wa_ids.error().message;
        out.error(problems, k_exit_bad_input, fmt::format("{}\nwacamp: error: nothing was changed\n", problems));
        return std::nullopt;
    }
    return std::move(*wa_ids);
}

void say(Output& out, const std::string& text) {
    out.result(Level::info, "suppress", text + "\n", {{"message", text}});
}

int add(const SuppressOptions& opts, const Target& target, Output& out) {
    auto wa_ids = numbers_or_report(opts, target, out);
    auto ledger = wa_ids ? open_or_report(target, account::Access::read_write, out) : nullptr;
    if (!ledger) {
        return k_exit_bad_input;
    }
    const auto now = std::chrono::system_clock::now();
    const std::string reason = opts.reason.empty() ? "manual" : opts.reason;
    std::vector<account::Suppression> entries;
    for (auto& wa_id : *wa_ids) {
        entries.push_back(account::Suppression{std::move(wa_id), reason, now, "manual"});
    }
    auto added = ledger->suppress(entries);
    if (!added) {
        out.error(added.error().message, k_exit_bad_input);
        return k_exit_bad_input;
    }
    say(out, fmt::format("{}: {} added to the suppression list, {} already on it", target.account, numbers(*added),
                         entries.size() - *added));
    return k_exit_done;
}

int remove(const SuppressOptions& opts, const Target& target, Output& out) {
    auto wa_ids = numbers_or_report(opts, target, out);
    auto ledger = wa_ids ? open_or_report(target, account::Access::read_write, out) : nullptr;
    if (!ledger) {
        return k_exit_bad_input;
    }
    auto removed = ledger->unsuppress(*wa_ids);
    if (!removed) {
        out.error(removed.error().message, k_exit_bad_input);
        return k_exit_bad_input;
    }
    say(out, fmt::format("{}: {} removed from the suppression list, {} not on it", target.account, numbers(*removed),
                         wa_ids->size() - *removed));
    return k_exit_done;
}

// Warns of the rows of `file` that held no number, with the first few.
void warn_unusable_rows(const std::string& file, const runner::ListReading& reading, Output& out) {
    if (reading.problems == 0) {
        return;
    }
    const bool one = reading.problems == 1;
    out.warning(fmt::format("{} row{} of {} {} no usable number and {} left out", reading.problems, one ? "" : "s",
                            file, one ? "holds" : "hold", one ? "was" : "were"));
    for (const auto& example : reading.examples) {
        out.warning(example);
    }
}

int import(const SuppressOptions& opts, const Target& target, Output& out) {
    auto ledger = open_or_report(target, account::Access::read_write, out);
    if (!ledger) {
        return k_exit_bad_input;
    }
    const runner::ListEntry entry{opts.reason.empty() ? "listed" : opts.reason, runner::list_source(opts.file),
                                  std::chrono::system_clock::now()};
    auto import = runner::import_suppression_list(*ledger, opts.file, target.phones, entry);
    if (!import) {
        out.error(import.error().message, k_exit_bad_input);
        return k_exit_bad_input;
    }
    warn_unusable_rows(opts.file, import->reading, out);
    const auto read = static_cast<std::size_t>(import->reading.numbers);
    const auto added = static_cast<std::size_t>(import->added);
    say(out, fmt::format("{}: {}: {} read, {} added to the suppression list, {} already on it", target.account,
                         opts.file, numbers(read), added, read - added));
    return k_exit_done;
}

// Adds the subcommand `name` of `suppress` with the options every one of them takes.
CLI::App* add_command(CLI::App& suppress, const std::string& name, const std::string& what, SuppressOptions& opts) {
    auto* sub = suppress.add_subcommand(name, what);
    auto* campaign = sub->add_option("--campaign", opts.campaign,
                                     "The account and ledger of this campaign file (its default_country applies)");
    auto* account = sub->add_option("--account", opts.account, "The account's name (numbers must start with +)");
    auto* ledger = sub->add_option("--ledger", opts.ledger,
                                   "With --account: the ledger's path or postgresql:// URL (default "
                                   "$XDG_STATE_HOME/wacamp/ledger.sqlite)");
    campaign->excludes(account);
    ledger->needs(account);
    sub->footer("One of --campaign or --account is required.");
    return sub;
}

}  // namespace

Action add_suppress(CLI::App& app) {
    auto opts = std::make_shared<SuppressOptions>();
    auto* suppress = app.add_subcommand("suppress", "List or change the account's suppression list");
    suppress->require_subcommand(1);
    auto* list = add_command(*suppress, "list", "Print the suppression list: number, reason, since, source", *opts);
    list->add_flag("--json", opts->json, "One JSON object per line: wa_id, reason, since, source");
    auto* add_numbers = add_command(*suppress, "add", "Add numbers to the suppression list", *opts);
    add_numbers->add_option("NUMBER", opts->numbers, "Numbers never to message")->required();
    add_numbers->add_option("--reason", opts->reason, "Why (default: manual)");
    auto* remove_numbers = add_command(*suppress, "remove", "Take numbers off the suppression list", *opts);
    remove_numbers->add_option("NUMBER", opts->numbers, "Numbers to message again")->required();
    auto* import_file = add_command(*suppress, "import", "Add the numbers of a do-not-contact CSV", *opts);
    import_file->add_option("FILE", opts->file, "CSV: a wa_id or phone column, else the first")->required();
    import_file->add_option("--reason", opts->reason, "Why (default: listed)");
    return [opts, list, add_numbers, remove_numbers]() -> int {
        Output out(LogFormat::text);
        if (opts->campaign.empty() && opts->account.empty()) {
            out.error("suppress needs --campaign FILE or --account NAME", k_exit_bad_input);
            return k_exit_bad_input;
        }
        auto target = opts->campaign.empty() ? account_target(*opts, out) : campaign_target(opts->campaign, out);
        if (!target) {
            return k_exit_bad_input;
        }
        if (list->parsed()) {
            return list_suppressions({target->account, target->ledger, target->password},
                                     opts->json ? ListFormat::json : ListFormat::table, out);
        }
        if (add_numbers->parsed()) {
            return add(*opts, *target, out);
        }
        return remove_numbers->parsed() ? remove(*opts, *target, out) : import(*opts, *target, out);
    };
}

}  // namespace cli
