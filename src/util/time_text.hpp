#pragma once
// Moments shown to people (a pause "until …"), in UTC.

#include <string>

#include "util/clock.hpp"

namespace util {

// Returns `t` as "20:20:53 UTC" when it falls on the same UTC day as `now`, else with its
// date, "2026-11-25 20:20:53 UTC", so that a time tomorrow never reads as one already past.
std::string format_wall_time(TimePoint t, TimePoint now);

}  // namespace util
