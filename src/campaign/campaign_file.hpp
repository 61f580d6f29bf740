#pragma once
// Loading a campaign file (docs/campaign-file.md): YAML → a validated Campaign, with
// `${ENV}` interpolation, defaults and paths resolved against the file's folder.

#include <string>

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

// Loads and validates the campaign file at `path`. On failure the error message holds every
// problem found, one per line, each "FILE:LINE: what is wrong" (FILE as given in `path`);
// an unreadable file gives "FILE: cannot read: reason". Secret values never appear in it.
util::Result<Campaign> load_campaign(const std::string& path, const util::Environment& env, LoadOptions options = {});

}  // namespace campaign
