#pragma once
// Runs the wacamp binary under a time limit: on hostile input it must end, not hang, and a
// test that waited forever would hide that.

#include <chrono>
#include <string>
#include <vector>

#include "harness.hpp"

namespace e2e {

struct TimedResult : ProcessResult {
    bool timed_out = false;  // the limit passed and the process was killed (SIGKILL)
};

// Runs `wacamp ARGS…` with stdin on /dev/null, capturing stdout and stderr, and kills it once
// `limit` has passed. Throws std::runtime_error only when the process cannot be started.
TimedResult run_wacamp_within(std::chrono::milliseconds limit, const std::vector<std::string>& args,
                              const EnvOverrides& env = {});

}  // namespace e2e
