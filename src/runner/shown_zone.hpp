#pragma once
// The zone a campaign's times are shown to people in (the plan, pauses, the summary, reports),
// always with UTC beside them; files and JSON keep UTC.

#include "campaign/campaign.hpp"
#include "util/zone.hpp"

namespace runner {

// Returns the zone `c`'s times are shown in: its send window's when the window keeps one zone;
// `machine` (the machine's zone) when it has no window, or one per recipient (each zone's own
// openings are shown on that zone's clock by their callers), or a zone tzdata cannot read.
util::TimeZone shown_zone(const campaign::Campaign& c, const util::TimeZone& machine);

// As above, with the machine's zone from the process's TZ or /etc/localtime (TimeZone::local).
util::TimeZone shown_zone(const campaign::Campaign& c);

}  // namespace runner
