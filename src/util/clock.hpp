#pragma once
// Time as a value. Logic takes `now`; only the dispatcher and the CLI read a Clock.

#include <chrono>

namespace util {

using TimePoint = std::chrono::system_clock::time_point;
using Millis = std::chrono::milliseconds;

// The source of "now". Steady time drives pacing; wall time is what the log records.
class Clock {
public:
    virtual ~Clock() = default;
    // Monotonic time, for rate limiting and timeouts.
    virtual std::chrono::steady_clock::time_point steady_now() const = 0;
    // Wall-clock time, for the log and schedules.
    virtual TimePoint wall_now() const = 0;
};

// The real clocks of the machine.
class SystemClock final : public Clock {
public:
    std::chrono::steady_clock::time_point steady_now() const override { return std::chrono::steady_clock::now(); }
    TimePoint wall_now() const override { return std::chrono::system_clock::now(); }
};

}  // namespace util
