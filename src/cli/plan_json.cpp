#include "cli/plan_json.hpp"

#include <cmath>
#include <nlohmann/json.hpp>
#include <optional>

#include "util/time.hpp"

namespace cli {

nlohmann::ordered_json plan_json(const runner::Plan& plan) {
    const auto time = [](const std::optional<util::TimePoint>& t) {
        return t ? nlohmann::ordered_json(util::format_timestamp(*t)) : nlohmann::ordered_json();
    };
    return {
        {"kind", runner::to_string(plan.kind)},
        {"messages", plan.messages},
        {"planned", plan.planned},
        {"first", time(plan.first)},
        {"last", time(plan.last)},
        {"days", plan.days},
        {"zone", plan.zone},
        {"per_second",
         std::isinf(plan.per_second) ? nlohmann::ordered_json("unlimited") : nlohmann::ordered_json(plan.per_second)},
        {"per_day", plan.per_day ? nlohmann::ordered_json(*plan.per_day) : nlohmann::ordered_json()},
        {"per_day_source", plan.per_day_source},
        {"room_today", plan.room_today ? nlohmann::ordered_json(*plan.room_today) : nlohmann::ordered_json()},
        {"room_for_all", plan.room_for_all},
        {"messaged_24h", plan.messaged_day ? nlohmann::ordered_json(*plan.messaged_day) : nlohmann::ordered_json()},
        {"messaged_7d", plan.messaged_week ? nlohmann::ordered_json(*plan.messaged_week) : nlohmann::ordered_json()},
        {"larger_than_a_day", plan.larger_than_a_day()},
        {"window", plan.window},
        {"why", plan.why},
        {"note", plan.note},
        {"per_hour", plan.per_hour}};
}

}  // namespace cli
