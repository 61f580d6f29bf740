#include <deque>
#include <doctest/doctest.h>

#include "fakes.hpp"
#include "queue/dispatcher.hpp"
#include "queue/rate_limiter.hpp"
#include "queue/retry_policy.hpp"

using namespace std::chrono_literals;

namespace {

const std::string k_ok = R"({"success":true,"data":{"messageId":"wamid.1"}})";

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
    bool next(queue::Job& out) override {
        if (m_jobs.empty()) {
            return false;
        }
        out = m_jobs.front();
        m_jobs.pop_front();
        ++taken;
        return true;
    }
    int taken = 0;

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
        return {};
    }
    util::Result<void> on_result(const queue::Job& job, queue::JobStatus status, const service::Outcome& outcome,
                                 std::chrono::milliseconds) override {
        events.push_back({job.row, status, job.requests, job.attempts, outcome.cause});
        return {};
    }
    void on_progress(const queue::Progress&) override {}
    int count(queue::JobStatus status) const {
        return static_cast<int>(std::count_if(events.begin(), events.end(), [&](const Event& e) { return e.status == status; }));
    }
    int attempts = 0;
    std::vector<Event> events;
};

struct Rig {
    explicit Rig(fakes::FakeTransport::Responder answer, double per_second = 1000, int burst = 0,
                 std::chrono::milliseconds latency = 50ms)
        : transport(clock, std::move(answer), latency), limiter(per_second, burst),
          retry(retry_settings, fakes::FakeRandom({0.5})) {
        service.base_url = "http://sandbox";
        service.api_key = "key";
    }

    queue::DispatchResult run(queue::JobSource& source) {
        queue::DispatchParts parts{&service, &transport, &clock, &limiter, &retry, nullptr, &recorder, &stops};
        return queue::dispatch(source, settings, parts);
    }

    fakes::FakeClock clock;
    fakes::FakeTransport transport;
    campaign::Retry retry_settings{.max_attempts = 3, .initial_backoff = 1s, .max_backoff = 10s,
                                   .ambiguous = campaign::Ambiguous::retry};
    queue::RateLimiter limiter;
    queue::RetryPolicy retry;
    service::ServiceConfig service;
    queue::DispatchSettings settings;
    Recorder recorder;
    std::atomic<int> stops{0};
};

fakes::FakeTransport::Answer ok(const service::HttpRequest&) {
    return fakes::http_answer(200, k_ok);
}

} // namespace

