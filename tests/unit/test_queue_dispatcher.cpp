#include <doctest/doctest.h>

#include "queue/daily_cap.hpp"
#include "queue/send_window.hpp"
#include "queue_dispatch_rig.hpp"

using namespace std::chrono_literals;

using namespace dispatch_test;

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
        Rig rig(
            [](const service::HttpRequest&) -> fakes::FakeTransport::Answer { return fakes::http_answer(503, ""); });
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
        Rig rig([](const service::HttpRequest&) -> fakes::FakeTransport::Answer {
            return service::TransportError{service::TransportFailure::timeout, true, "timed out"};
        });
        rig.settings.ambiguous = campaign::Ambiguous::hold;
        ListSource source(2);
        rig.run(source);
        CHECK(rig.transport.started.size() == 2);
        CHECK(rig.recorder.count(queue::JobStatus::unknown) == 2);
    }
    TEST_CASE("a 5xx is retried with retry.ambiguous: hold too: the service answered") {
        int calls = 0;
        Rig rig([&](const service::HttpRequest&) -> fakes::FakeTransport::Answer {
            return ++calls == 1 ? fakes::http_answer(503, "") : fakes::http_answer(200, k_ok);
        });
        rig.settings.ambiguous = campaign::Ambiguous::hold;
        ListSource source(1);
        rig.run(source);
        CHECK(rig.transport.started.size() == 2);
        CHECK(rig.recorder.count(queue::JobStatus::unknown) == 0);
        CHECK(rig.recorder.events.back().status == queue::JobStatus::sent);
    }
    TEST_CASE("a request that never left is retried with retry.ambiguous: hold") {
        int calls = 0;
        Rig rig([&](const service::HttpRequest&) -> fakes::FakeTransport::Answer {
            if (++calls == 1) {
                return service::TransportError{service::TransportFailure::connection_lost, false, "closed"};
            }
            return fakes::http_answer(200, k_ok);
        });
        rig.settings.ambiguous = campaign::Ambiguous::hold;
        ListSource source(1);
        rig.run(source);
        CHECK(rig.transport.started.size() == 2);
        CHECK(rig.recorder.events.back().status == queue::JobStatus::sent);
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
    TEST_CASE("a service that throttles forever stops the run after abort.max_throttled") {
        Rig rig([](const service::HttpRequest&) -> fakes::FakeTransport::Answer {
            return fakes::http_answer(429, R"({"error":{"code":130429,"message":"Rate limit hit"}})", "60");
        });
        rig.settings.concurrency = 1;
        rig.settings.max_throttled = 30min;
        ListSource source(3);
        const auto started = rig.clock.steady_now();
        auto result = rig.run(source);
        CHECK(result.reason == queue::StopReason::throttled);
        CHECK(rig.clock.steady_now() - started >= 30min);
        CHECK(rig.clock.steady_now() - started < 32min);
        CHECK(result.message.find("throttled every request for 30m") != std::string::npos);
        CHECK(result.message.find("Rate limit hit") != std::string::npos);
        CHECK(rig.recorder.count(queue::JobStatus::sent) == 0);
    }
    TEST_CASE("a throttle broken by an answer starts the throttled time afresh") {
        int calls = 0;
        // 20 minutes of 429s, one success, 20 more minutes of 429s, then successes: never 30
        // minutes without a break, so the run completes.
        Rig rig([&](const service::HttpRequest&) -> fakes::FakeTransport::Answer {
            ++calls;
            const bool throttled = (calls >= 1 && calls <= 20) || (calls >= 22 && calls <= 41);
            return throttled ? fakes::http_answer(429, "", "60") : fakes::http_answer(200, k_ok);
        });
        rig.settings.concurrency = 1;
        rig.settings.max_throttled = 30min;
        ListSource source(3);
        auto result = rig.run(source);
        CHECK(result.reason == queue::StopReason::completed);
        CHECK(rig.recorder.count(queue::JobStatus::sent) == 3);
    }
    TEST_CASE("a refused key stops the campaign at once") {
        Rig rig(
            [](const service::HttpRequest&) -> fakes::FakeTransport::Answer { return fakes::http_answer(401, ""); });
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
        CHECK(rig.transport.started.size() ==
              7);  // (the source may be asked for one more, to tell "limit" from "done")
        CHECK(rig.recorder.count(queue::JobStatus::sent) == 7);
    }
    TEST_CASE("the daily cap pauses the queue until the oldest send of the last 24 h ages out") {
        Rig rig(ok, 1000, 0, 10ms);
        queue::DailyCap cap(5);
        cap.record(rig.clock.wall_now() - 23h);  // one send from an earlier run, counted from the log
        rig.limits = &cap;
        rig.settings.concurrency = 2;
        ListSource source(8);
        const auto start = rig.clock.wall_now();
        auto result = rig.run(source);
        CHECK(result.reason == queue::StopReason::completed);
        CHECK(rig.recorder.count(queue::JobStatus::sent) == 8);
        const auto& s = rig.transport.started;
        REQUIRE(s.size() == 8);
        // 4 go at once (5 minus the earlier one); the 5th waits until that one is 24 h old.
        CHECK(s[3].at - s[0].at < 1s);
        CHECK(s[4].at - s[0].at >= 1h - 1s);
        // The other 3 wait until today's first sends are 24 h old.
        CHECK(s[7].at - s[0].at >= 24h);
        REQUIRE(!rig.recorder.pauses.empty());
        CHECK(rig.recorder.pauses.front().pause_reason == "daily cap reached");
        REQUIRE(rig.recorder.pauses.front().paused_until.has_value());
        CHECK(*rig.recorder.pauses.front().paused_until - start >= 1h - 1s);
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
        const queue::DispatchParts parts{.service = &rig.service,
                                         .transport = &rig.transport,
                                         .clock = &rig.clock,
                                         .limiter = &rig.limiter,
                                         .retry = &rig.retry,
                                         .observer = &observer,
                                         .stop_requests = &rig.stops};
        auto result = queue::dispatch(source, rig.settings, parts);
        CHECK(result.reason == queue::StopReason::interrupted);
        CHECK(rig.recorder.count(queue::JobStatus::unknown) == static_cast<int>(rig.transport.started.size()));
        CHECK(rig.recorder.count(queue::JobStatus::sent) == 0);
    }
}

