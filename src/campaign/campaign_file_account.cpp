// The `account` and `suppression` sections of a campaign file (docs/ledger.md).

#include <fmt/format.h>
#include <algorithm>
#include <charconv>
#include <filesystem>
#include <system_error>

#include "campaign/campaign_file.hpp"
#include "campaign/campaign_file_sections.hpp"
#include "service/base_url.hpp"
#include "util/env.hpp"
#include "util/postgresql_url.hpp"
#include "util/redact.hpp"
#include "util/redis_url.hpp"
#include "util/text.hpp"

namespace campaign::detail {

namespace {

constexpr std::string_view k_account_keys[] = {"name", "ledger", "rate_store", "messaging_limit"};
// Meta's messaging limit tiers: unique numbers a business may message in 24 hours.
constexpr long long k_messaging_tiers[] = {250, 2'000, 10'000, 100'000};
constexpr std::string_view k_suppression_keys[] = {"files", "undeliverable_after"};
constexpr long long k_max_undeliverable_after = 1000;

enum class Written { as_in_file, from_environment };

// Whether `password` of `key` (a store's URL) is long enough to be masked, else a problem there.
bool password_long_enough(const Section& section, std::string_view key, const std::string& password) {
    if (const std::string too_short = util::credential_too_short(password); !too_short.empty()) {
        section.problem(key, "its password " + too_short);
        return false;
    }
    return true;
}

// A PostgreSQL URL: never a path. Its password is a secret, as `service.api_key` is: `${VAR}`
// read from the environment (unset under SecretsPolicy::optional: none, and libpq's PGPASSWORD or
// PGPASSFILE apply), hidden from every message, and kept apart from the URL. A URL that came
// whole from one variable (`ledger: ${LEDGER_URL}`) is already interpolated.
void read_ledger_url(const Section& section, const std::string& url, Written written, Account& out) {
    LoadContext& ctx = section.context();
    std::string raw_password;
    if (auto at = util::url_password(url)) {
        raw_password = url.substr(at->at, at->size);
    }
    std::string rest = util::url_without_password(url);
    if (written == Written::from_environment) {
        out.ledger = std::move(rest);
        out.ledger_password = util::percent_decoded(raw_password).value_or(raw_password);
        ctx.secrets.add(raw_password);
        ctx.secrets.add(out.ledger_password);
        password_long_enough(section, "ledger", out.ledger_password);
        return;
    }
    auto password = util::interpolate(util::percent_decoded(raw_password).value_or(raw_password), ctx.env);
    ctx.hide(raw_password, password ? *password : std::string());
    if (!password) {
        const bool unset = password.error().message.starts_with("environment variable ");
        if (!unset || ctx.options.secrets == SecretsPolicy::required) {
            section.problem("ledger", unset ? password.error().message : "malformed ${NAME} reference");
            return;
        }
        password = std::string();
    }
    auto interpolated = util::interpolate(rest, ctx.env);
    if (!interpolated) {
        section.problem("ledger", interpolated.error().message);
        return;
    }
    out.ledger = std::move(*interpolated);
    out.ledger_password = std::move(*password);
    password_long_enough(section, "ledger", out.ledger_password);
}

void read_ledger(const Section& root, const std::optional<Section>& section, Account& out) {
    LoadContext& ctx = root.context();
    if (auto raw = section ? section->written("ledger") : std::nullopt) {
        // A URL whole from a variable carries a password: no message may name that variable.
        for (auto& name : util::variables_in(*raw)) {
            ctx.secret_variables.insert(std::move(name));
        }
    }
    if (auto url = section ? section->written("ledger") : std::nullopt; url && util::is_postgresql_url(*url)) {
        read_ledger_url(*section, *url, Written::as_in_file, out);
        return;
    }
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
    // Words that mean "no ledger" elsewhere would each make a ledger file of that name.
    for (const std::string_view word : {"none", "no", "false", "disabled", "null", "~"}) {
        if (util::ascii_lower(*written) == word) {
            section->problem("ledger", fmt::format("expected a path or `off`, got \"{}\": `off` keeps no ledger; "
                                                   "a file of that name is written ./{}",
                                                   *written, *written));
            return;
        }
    }
    if (util::is_postgresql_url(*written)) {
        read_ledger_url(*section, *written, Written::from_environment, out);
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

// `account.rate_store`: a secret as a whole (its password comes from `${VAR}`), never echoed.
void read_rate_store(const std::optional<Section>& section, const Rate& rate, Account& out) {
    if (!section) {
        return;
    }
    const SecretsPolicy policy = section->context().options.secrets;
    auto url = section->secret("rate_store", Need::optional, policy);
    if (!url) {
        return;
    }
    if (url->empty()) {
        // Only a dry run or validate gets here with an unset variable: they never use it.
        if (policy == SecretsPolicy::required) {
            section->problem("rate_store", "expected redis://[[user]:password@]host[:port][/db], got an empty value");
        }
        return;
    }
    auto store = util::parse_redis_url(*url);
    if (!store) {
        section->problem("rate_store", store.error().message);
        return;
    }
    if (!password_long_enough(*section, "rate_store", store->password)) {
        return;
    }
    if (rate.unlimited()) {
        section->problem("rate_store",
                         "rate.per_second is unlimited: there is no pace to share; give "
                         "rate.per_second a number, or remove account.rate_store");
        return;
    }
    out.rate_store = std::move(*store);
}

// `account.messaging_limit`: one of Meta's tiers, or `unlimited`; a number caps the day when
// rate.per_day does not.
void read_messaging_limit(const std::optional<Section>& section, Campaign& out) {
    auto text = section ? section->text("messaging_limit") : std::nullopt;
    if (!text) {
        return;
    }
    out.account.messaging_limit_given = true;
    if (*text == "unlimited") {
        return;
    }
    long long tier = 0;
    const auto [end, error] = std::from_chars(text->data(), text->data() + text->size(), tier);
    const bool known =
        error == std::errc() && end == text->data() + text->size() &&
        std::find(std::begin(k_messaging_tiers), std::end(k_messaging_tiers), tier) != std::end(k_messaging_tiers);
    if (!known) {
        section->problem(
            "messaging_limit",
            "expected one of Meta's tiers: 250, 2000, 10000, 100000 or unlimited, got " + in_quotes(*text));
        out.account.messaging_limit_given = false;
        return;
    }
    out.account.messaging_limit = tier;
    if (!out.rate.per_day) {
        out.rate.per_day = tier;
    }
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
    read_rate_store(section, out.rate, out.account);
    read_messaging_limit(section, out);
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
