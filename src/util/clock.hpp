#pragma once
// Time as a value. Logic takes `now`; only the dispatcher, the runner and the CLI read a Clock.

#include <chrono>
#include <thread>

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
    // Waits for `d` (a fake moves its time forward instead). Callers wait in short slices so
    // that they notice stop requests.
    virtual void sleep_for(Millis d) = 0;
};

// The real clocks of the machine.
class SystemClock final : public Clock {
public:
    std::chrono::steady_clock::time_point steady_now() const override { return std::chrono::steady_clock::now(); }
    TimePoint wall_now() const override { return std::chrono::system_clock::now(); }
    void sleep_for(Millis d) override { std::this_thread::sleep_for(d); }
};

}  // namespace util
