#include "runner/admission_steps.hpp"

namespace runner {

AdmissionSteps make_steps(const campaign::Campaign& c, StepSources from) {
    AdmissionSteps steps{.limiter = queue::RateLimiter(c.rate.per_second, c.rate.burst),
                         .deadline = std::nullopt,
                         .recheck = from.recheck,
                         .window = from.window,
                         .ledger = from.ledger,
                         .cap = from.ledger != nullptr ? std::nullopt : std::move(from.cap),
                         .budget = from.budget};
    if (from.deadlines == Deadlines::apply) {
        steps.deadline.emplace(c.schedule);
    }
    return steps;
}

queue::DispatchSettings dispatch_settings(const campaign::Campaign& c) {
    return {.concurrency = c.rate.concurrency,
            .max_concurrency = c.rate.max_concurrency,
            .ambiguous = c.retry.ambiguous,
            .max_consecutive_failures = c.abort.max_consecutive_failures,
            .max_throttled = c.abort.max_throttled};
}

}  // namespace runner