namespace {

queue::WallTime utc(int y, unsigned m, unsigned d, int h, int mi = 0, int s = 0) {
    using namespace std::chrono;
    return sys_days(year(y) / month(m) / day(d)) + hours(h) + minutes(mi) + seconds(s);
}

queue::SendWindow office_hours(const std::string& zone, int from_hour, int to_hour) {
    auto made = queue::SendWindow::make({zone, {1, 2, 3, 4, 5}, from_hour * 60, to_hour * 60});
    REQUIRE(made);
    return *made;
}

// The wall times at which the fake transport saw requests start (both fake clocks move together).
std::vector<queue::WallTime> start_times(const Rig& rig, std::chrono::steady_clock::time_point steady0,
                                         queue::WallTime wall0) {
    std::vector<queue::WallTime> out;
    for (const auto& s : rig.transport.started) {
        out.push_back(wall0 + std::chrono::duration_cast<queue::WallTime::duration>(s.at - steady0));
    }
    return out;
}

}  // namespace

TEST_SUITE("queue::dispatch") {
    TEST_CASE("a run started at 17:59 sends until the window closes at 18:00, waits, and completes when it opens") {
        auto window = office_hours("Asia/Kolkata", 9, 18);
        Rig rig(ok, 1, 0, 50ms);
        rig.settings.concurrency = 1;
        rig.window = &window;
        rig.clock.set_wall(utc(2026, 3, 5, 12, 29));  // Thursday 17:59 IST
        const auto steady0 = rig.clock.steady_now();
        const auto wall0 = rig.clock.wall_now();
        ListSource source(100);
        auto result = rig.run(source);
        CHECK(result.reason == queue::StopReason::completed);
        CHECK(rig.recorder.count(queue::JobStatus::sent) == 100);
        int thursday = 0;
        for (auto at : start_times(rig, steady0, wall0)) {
            if (at < utc(2026, 3, 5, 12, 30)) {
                ++thursday;
            } else {
                CHECK(at >= utc(2026, 3, 6, 3, 30));  // Friday 09:00 IST
            }
        }
        CHECK(thursday == 60);  // one a second for the last minute
        REQUIRE(rig.recorder.last_pause);
        CHECK(rig.recorder.last_pause->pause_reason == "outside the send window");
        CHECK(rig.recorder.last_pause->paused_until == utc(2026, 3, 6, 3, 30));
        // Said once, not once per check.
        REQUIRE(rig.recorder.pauses.size() == 1);
        CHECK(rig.recorder.pauses[0].paused_until == utc(2026, 3, 6, 3, 30));
        CHECK(rig.recorder.pauses[0].sent == 60);  // the last minute's sends, all answered by 18:00
    }
    TEST_CASE("a campaign spanning two windows over a DST weekend starts nothing outside them") {
        // New York Mon-Fri 09:00-17:00; clocks go forward on Sunday 2026-03-08, so Monday's
        // 09:00 is 13:00 UTC where Friday's 17:00 was 22:00 UTC.
        auto window = office_hours("America/New_York", 9, 17);
        Rig rig(ok, 1, 0, 50ms);
        rig.settings.concurrency = 1;
        rig.window = &window;
        rig.clock.set_wall(utc(2026, 3, 6, 21, 59, 30));  // Friday 16:59:30 EST
        const auto steady0 = rig.clock.steady_now();
        const auto wall0 = rig.clock.wall_now();
        ListSource source(60);
        auto result = rig.run(source);
        CHECK(result.reason == queue::StopReason::completed);
        CHECK(rig.recorder.count(queue::JobStatus::sent) == 60);
        const auto starts = start_times(rig, steady0, wall0);
        const auto friday =
            std::count_if(starts.begin(), starts.end(), [&](auto at) { return at < utc(2026, 3, 6, 22, 0); });
        CHECK(friday == 30);
        for (auto at : starts) {
            CHECK((at < utc(2026, 3, 6, 22, 0) || at >= utc(2026, 3, 9, 13, 0)));
        }
        REQUIRE(starts.size() == 60);
        CHECK(starts[30] < utc(2026, 3, 9, 13, 0, 1));  // woken at the opening, not long after
    }
    TEST_CASE("requests in flight when the window closes finish; the rest wait for the opening") {
        auto window = office_hours("Asia/Kolkata", 9, 18);
        Rig rig(ok, 1000, 0, 5s);
        rig.settings.concurrency = 4;
        rig.window = &window;
        rig.clock.set_wall(utc(2026, 3, 5, 12, 29, 58));  // Thursday 17:59:58 IST
        const auto steady0 = rig.clock.steady_now();
        const auto wall0 = rig.clock.wall_now();
        ListSource source(6);
        auto result = rig.run(source);
        CHECK(result.reason == queue::StopReason::completed);
        CHECK(rig.recorder.count(queue::JobStatus::sent) == 6);
        CHECK(rig.recorder.count(queue::JobStatus::unknown) == 0);
        const auto starts = start_times(rig, steady0, wall0);
        REQUIRE(starts.size() == 6);  // each once: none abandoned or repeated
        CHECK(starts[3] < utc(2026, 3, 5, 12, 30));
        CHECK(starts[4] >= utc(2026, 3, 6, 3, 30));
    }
    TEST_CASE("a stop request is noticed while the window is closed") {
        auto window = office_hours("Asia/Kolkata", 9, 18);
        Rig rig(ok);
        rig.window = &window;
        rig.clock.set_wall(utc(2026, 3, 7, 6, 0));  // Saturday: closed until Monday
        const auto steady0 = rig.clock.steady_now();
        struct StopWhenPaused final : queue::DispatchObserver {
            Recorder& inner;
            std::atomic<int>& stops;
            StopWhenPaused(Recorder& r, std::atomic<int>& s) : inner(r), stops(s) {}
            util::Result<void> on_attempt(const queue::Job& job) override { return inner.on_attempt(job); }
            util::Result<void> on_result(const queue::Job& j, queue::JobStatus s, const service::Outcome& o,
                                         std::chrono::milliseconds l) override {
                return inner.on_result(j, s, o, l);
            }
            void on_progress(const queue::Progress& p) override {
                inner.on_progress(p);
                stops = 1;
            }
        } observer(rig.recorder, rig.stops);
        const queue::DispatchParts parts{.service = &rig.service,
                                         .transport = &rig.transport,
                                         .clock = &rig.clock,
                                         .limiter = &rig.limiter,
                                         .retry = &rig.retry,
                                         .steps = {&window},
                                         .observer = &observer,
                                         .stop_requests = &rig.stops};
        ListSource source(5);
        auto result = queue::dispatch(source, rig.settings, parts);
        CHECK(result.reason == queue::StopReason::interrupted);
        CHECK(rig.transport.started.empty());
        CHECK(rig.clock.steady_now() - steady0 <= 1s);
        CHECK(result.progress.started == 0);  // nothing taken from the list while closed
        REQUIRE(rig.recorder.last_pause);
        CHECK(rig.recorder.last_pause->paused_until == utc(2026, 3, 9, 3, 30));
    }
    TEST_CASE("a source that cannot be read on ends the jobs: what was taken is sent, then input_error") {
        Rig rig(ok);
        ListSource source(5);
        source.failure = util::fail("r.csv: the file could not be read past line 7");
        auto result = rig.run(source);
        CHECK(rig.recorder.count(queue::JobStatus::sent) == 5);
        CHECK(result.reason == queue::StopReason::input_error);
        CHECK(result.message == "r.csv: the file could not be read past line 7");
    }
    TEST_CASE("a source that cannot write the log ends the jobs with log_error") {
        Rig rig(ok);
        ListSource source(5);
        source.failure = util::Error{"results.jsonl: disk full", util::ErrorKind::write};
        auto result = rig.run(source);
        CHECK(rig.recorder.count(queue::JobStatus::sent) == 5);
        CHECK(result.reason == queue::StopReason::log_error);
        CHECK(result.message == "results.jsonl: disk full");
    }
    TEST_CASE("a source's end is no error") {
        Rig rig(ok);
        ListSource source(0);
        auto result = rig.run(source);
        CHECK(result.reason == queue::StopReason::completed);
        CHECK(result.message.empty());
    }
}
