#pragma once
// Loading a campaign file (docs/campaign-file.md): YAML → a validated Campaign, with
// `${ENV}` interpolation, defaults and paths resolved against the file's folder.

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "campaign/campaign.hpp"
#include "util/env.hpp"
#include "util/result.hpp"

namespace campaign {

// Whether `service.api_key` / `service.access_token` must resolve. Dry runs and `validate`
// send nothing, so they need no secrets.
enum class SecretsPolicy { required, optional };

struct LoadOptions {
    SecretsPolicy secrets = SecretsPolicy::required;
};

// A campaign file read as far as it could be: the campaign, each key with a problem left at its
// default, and every problem found, each "FILE:LINE: what is wrong", in line order.
struct CampaignDraft {
    Campaign campaign;
    std::vector<std::string> problems;
};

// Reads and checks the campaign file at `path`, every key of it, collecting every problem rather
// than stopping at the first (FILE as given in `path`). Fails only when the file cannot be read
// ("FILE: cannot read: reason") or is not one YAML mapping ("FILE:LINE: …"). Secret values never
// appear in a problem.
util::Result<CampaignDraft> read_campaign(const std::string& path, const util::Environment& env,
                                          LoadOptions options = {});

// Loads and validates the campaign file at `path`. On failure the error message holds every
// problem found, one per line, each "FILE:LINE: what is wrong" (FILE as given in `path`);
// an unreadable file gives "FILE: cannot read: reason". Secret values never appear in it.
util::Result<Campaign> load_campaign(const std::string& path, const util::Environment& env, LoadOptions options = {});

// Returns where the account's ledger lives when `account.ledger` does not say:
// $XDG_STATE_HOME/wacamp/ledger.sqlite, else $HOME/.local/state/wacamp/ledger.sqlite (a relative
// XDG_STATE_HOME is ignored, as the XDG base directory rules say). Nothing when neither is known.
std::optional<std::string> default_ledger_path(const util::Environment& env);

inline constexpr std::size_t k_max_account_name = 200;

// Returns whether `name` may name an account: 1 to k_max_account_name printable characters.
bool valid_account_name(std::string_view name);

}  // namespace campaign
