#pragma once
// The campaign's plan (runner::make_plan) as the JSON of the dry run and validate carry it.

#include <nlohmann/json_fwd.hpp>

#include "results/records.hpp"
#include "runner/plan.hpp"

namespace cli {

// Returns `plan` as an object: times as RFC 3339 UTC, null when there are none; per_second
// "unlimited" when there is no rate.
nlohmann::ordered_json plan_json(const runner::Plan& plan);

// Returns the plan's `cost` as an object: currency, total, messages, category, rate_card,
// effective (null when none), and by_country keyed by country, most messages first.
nlohmann::ordered_json cost_json(const results::CostSummary& cost);

}  // namespace cli
