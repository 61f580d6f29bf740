#include "runner/shown_zone.hpp"

namespace runner {

util::TimeZone shown_zone(const campaign::Campaign& c, const util::TimeZone& machine) {
    const auto& window = c.schedule.window;
    if (!window || window->per_recipient) {
        return machine;
    }
    auto zone = util::TimeZone::locate(window->timezone);
    return zone ? *zone : machine;
}

util::TimeZone shown_zone(const campaign::Campaign& c) {
    return shown_zone(c, util::TimeZone::local(util::ProcessEnvironment()));
}

}  // namespace runner
