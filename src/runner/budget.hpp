#pragma once
// pricing.budget while sending: the spend so far plus the next row's price never passes the
// budget (docs/pricing.md "The budget"). An admission step, asked before the pace.

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <unordered_map>
#include <vector>

#include "campaign/pricing.hpp"
#include "queue/admission.hpp"
#include "queue/job.hpp"

namespace runner {

// An amount of money in millionths of the card's currency: sums without rounding error (cards
// have at most 6 decimals).
using Micros = std::int64_t;

// Returns `amount` in millionths, rounded.
Micros to_micros(double amount);
// Returns `micros` as an amount.
double of_micros(Micros micros);

// What the campaign spent before this run, and how it was counted.
struct SpentSoFar {
    double amount = 0;
    std::int64_t unpriced = 0;  // sent rows without a price, counted at today's card
    std::int64_t unknown = 0;   // rows whose request may have been delivered, counted at their price
};

// Returns why campaign `c` is refused before its first send: `spent` plus the estimate `left`
// passes c.pricing.budget, naming the three figures and the largest countries of `left`
// (exit 2); nothing when there is no budget or it holds.
std::optional<std::string> over_budget(const campaign::Campaign& c, const SpentSoFar& spent,
                                       const campaign::CostEstimate& left);

class BudgetGuard final : public queue::Admitter {
public:
    // A guard of `budget`, `spent` of which the campaign's earlier sends (and requests whose
    // outcome is unknown) took already, in `currency`.
    BudgetGuard(Micros budget, Micros spent, std::string currency)
        : m_budget(budget), m_committed(spent), m_currency(std::move(currency)) {}

    // Lets each job through while what is committed (spent, in flight) plus its price stays
    // within the budget, committing its price; else refuses it for good (Refusal::budget: the
    // dispatcher stops the run, the row left for a resume).
    util::Result<void> admit(std::span<const queue::Job* const> jobs, queue::Instant at,
                             std::vector<queue::Admission>& out) override;

    // Gives back the price of jobs that will not start.
    void withdraw(std::span<const queue::Job* const> jobs) override;

    // `job`, which this step let through, came back `status`: a send that may have been
    // delivered (sent, unknown) keeps its price counted; any other gives it back (a retry is
    // let through again, and counted again, when it is due).
    void ended(const queue::Job& job, queue::JobStatus status);

    // What is committed now: spent before, sent and unknown in this run, and in flight.
    Micros committed() const { return m_committed; }

private:
    Micros m_budget;
    Micros m_committed;
    std::string m_currency;
    // The jobs let through and not ended yet, by row, with their price: an end is counted once
    // however often the dispatcher reports it (a retry abandoned at a stop is reported again).
    std::unordered_map<std::int64_t, Micros> m_open;
};

}  // namespace runner
