// The budget while sending (runner::BudgetGuard) through the real dispatcher, on a fake clock with
// a fake transport: never one send past the budget, with retries, unknown outcomes and 32
// requests in flight.
#include <doctest/doctest.h>

#include "queue_dispatch_rig.hpp"
#include "runner/budget.hpp"

using namespace dispatch_test;
using runner::BudgetGuard;
using runner::to_micros;

namespace {

// Forwards every report to `recorder` and each job's end to `budget`, as runner::LogObserver does.
class BudgetObserver final : public queue::DispatchObserver {
public:
    BudgetObserver(Recorder& recorder, BudgetGuard& budget) : m_recorder(recorder), m_budget(budget) {}
    util::Result<void> on_attempt(const queue::Job& job) override {
        ++in_flight;
        max_committed = std::max(max_committed, m_budget.committed());
        return m_recorder.on_attempt(job);
    }
    util::Result<void> on_result(const queue::Job& job, queue::JobStatus status, const service::Outcome& outcome,
                                 std::chrono::milliseconds latency) override {
        --in_flight;
        m_budget.ended(job, status);
        return m_recorder.on_result(job, status, outcome, latency);
    }
    void on_progress(const queue::Progress& progress) override { m_recorder.on_progress(progress); }
    void on_pause(const queue::Progress& progress) override { m_recorder.on_pause(progress); }
    int in_flight = 0;
    runner::Micros max_committed = 0;

private:
    Recorder& m_recorder;
    BudgetGuard& m_budget;
};

// Runs `jobs` jobs priced `price` each under `budget`, `spent` already spent, answered by `answer`.
struct BudgetRun {
    BudgetRun(fakes::FakeTransport::Responder answer, double budget_amount, double spent = 0)
        : rig(std::move(answer), 100000, 64), budget(to_micros(budget_amount), to_micros(spent), "USD") {
        rig.settings.concurrency = 32;
    }
    queue::DispatchResult run(int jobs, double price) {
        ListSource source(jobs);
        for (auto& job : source.jobs()) {
            job.price = price;
            job.template_send = true;
        }
        const queue::DispatchParts parts{.service = &rig.service,
                                         .transport = &rig.transport,
                                         .clock = &rig.clock,
                                         .limiter = &rig.limiter,
                                         .retry = &rig.retry,
                                         .steps = {&budget},
                                         .observer = &observer,
                                         .stop_requests = &rig.stops};
        return queue::dispatch(source, rig.settings, parts);
    }
    Rig rig;
    BudgetGuard budget;
    BudgetObserver observer{rig.recorder, budget};
};

}  // namespace

