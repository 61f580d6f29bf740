#pragma once
// The admission steps of a dispatch (queue/admission.hpp), built in one place from the campaign:
// a real run (send.cpp) and the campaign's plan (plan.cpp) ask the same rules.

#include <optional>
#include <vector>

#include "campaign/campaign.hpp"
#include "queue/daily_cap.hpp"
#include "queue/deadline.hpp"
#include "queue/dispatcher.hpp"
#include "queue/rate_limiter.hpp"

namespace runner {

// Whether the campaign's deadline (schedule.not_after, max_delay) holds: --late-ok waives it.
enum class Deadlines { apply, waived };

// What the steps are built from besides the campaign; the pointers outlive the steps.
struct StepSources {
    queue::Admitter* window = nullptr;        // the send window; null: none
    queue::Admitter* ledger = nullptr;        // the account's ledger (its per_day); null: none
    std::optional<queue::DailyCap> cap = {};  // rate.per_day without a ledger; unused with one
    Deadlines deadlines = Deadlines::apply;
    queue::Admitter* recheck = nullptr;  // the template list read again (message.recheck); null: none
    queue::Admitter* budget = nullptr;   // pricing.budget (runner::BudgetGuard); null: none
};

// The steps in the order the dispatcher asks them: the deadline, the template's recheck, the
// window, the daily cap in force (the ledger's, else `cap`), the budget, then the pace (the
// limiter, or a pace shared with other runners).
struct AdmissionSteps {
    queue::RateLimiter limiter;
    std::optional<queue::Deadline> deadline;
    queue::Admitter* recheck = nullptr;
    queue::Admitter* window = nullptr;
    queue::Admitter* ledger = nullptr;
    std::optional<queue::DailyCap> cap;
    queue::Admitter* budget = nullptr;

    // The daily cap in force: the ledger's, else `cap`'s; null: none.
    queue::Admitter* daily() { return ledger != nullptr ? ledger : cap ? &*cap : nullptr; }
    // The steps before the pace, in order, for DispatchParts::steps (nulls for those absent).
    std::vector<queue::Admitter*> before_pace() {
        return {deadline ? &*deadline : nullptr, recheck, window, daily(), budget};
    }
};

// Returns the steps of campaign `c` (rate.per_second and burst, schedule's deadlines) with those
// `from` gives.
AdmissionSteps make_steps(const campaign::Campaign& c, StepSources from);

// Returns the dispatch settings campaign `c` sets (concurrency, retries, abort rules).
queue::DispatchSettings dispatch_settings(const campaign::Campaign& c);

}  // namespace runner
