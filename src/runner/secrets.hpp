#pragma once
// The campaign's secrets, masked in everything that came from the service before it is
// recorded: a service may echo the key or the token in its answers.

#include <string>
#include <vector>

#include "campaign/campaign.hpp"
#include "results/records.hpp"
#include "util/redact.hpp"

namespace runner {

// Masks the secrets of `secrets` in the text fields of `record` that came from the CSV or the
// service (user name, error, message id, the template's name and category from the template
// list, the rendered message) before it is written to a log: a row may hold the key in any
// column, and a service may echo it anywhere. The wa_id is kept: it is what a later run matches.
void mask_record(results::ResultRecord& record, const util::Redactor& secrets);

}  // namespace runner
