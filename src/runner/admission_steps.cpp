#include "runner/admission_steps.hpp"

namespace runner {

void AdmissionSteps::attach(queue::DispatchParts& parts) {
    parts.limiter = &limiter;
    parts.deadline = deadline ? &*deadline : nullptr;
    parts.window = window;
    parts.limits = daily();
}

AdmissionSteps make_steps(const campaign::Campaign& c, StepSources from) {
    AdmissionSteps steps{.limiter = queue::RateLimiter(c.rate.per_second, c.rate.burst),
                         .deadline = std::nullopt,
                         .window = from.window,
                         .ledger = from.ledger,
                         .cap = from.ledger != nullptr ? std::nullopt : std::move(from.cap)};
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
