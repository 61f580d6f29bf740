#pragma once
// The campaign's plan (runner::make_plan) as the JSON of the dry run and validate carry it.

#include <nlohmann/json_fwd.hpp>

#include "report/spend.hpp"
#include "results/records.hpp"
#include "runner/plan.hpp"

namespace cli {

// Returns `plan` as an object: times as RFC 3339 UTC, null when there are none; per_second
// "unlimited" when there is no rate.
nlohmann::ordered_json plan_json(const runner::Plan& plan);

// The plan's `cost` as an object, as the report of a dry-run log shows it too.
using report::cost_json;

}  // namespace cli
