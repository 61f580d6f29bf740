#pragma once
// Shared by the dispatcher tests: a job source, an observer that records what it is told, and
// a rig of fakes (clock, transport, limiter, retry policy) in simulated time.

#include <doctest/doctest.h>

#include <algorithm>
#include <atomic>
#include <deque>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "fakes.hpp"
#include "queue/deadline.hpp"
#include "queue/dispatcher.hpp"
#include "queue/pace.hpp"
#include "queue/rate_limiter.hpp"
#include "queue/retry_policy.hpp"

namespace dispatch_test {

using namespace std::chrono_literals;

inline const std::string k_ok = R"({"success":true,"data":{"messageId":"wamid.1"}})";

class ListSource final : public queue::JobSource {
public:
    explicit ListSource(int count) {
        for (int i = 1; i <= count; ++i) {
            queue::Job job;
            job.row = i;
            job.wa_id = std::to_string(919812300000LL + i);
            job.body = R"({"wa_id":")" + job.wa_id + R"("})";
            m_jobs.push_back(job);
        }
    }
    util::Result<bool> next(queue::Job& out) override {
        if (m_jobs.empty()) {
            if (failure) {
                return *failure;
            }
            return false;
        }
        out = m_jobs.front();
        m_jobs.pop_front();
        ++taken;
        return true;
    }
    // The jobs not taken yet, to adjust before the run.
    std::deque<queue::Job>& jobs() { return m_jobs; }
    int taken = 0;
    std::optional<util::Error> failure;  // what next() returns after the last job; none: the end

private:
    std::deque<queue::Job> m_jobs;
};

struct Event {
    std::int64_t row;
    queue::JobStatus status;
    int requests;
    int attempts;
    service::Cause cause;
};

class Recorder final : public queue::DispatchObserver {
public:
    util::Result<void> on_attempt(const queue::Job&) override {
        ++attempts;
        if (attempt_hook) {
            attempt_hook();
        }
        return {};
    }
    util::Result<void> on_result(const queue::Job& job, queue::JobStatus status, const service::Outcome& outcome,
                                 std::chrono::milliseconds) override {
        events.push_back({job.row, status, job.requests, job.attempts, outcome.cause});
        return {};
    }
    void on_progress(const queue::Progress& progress) override {
        last_progress = progress;
        limits.push_back(progress.in_flight_limit);
        if (!progress.pause_reason.empty()) {
            last_pause = progress;
        }
    }
    void on_pause(const queue::Progress& progress) override { pauses.push_back(progress); }
    int count(queue::JobStatus status) const {
        return static_cast<int>(
            std::count_if(events.begin(), events.end(), [&](const Event& e) { return e.status == status; }));
    }
    int attempts = 0;
    std::function<void()> attempt_hook;  // runs in each on_attempt (e.g. a slow log write)
    std::vector<Event> events;
    std::optional<queue::Progress> last_progress;
    std::vector<std::size_t> limits;            // in_flight_limit of each progress report
    std::optional<queue::Progress> last_pause;  // the last progress report that named a pause
    std::vector<queue::Progress> pauses;        // on_pause calls
};

struct Rig {
    explicit Rig(fakes::FakeTransport::Responder answer, double per_second = 1000, int burst = 0,
                 std::chrono::milliseconds latency = 50ms)
        : transport(clock, std::move(answer), latency),
          limiter(per_second, burst),
          retry(retry_settings, fakes::FakeRandom({0.5})) {
        service.base_url = "http://sandbox";
        service.api_key = "rig-key-0123";
    }

    queue::DispatchResult run(queue::JobSource& source) {
        queue::DispatchParts parts{.service = &service,
                                   .transport = &transport,
                                   .clock = &clock,
                                   .limiter = &limiter,
                                   .retry = &retry,
                                   .steps = {deadline, window, limits, after},
                                   .observer = &recorder,
                                   .stop_requests = &stops,
                                   .pace = pace};
        return queue::dispatch(source, settings, parts);
    }

    fakes::FakeClock clock;
    fakes::FakeTransport transport;
    campaign::Retry retry_settings{
        .max_attempts = 3, .initial_backoff = 1s, .max_backoff = 10s, .ambiguous = campaign::Ambiguous::retry};
    queue::RateLimiter limiter;
    queue::RetryPolicy retry;
    service::ServiceConfig service;
    queue::DispatchSettings settings;
    Recorder recorder;
    std::atomic<int> stops{0};
    queue::Admitter* window = nullptr;    // the send window
    queue::Admitter* limits = nullptr;    // the daily cap, or the account's ledger
    queue::Admitter* after = nullptr;     // a step after it (the budget)
    queue::Pace* pace = nullptr;          // a shared pace
    queue::Deadline* deadline = nullptr;  // schedule.not_after, max_delay
};

inline fakes::FakeTransport::Answer ok(const service::HttpRequest&) {
    return fakes::http_answer(200, k_ok);
}

}  // namespace dispatch_test
