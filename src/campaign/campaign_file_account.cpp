// The `account` and `suppression` sections of a campaign file (docs/ledger.md).

#include <fmt/format.h>
#include <filesystem>
#include <system_error>

#include "campaign/campaign_file.hpp"
#include "campaign/campaign_file_sections.hpp"
#include "service/base_url.hpp"
#include "util/text.hpp"

namespace campaign::detail {

namespace {

constexpr std::string_view k_account_keys[] = {"name", "ledger"};
constexpr std::string_view k_suppression_keys[] = {"files", "undeliverable_after"};
constexpr long long k_max_undeliverable_after = 1000;

void read_ledger(const Section& root, const std::optional<Section>& section, Account& out) {
    LoadContext& ctx = root.context();
    auto written = section ? section->text("ledger") : std::nullopt;
    if (!written) {
        out.ledger = default_ledger_path(ctx.env);
        if (!out.ledger) {
            ctx.problem(section ? section->line_of("ledger") : 1,
                        "account.ledger: neither XDG_STATE_HOME nor HOME is set, so the ledger has no default "
                        "place; give account.ledger a path, or `off`");
        }
        return;
    }
    if (*written == "off") {
        out.ledger.reset();
        return;
    }
    if (written->empty()) {
        section->problem("ledger", "expected a path or `off`, got an empty value");
        return;
    }
    if (written->starts_with("postgresql://") || written->starts_with("postgres://")) {
        section->problem("ledger", "a PostgreSQL ledger is not built into this wacamp yet; give a file path or `off`");
        return;
    }
    out.ledger = ctx.resolve(*written);
}

void read_name(const std::optional<Section>& section, const std::string& base_url, Account& out) {
    auto name = section ? section->text("name") : std::nullopt;
    if (!name) {
        out.name = base_url.empty() ? "" : service::account_of(base_url);
        return;
    }
    if (!valid_account_name(*name)) {
        section->problem("name", fmt::format("expected a name of 1 to {} printable characters, got {}",
                                             k_max_account_name, in_quotes(*name)));
        return;
    }
    out.name = std::move(*name);
}

void read_suppression(const Section& root, SuppressionLists& out) {
    auto section = root.section("suppression", Need::optional, k_suppression_keys);
    if (!section) {
        return;
    }
    out.undeliverable_after =
        section->integer("undeliverable_after", 1, k_max_undeliverable_after).value_or(out.undeliverable_after);
    auto files = section->list("files");
    if (!files) {
        return;
    }
    for (const auto& file : *files) {
        const std::string path = root.context().resolve(file.text);
        std::error_code ec;
        if (!std::filesystem::is_regular_file(path, ec)) {
            root.context().problem(file.line, fmt::format("suppression.files: {} is not a readable file ({})",
                                                          in_quotes(file.text), path));
            continue;
        }
        out.files.push_back(path);
    }
}

}  // namespace

void read_account(const Section& root, const std::string& base_url, Campaign& out) {
    auto section = root.section("account", Need::optional, k_account_keys);
    read_name(section, base_url, out.account);
    read_ledger(root, section, out.account);
    read_suppression(root, out.suppression);
}

}  // namespace campaign::detail

namespace campaign {

std::optional<std::string> default_ledger_path(const util::Environment& env) {
    if (auto state = env.get("XDG_STATE_HOME"); state && state->starts_with('/')) {
        return (std::filesystem::path(*state) / "wacamp" / "ledger.sqlite").string();
    }
    if (auto home = env.get("HOME"); home && home->starts_with('/')) {
        return (std::filesystem::path(*home) / ".local" / "state" / "wacamp" / "ledger.sqlite").string();
    }
    return std::nullopt;
}

bool valid_account_name(std::string_view name) {
    return !name.empty() && name.size() <= k_max_account_name && util::printable(name) == name;
}

}  // namespace campaign