TEST_SUITE("runner::BudgetGuard") {
    TEST_CASE("with 32 in flight the sends stop at the budget exactly: the run stops (budget), the rest left") {
        BudgetRun r(ok, 10.00);
        const auto result = r.run(100, 0.25);
        CAPTURE(r.budget.committed());
        CAPTURE(r.observer.max_committed);
        CHECK(result.reason == queue::StopReason::budget);
        CHECK(result.message.find("the budget of 10.00 USD would be passed") != std::string::npos);
        CHECK(r.rig.transport.started.size() == 40);
        CHECK(r.rig.recorder.count(queue::JobStatus::sent) == 40);
        CHECK(r.budget.committed() == to_micros(10.00));
        CHECK(r.observer.max_committed <= to_micros(10.00));
    }

    TEST_CASE("what was spent before counts: a budget already nearly used sends only what is left of it") {
        BudgetRun r(ok, 10.00, 9.30);
        const auto result = r.run(10, 0.25);
        CHECK(result.reason == queue::StopReason::budget);
        CHECK(r.rig.transport.started.size() == 2);  // 9.30 + 0.50; a third would make 10.05
    }

    TEST_CASE("retried requests cost once: a failure gives its price back until the retry is let through") {
        std::map<std::string, int> asked;
        BudgetRun r(
            [&](const service::HttpRequest& request) -> fakes::FakeTransport::Answer {
                // Every row's first request fails with a 503, the retry succeeds.
                return ++asked[request.body] == 1 ? fakes::http_answer(503, "") : fakes::http_answer(200, k_ok);
            },
            5.00);
        r.rig.settings.max_consecutive_failures = 1000;
        const auto result = r.run(50, 0.25);
        CHECK(result.reason == queue::StopReason::budget);
        CHECK(r.rig.recorder.count(queue::JobStatus::sent) == 20);
        CHECK(r.budget.committed() == to_micros(5.00));
        CHECK(r.observer.max_committed <= to_micros(5.00));
    }

    TEST_CASE("an unknown outcome keeps its price counted: it may have been delivered") {
        BudgetRun r(
            [](const service::HttpRequest&) -> fakes::FakeTransport::Answer {
                return service::TransportError{service::TransportFailure::timeout, true, "timed out"};
            },
            1.00);
        r.rig.settings.ambiguous = campaign::Ambiguous::hold;
        const auto result = r.run(10, 0.25);
        CHECK(result.reason == queue::StopReason::budget);
        CHECK(r.rig.recorder.count(queue::JobStatus::unknown) == 4);
        CHECK(r.budget.committed() == to_micros(1.00));
    }

    TEST_CASE("jobs that will not start give their price back; a refused job is never counted") {
        BudgetGuard guard(to_micros(1.00), 0, "USD");
        queue::Job a;
        a.row = 1;
        a.price = 0.6;
        queue::Job b = a;
        b.row = 2;
        std::vector<const queue::Job*> jobs{&a, &b};
        std::vector<queue::Admission> out;
        REQUIRE(guard.admit(jobs, {}, out));
        REQUIRE(out.size() == 2);
        CHECK(out[0].is_now());
        // a may still fail and give its price back: b waits for it.
        CHECK(out[1].later());
        CHECK(guard.committed() == to_micros(0.6));
        // a asked again (its start lapsed) is counted once.
        std::vector<const queue::Job*> first{&a};
        REQUIRE(guard.admit(first, {}, out));
        CHECK(out.size() == 1);
        CHECK(guard.committed() == to_micros(0.6));
        guard.ended(a, queue::JobStatus::sent);
        guard.ended(a, queue::JobStatus::failed);  // reported again: counted once
        CHECK(guard.committed() == to_micros(0.6));
        std::vector<const queue::Job*> second{&b};
        REQUIRE(guard.admit(second, {}, out));
        REQUIRE(out[0].never());
        CHECK(out[0].never()->refusal == queue::Admission::Refusal::budget);
        CHECK(guard.committed() == to_micros(0.6));

        BudgetGuard other(to_micros(1.00), 0, "USD");
        REQUIRE(other.admit(first, {}, out));
        other.withdraw(first);  // never started: its price given back
        CHECK(other.committed() == 0);
    }

    TEST_CASE("the refusal before the first send names what was spent, the estimate and the budget") {
        campaign::Campaign c;
        c.file = "spring.yaml";
        c.pricing.budget = 100.0;
        campaign::CostEstimate left;
        left.currency = "USD";
        left.total = 60;
        left.messages = 600;
        left.category = "MARKETING";
        left.rate_card = "rates.csv";
        left.by_country = {{"IN", 600, 0.1, 60, true}};
        CHECK_FALSE(runner::over_budget(c, {.amount = 40, .unpriced = 0, .unknown = 0}, left));
        const auto refused = runner::over_budget(c, {.amount = 40.5, .unpriced = 3, .unknown = 1}, left);
        REQUIRE(refused);
        CHECK(refused->find("spring.yaml: over budget: 40.50 USD already spent (of which 3 sent row(s) without a "
                            "price and 1 of unknown outcome, at today's card) + about 60.00 USD for the 600 "
                            "message(s) left = 100.50 USD, more than the budget of 100.00 USD") != std::string::npos);
        CHECK(refused->find("IN 600 × 0.1 = 60.00") != std::string::npos);
        c.pricing.budget.reset();
        CHECK_FALSE(runner::over_budget(c, {.amount = 1e9, .unpriced = 0, .unknown = 0}, left));
    }
}
