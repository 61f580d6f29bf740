#include "runner/budget.hpp"

#include <fmt/format.h>

#include <cmath>

namespace runner {

namespace {

// How soon a job that does not fit the budget while requests are in flight is asked again.
constexpr std::chrono::milliseconds k_budget_poll{100};

}  // namespace

Micros to_micros(double amount) {
    return static_cast<Micros>(std::llround(amount * 1e6));
}

double of_micros(Micros micros) {
    return static_cast<double>(micros) / 1e6;
}

std::optional<std::string> over_budget(const campaign::Campaign& c, const SpentSoFar& spent,
                                       const campaign::CostEstimate& left) {
    if (!c.pricing.budget) {
        return std::nullopt;
    }
    const Micros budget = to_micros(*c.pricing.budget);
    if (to_micros(spent.amount) + to_micros(left.total) <= budget) {
        return std::nullopt;
    }
    std::string counted;
    if (spent.unpriced > 0 || spent.unknown > 0) {
        counted = fmt::format(" (of which {} sent row(s) without a price and {} of unknown outcome, at today's card)",
                              spent.unpriced, spent.unknown);
    }
    std::string text = fmt::format(
        "{}: over budget: {:.2f} {} already spent{} + about {:.2f} {} for the {} message(s) left = {:.2f} {}, more "
        "than "
        "the budget of {:.2f} {} (pricing.budget, or --budget); nothing was sent. Raise the budget, or send fewer rows "
        "(--limit)\n",
        c.file, spent.amount, left.currency, counted, left.total, left.currency, left.messages,
        spent.amount + left.total, left.currency, *c.pricing.budget, left.currency);
    text += campaign::describe(left);
    while (!text.empty() && text.back() == '\n') {
        text.pop_back();
    }
    return text;
}

util::Result<void> BudgetGuard::admit(std::span<const queue::Job* const> jobs, queue::Instant at,
                                      std::vector<queue::Admission>& out) {
    out.clear();
    bool full = false;  // a job did not fit: those after it wait too, in order
    for (const queue::Job* job : jobs) {
        const Micros price = to_micros(job->price);
        queue::Admission answer;
        if (m_open.contains(job->row)) {
            // Let through before and not ended: asked again (its start lapsed), counted once.
        } else if ((full || m_committed + price > m_budget) && !m_open.empty()) {
            // Requests in flight may yet fail and give their price back: wait for them.
            full = true;
            answer = queue::Admission::Later{.retry_at = at.steady + k_budget_poll};
        } else if (m_committed + price > m_budget) {
            answer = queue::Admission::Never{
                .refusal = queue::Admission::Refusal::budget,
                .reason = fmt::format(
                    "the budget of {:.2f} {} would be passed: {:.4f} {} spent or in flight, and row {} costs {} more "
                    "(pricing.budget; to continue: resume with a higher --budget)",
                    of_micros(m_budget), m_currency, of_micros(m_committed), m_currency, job->row, job->price)};
        } else {
            m_committed += price;
            m_open[job->row] = price;
        }
        out.push_back(std::move(answer));
    }
    return {};
}

void BudgetGuard::withdraw(std::span<const queue::Job* const> jobs) {
    for (const queue::Job* job : jobs) {
        ended(*job, queue::JobStatus::unsent);
    }
}

void BudgetGuard::ended(const queue::Job& job, queue::JobStatus status) {
    const auto open = m_open.find(job.row);
    if (open == m_open.end()) {
        return;  // not let through by this guard, or its end already counted
    }
    if (status != queue::JobStatus::sent && status != queue::JobStatus::unknown) {
        m_committed -= open->second;
    }
    m_open.erase(open);
}

}  // namespace runner