TEST_SUITE("queue::dispatch") {
    TEST_CASE("sends every job once and never has more than `concurrency` in flight") {
        Rig rig(ok);
        rig.settings.concurrency = 3;
        ListSource source(40);
        auto result = rig.run(source);
        CHECK(result.reason == queue::StopReason::completed);
        CHECK(rig.recorder.count(queue::JobStatus::sent) == 40);
        CHECK(rig.transport.started.size() == 40);
        CHECK(rig.transport.max_in_flight == 3);
        CHECK(result.progress.sent == 40);
    }
    TEST_CASE("never starts more than per_second + burst in any one second") {
        Rig rig(ok, 10, 2, 1ms);
        rig.settings.concurrency = 50;
        ListSource source(100);
        rig.run(source);
        const auto& s = rig.transport.started;
        REQUIRE(s.size() == 100);
        for (size_t i = 0; i < s.size(); ++i) {
            size_t in_window = 0;
            for (size_t j = i; j < s.size() && s[j].at - s[i].at < 1s; ++j) {
                ++in_window;
            }
            CHECK(in_window <= 12);
        }
        // …and keeps the rate busy: 100 requests at 10/s take about 10 s, not much more.
        CHECK(s.back().at - s.front().at < 11s);
    }
    TEST_CASE("transient failures are retried with backoff up to max_attempts, then fail") {
        Rig rig([](const service::HttpRequest&) -> fakes::FakeTransport::Answer { return fakes::http_answer(503, ""); });
        ListSource source(1);
        rig.run(source);
        CHECK(rig.transport.started.size() == 3);
        CHECK(rig.recorder.count(queue::JobStatus::retrying) == 2);
        REQUIRE(rig.recorder.events.back().status == queue::JobStatus::failed);
        CHECK(rig.recorder.events.back().cause == service::Cause::transient);
        CHECK(rig.recorder.events.back().requests == 3);
        // Backoff (jitter 0.5 of 1 s, then of 2 s) separates the attempts.
        CHECK(rig.transport.started[1].at - rig.transport.started[0].at >= 500ms);
        CHECK(rig.transport.started[2].at - rig.transport.started[1].at >= 1000ms);
    }
    TEST_CASE("ambiguous failures are held as unknown with retry.ambiguous: hold") {
        Rig rig([](const service::HttpRequest&) -> fakes::FakeTransport::Answer { return fakes::http_answer(500, ""); });
        rig.settings.ambiguous = campaign::Ambiguous::hold;
        ListSource source(2);
        rig.run(source);
        CHECK(rig.transport.started.size() == 2);
        CHECK(rig.recorder.count(queue::JobStatus::unknown) == 2);
    }
    TEST_CASE("rate-limited requests wait for Retry-After and do not use up attempts") {
        int calls = 0;
        Rig rig([&](const service::HttpRequest&) -> fakes::FakeTransport::Answer {
            return ++calls <= 4 ? fakes::http_answer(429, "", "2") : fakes::http_answer(200, k_ok);
        });
        rig.settings.concurrency = 1;
        ListSource source(1);
        rig.run(source);
        CHECK(rig.transport.started.size() == 5);  // more than max_attempts (3): throttles don't count
        CHECK(rig.recorder.events.back().status == queue::JobStatus::sent);
        CHECK(rig.transport.started[1].at - rig.transport.started[0].at >= 2s);
    }
    TEST_CASE("a refused key stops the campaign at once") {
        Rig rig([](const service::HttpRequest&) -> fakes::FakeTransport::Answer { return fakes::http_answer(401, ""); });
        rig.settings.concurrency = 2;
        ListSource source(50);
        auto result = rig.run(source);
        CHECK(result.reason == queue::StopReason::auth);
        CHECK(rig.transport.started.size() <= 2);
        CHECK(source.taken <= 2);
    }
    TEST_CASE("the spam limit stops the campaign") {
        Rig rig([](const service::HttpRequest&) -> fakes::FakeTransport::Answer {
            return fakes::http_answer(400, R"({"error":{"code":131048,"message":"spam"}})");
        });
        ListSource source(10);
        CHECK(rig.run(source).reason == queue::StopReason::spam_limit);
    }
    TEST_CASE("rejected recipients fail once; too many failures in a row stop the run") {
        Rig rig([](const service::HttpRequest&) -> fakes::FakeTransport::Answer {
            return fakes::http_answer(400, R"({"error":{"code":131026,"message":"undeliverable"}})");
        });
        rig.settings.max_consecutive_failures = 5;
        rig.settings.concurrency = 1;
        ListSource source(20);
        auto result = rig.run(source);
        CHECK(result.reason == queue::StopReason::failure_threshold);
        CHECK(rig.transport.started.size() == 5);
        CHECK(rig.recorder.count(queue::JobStatus::failed) == 5);
    }
    TEST_CASE("--limit takes only N jobs") {
        Rig rig(ok);
        rig.settings.limit = 7;
        ListSource source(20);
        auto result = rig.run(source);
        CHECK(result.reason == queue::StopReason::limit);
        CHECK(rig.transport.started.size() == 7);  // (the source may be asked for one more, to tell "limit" from "done")
        CHECK(rig.recorder.count(queue::JobStatus::sent) == 7);
    }
    TEST_CASE("a stop request finishes the requests in flight and starts no more") {
        Rig rig(ok);
        rig.stops = 1;
        ListSource source(5);
        auto result = rig.run(source);
        CHECK(result.reason == queue::StopReason::interrupted);
        CHECK(rig.transport.started.empty());
    }
    TEST_CASE("a second stop request abandons the requests in flight as unknown") {
        Rig rig(ok, 1000, 0, 10s);
        rig.settings.concurrency = 4;
        ListSource source(4);
        int polls = 0;
        struct StopAfterStart final : queue::DispatchObserver {
            Recorder& inner;
            std::atomic<int>& stops;
            StopAfterStart(Recorder& r, std::atomic<int>& s) : inner(r), stops(s) {}
            util::Result<void> on_attempt(const queue::Job& job) override {
                stops = 2;
                return inner.on_attempt(job);
            }
            util::Result<void> on_result(const queue::Job& j, queue::JobStatus s, const service::Outcome& o,
                                         std::chrono::milliseconds l) override {
                return inner.on_result(j, s, o, l);
            }
            void on_progress(const queue::Progress&) override {}
        } observer(rig.recorder, rig.stops);
        (void)polls;
        queue::DispatchParts parts{&rig.service, &rig.transport, &rig.clock, &rig.limiter, &rig.retry,
                                   nullptr, &observer, &rig.stops};
        auto result = queue::dispatch(source, rig.settings, parts);
        CHECK(result.reason == queue::StopReason::interrupted);
        CHECK(rig.recorder.count(queue::JobStatus::unknown) == static_cast<int>(rig.transport.started.size()));
        CHECK(rig.recorder.count(queue::JobStatus::sent) == 0);
    }
}
