// The dispatcher with a shared pace (account.rate_store): slots are used at once or dropped.
#include <doctest/doctest.h>

#include <algorithm>
#include <functional>
#include <iterator>
#include <map>

#include "queue_dispatch_rig.hpp"

using namespace std::chrono_literals;

using namespace dispatch_test;

namespace {

using Steady = std::chrono::steady_clock::time_point;

// A scripted shared pace that records every question and every slot it granted, by time.
class FakePace final : public queue::Pace {
public:
    using Script = std::function<queue::PaceAnswer(Steady now, int want)>;
    explicit FakePace(Script script) : m_script(std::move(script)) {}
    util::Result<void> admit(std::span<const queue::Job* const> jobs, queue::Instant at,
                             std::vector<queue::Admission>& out) override {
        const Steady now = at.steady;
        const int want = static_cast<int>(jobs.size());
        asks.push_back({now, want});
        queue::PaceAnswer answer = m_script(now, want);
        granted[now] += answer.granted;
        queue::admissions_of(answer, jobs.size(), out);
        return {};
    }
    void on_throttled(Steady now, std::optional<std::chrono::milliseconds> retry_after,
                      std::optional<Steady>) override {
        throttles.push_back({now, retry_after});
    }
    std::vector<std::pair<Steady, int>> asks;
    std::map<Steady, int> granted;
    std::vector<std::pair<Steady, std::optional<std::chrono::milliseconds>>> throttles;

private:
    Script m_script;
};

queue::PaceAnswer grant(int n, Steady retry_at = {}) {
    queue::PaceAnswer answer;
    answer.granted = n;
    answer.retry_at = retry_at;
    return answer;
}

// Every request started at a time the pace granted at least that many slots: none kept for later.
void check_starts_granted(const fakes::FakeTransport& transport, const FakePace& pace) {
    std::map<Steady, int> starts;
    for (const auto& s : transport.started) {
        ++starts[s.at];
    }
    for (const auto& [at, n] : starts) {
        auto it = pace.granted.find(at);
        CHECK(it != pace.granted.end());
        if (it != pace.granted.end()) {
            CHECK(n <= it->second);
        }
    }
}

// An account that grants every send, its ledger taking `takes` a call.
class SlowReserver final : public queue::Admitter {
public:
    SlowReserver(fakes::FakeClock& clock, std::chrono::milliseconds takes) : m_clock(clock), m_takes(takes) {}
    util::Result<void> admit(std::span<const queue::Job* const> jobs, queue::Instant,
                             std::vector<queue::Admission>& out) override {
        m_clock.advance(m_takes);
        ++calls;
        out.assign(jobs.size(), queue::Admission{});
        return {};
    }
    int calls = 0;

private:
    fakes::FakeClock& m_clock;
    std::chrono::milliseconds m_takes;
};

// A pace that grants what is asked, to be used within 5 ms.
queue::PaceAnswer grant_for_5ms(Steady now, int want) {
    queue::PaceAnswer answer = grant(want);
    answer.use_by = now + 5ms;
    return answer;
}

// An account that grants every send and records the rows it was told will never start.
class WithdrawRecorder final : public queue::Admitter {
public:
    util::Result<void> admit(std::span<const queue::Job* const> jobs, queue::Instant,
                             std::vector<queue::Admission>& out) override {
        out.assign(jobs.size(), queue::Admission{});
        return {};
    }
    void withdraw(std::span<const queue::Job* const> jobs) override {
        for (const auto* job : jobs) {
            withdrawn.push_back(job->row);
        }
    }
    std::vector<std::int64_t> withdrawn;
};

// An account whose reservations are to be used within 2 s (runner::AccountKeeper's use-by), and
// that records every row it reserved and every one it gave back.
class UseByAccount final : public queue::Admitter {
public:
    util::Result<void> admit(std::span<const queue::Job* const> jobs, queue::Instant at,
                             std::vector<queue::Admission>& out) override {
        for (const auto* job : jobs) {
            reserved.push_back(job->row);
        }
        out.assign(jobs.size(), queue::Admission::Now{.use_by = at.steady + 2s});
        return {};
    }
    void withdraw(std::span<const queue::Job* const> jobs) override {
        for (const auto* job : jobs) {
            withdrawn.push_back(job->row);
        }
    }
    std::vector<std::int64_t> reserved;
    std::vector<std::int64_t> withdrawn;
};

// A step after the account that stops the run at row `row` (the budget would pass).
class StopAt final : public queue::Admitter {
public:
    explicit StopAt(std::int64_t row) : m_row(row) {}
    util::Result<void> admit(std::span<const queue::Job* const> jobs, queue::Instant,
                             std::vector<queue::Admission>& out) override {
        out.clear();
        for (const auto* job : jobs) {
            if (job->row == m_row) {
                out.push_back(queue::Admission::Never{.refusal = queue::Admission::Refusal::budget,
                                                      .reason = "the budget would pass"});
            } else {
                out.emplace_back();
            }
        }
        return {};
    }

private:
    std::int64_t m_row;
};

// The rows answered, each once per request, in order.
std::vector<std::int64_t> started_rows(const Recorder& recorder) {
    std::vector<std::int64_t> rows;
    for (const auto& event : recorder.events) {
        rows.push_back(event.row);
    }
    std::sort(rows.begin(), rows.end());
    return rows;
}

// Three jobs through an account whose reservations last 2 s and a pace that lets the first start
// and holds the others for `wait`: the account as it was left. Every job is sent once.
UseByAccount held_at_pace(std::chrono::milliseconds wait) {
    Rig rig(ok, 1000, 9, 10ms);
    rig.settings.concurrency = 50;
    UseByAccount account;
    rig.limits = &account;
    int asks = 0;
    FakePace pace([&](Steady now, int want) { return ++asks == 1 ? grant(1, now + wait) : grant(want); });
    rig.pace = &pace;
    ListSource source(3);
    auto result = rig.run(source);
    CHECK(result.reason == queue::StopReason::completed);
    CHECK(started_rows(rig.recorder) == std::vector<std::int64_t>{1, 2, 3});
    return account;
}

}  // namespace

TEST_SUITE("queue::dispatch with a shared pace") {
    TEST_CASE("a stop gives back what the account reserved for jobs the pace had not let start yet") {
        // Without it the ledger kept them `reserved` with no line in the log: the next run took
        // each for a request lost in flight (unknown), never sent without --resend-unknown.
        Rig rig(ok, 1000, 9, 10ms);
        rig.settings.concurrency = 50;
        WithdrawRecorder account;
        rig.limits = &account;
        int asks = 0;
        FakePace pace([&](Steady now, int want) {
            if (++asks == 2) {
                rig.stops = 1;  // Ctrl-C while eight wait for their slots
            }
            return asks == 1 ? grant(std::min(want, 2), now + 100ms) : grant(0, now + 1h);
        });
        rig.pace = &pace;
        ListSource source(10);
        auto result = rig.run(source);
        CHECK(result.reason == queue::StopReason::interrupted);
        REQUIRE(rig.transport.started.size() == 2);
        CHECK(account.withdrawn == std::vector<std::int64_t>{3, 4, 5, 6, 7, 8, 9, 10});
    }

    TEST_CASE("a job held at the pace past its reservation's use-by time is given back, and reserved again after") {
        // Without it a Retry-After or a slow shared pace kept the reservation counting from long
        // before its request left, holding rate.per_day's room from other runners meanwhile.
        const UseByAccount past = held_at_pace(10s);
        CHECK(past.withdrawn == std::vector<std::int64_t>{2, 3});
        CHECK(past.reserved == std::vector<std::int64_t>{1, 2, 3, 2, 3});
        const UseByAccount within = held_at_pace(100ms);  // within its use-by time: kept
        CHECK(within.withdrawn.empty());
        CHECK(within.reserved == std::vector<std::int64_t>{1, 2, 3});
    }

    TEST_CASE("a step after the account that stops the run gives back the account's reservation of its job") {
        // Without it the row refused by the budget stayed `reserved` with no line in the log: the
        // next run took it for a request lost in flight (unknown).
        Rig rig(ok, 1000, 9, 10ms);
        rig.settings.concurrency = 1;
        UseByAccount account;
        rig.limits = &account;
        StopAt budget(2);
        rig.after = &budget;
        ListSource source(3);
        auto result = rig.run(source);
        CHECK(result.reason == queue::StopReason::budget);
        CHECK(started_rows(rig.recorder) == std::vector<std::int64_t>{1});
        CHECK(std::find(account.withdrawn.begin(), account.withdrawn.end(), 2) != account.withdrawn.end());
        CHECK(std::find(account.withdrawn.begin(), account.withdrawn.end(), 1) == account.withdrawn.end());
    }

    TEST_CASE("asks for what could start now (at most 1 + burst) and starts what is granted") {
        Rig rig(ok, 100, 4, 10ms);
        rig.settings.concurrency = 50;
        FakePace pace([](Steady, int want) { return grant(want); });
        rig.pace = &pace;
        ListSource source(40);
        auto result = rig.run(source);
        CHECK(result.reason == queue::StopReason::completed);
        CHECK(rig.recorder.count(queue::JobStatus::sent) == 40);
        REQUIRE(!pace.asks.empty());
        CHECK(pace.asks.front().second == 5);
        for (const auto& [at, want] : pace.asks) {
            CHECK(want >= 1);
            CHECK(want <= 5);
        }
        check_starts_granted(rig.transport, pace);
    }
    TEST_CASE("a partial grant starts that many, keeps the rest first in line and asks again when told") {
        Rig rig(ok, 1000, 9, 10ms);
        rig.settings.concurrency = 50;
        FakePace pace([](Steady now, int want) { return grant(std::min(want, 2), now + 100ms); });
        rig.pace = &pace;
        ListSource source(10);
        rig.run(source);
        REQUIRE(rig.transport.started.size() == 10);
        check_starts_granted(rig.transport, pace);
        // Two every 100 ms: the 10 take 400 ms, and no question comes before its time.
        CHECK(rig.transport.started.back().at - rig.transport.started.front().at == 400ms);
        for (std::size_t i = 1; i < pace.asks.size(); ++i) {
            CHECK(pace.asks[i].first - pace.asks[i - 1].first >= 100ms);
        }
        // Rows in order: a job granted no slot goes first next time.
        for (std::size_t i = 0; i < rig.transport.started.size(); ++i) {
            CHECK(rig.transport.started[i].request.body.find(std::to_string(919812300000LL + 1 + i)) !=
                  std::string::npos);
        }
    }
    TEST_CASE("none granted: wakes at the time the pace names, without asking meanwhile") {
        Rig rig(ok, 1000, 0, 10ms);
        rig.settings.concurrency = 5;
        Steady first{};
        FakePace pace([&](Steady now, int want) {
            if (first == Steady{}) {
                first = now;
            }
            return now - first < 700ms ? grant(0, now + 700ms) : grant(want);
        });
        rig.pace = &pace;
        ListSource source(3);
        rig.run(source);
        REQUIRE(rig.transport.started.size() == 3);
        CHECK(rig.transport.started.front().at - first == 700ms);
        REQUIRE(pace.asks.size() >= 2);
        CHECK(pace.asks[1].first - pace.asks[0].first == 700ms);
        check_starts_granted(rig.transport, pace);
    }
    TEST_CASE("the rate store unreachable: nothing starts while it lasts, one notice, then it goes on") {
        Rig rig(ok, 1000, 0, 10ms);
        rig.settings.concurrency = 5;
        Steady first{};
        FakePace pace([&](Steady now, int want) {
            if (first == Steady{}) {
                first = now;
            }
            if (now - first < 3s) {
                queue::PaceAnswer down;
                down.retry_at = now + 1s;
                down.reason = "rate store unreachable: 127.0.0.1:6390: Connection refused";
                down.notice = true;
                return down;
            }
            return grant(want);
        });
        rig.pace = &pace;
        ListSource source(4);
        auto result = rig.run(source);
        CHECK(result.reason == queue::StopReason::completed);
        REQUIRE(rig.transport.started.size() == 4);
        CHECK(rig.transport.started.front().at - first >= 3s);
        // Asked once a second meanwhile, not in a busy loop.
        CHECK(pace.asks.size() <= 8);
        REQUIRE(rig.recorder.pauses.size() == 1);
        CHECK(rig.recorder.pauses[0].pause_reason == "rate store unreachable: 127.0.0.1:6390: Connection refused");
        REQUIRE(rig.recorder.last_pause);
        CHECK(rig.recorder.last_pause->pause_reason.starts_with("rate store unreachable"));
        // Once it answers, the pause is over.
        REQUIRE(rig.recorder.last_progress);
        CHECK(rig.recorder.last_progress->pause_reason.empty());
        check_starts_granted(rig.transport, pace);
    }
    TEST_CASE("slots the account does not use are dropped, not kept: each start has its own grant") {
        // Grants 1 + burst at a time, but the rows come one by one from retries: unused slots
        // would let a later retry start without asking.
        int calls = 0;
        Rig rig(
            [&](const service::HttpRequest&) -> fakes::FakeTransport::Answer {
                return ++calls <= 3 ? fakes::http_answer(503, "") : fakes::http_answer(200, k_ok);
            },
            1000, 4, 10ms);
        rig.settings.concurrency = 5;
        FakePace pace([](Steady, int) { return grant(5); });  // more than asked: clamped
        rig.pace = &pace;
        ListSource source(1);
        rig.run(source);
        REQUIRE(rig.transport.started.size() == 3);  // max_attempts 3
        CHECK(pace.asks.size() == 3);
        for (const auto& [at, want] : pace.asks) {
            CHECK(want == 1);
        }
        check_starts_granted(rig.transport, pace);
    }
    TEST_CASE("a throttle is shared with the pace, and the local limiter pauses too") {
        int calls = 0;
        Rig rig([&](const service::HttpRequest&) -> fakes::FakeTransport::Answer {
            return ++calls == 1 ? fakes::http_answer(429, "", "2") : fakes::http_answer(200, k_ok);
        });
        rig.settings.concurrency = 1;
        FakePace pace([](Steady, int want) { return grant(want); });
        rig.pace = &pace;
        ListSource source(2);
        rig.run(source);
        REQUIRE(pace.throttles.size() == 1);
        CHECK(pace.throttles[0].second == std::optional<std::chrono::milliseconds>(2000ms));
        REQUIRE(rig.transport.started.size() == 3);
        CHECK(rig.transport.started[1].at - rig.transport.started[0].at >= 2s);
    }
    TEST_CASE("a shared throttle pause shows on the progress line but is no notice") {
        Rig rig(ok, 1000, 0, 10ms);
        rig.settings.concurrency = 5;
        rig.settings.progress_interval = 100ms;
        Steady first{};
        FakePace pace([&](Steady now, int want) {
            if (first == Steady{}) {
                first = now;
            }
            if (now - first < 2s) {
                queue::PaceAnswer paused;
                paused.retry_at = first + 2s;
                paused.reason = "rate limited by the service (the account's runners pause together)";
                return paused;
            }
            return grant(want);
        });
        rig.pace = &pace;
        ListSource source(2);
        rig.run(source);
        CHECK(rig.recorder.pauses.empty());
        REQUIRE(rig.recorder.last_pause);
        CHECK(rig.recorder.last_pause->pause_reason.starts_with("rate limited by the service"));
        CHECK(rig.transport.started.front().at - first == 2s);
    }
    TEST_CASE("a slow ledger comes before the slots are asked for: requests leave at their grant's time") {
        // 5/s, burst 1, a rate store, and a ledger that takes 10 ms to reserve: granted first and
        // reserved then, each request would leave 10 ms after its slot's time, and a second
        // could hold 7 starts where 6 are allowed.
        Rig rig(ok, 5, 1, 10ms);
        rig.settings.concurrency = 5;
        SlowReserver ledger(rig.clock, 10ms);
        rig.limits = &ledger;
        FakePace pace(grant_for_5ms);
        rig.pace = &pace;
        ListSource source(8);
        auto result = rig.run(source);
        CHECK(result.reason == queue::StopReason::completed);
        REQUIRE(rig.transport.started.size() == 8);
        check_starts_granted(rig.transport, pace);
        CHECK(ledger.calls >= 1);
    }
    TEST_CASE("a slot not used by its use-by time is dropped and asked for again, never used late") {
        // Each attempt line takes 3 ms to write: of 5 slots granted at t, usable until t + 5 ms,
        // the third would start at t + 6 ms.
        Rig rig(ok, 1000, 4, 10ms);
        rig.settings.concurrency = 10;
        rig.recorder.attempt_hook = [&rig] { rig.clock.advance(3ms); };
        std::vector<Steady> use_by;
        FakePace pace([&use_by](Steady now, int want) {
            use_by.push_back(now + 5ms);
            return grant_for_5ms(now, want);
        });
        rig.pace = &pace;
        ListSource source(10);
        auto result = rig.run(source);
        CHECK(result.reason == queue::StopReason::completed);
        REQUIRE(rig.transport.started.size() == 10);
        // Every request left by the use-by time of the grant it used (the last one before it).
        for (const auto& s : rig.transport.started) {
            // The attempt line of this request was written 3 ms before it was handed over.
            const Steady attempt = s.at - 3ms;
            const auto g = std::upper_bound(pace.granted.begin(), pace.granted.end(), attempt,
                                            [](Steady t, const auto& e) { return t < e.first; });
            REQUIRE(g != pace.granted.begin());
            CHECK(attempt <= std::prev(g)->first + 5ms);
        }
        // More asked than started: the dropped slots were asked for again.
        int granted = 0;
        for (const auto& [at, n] : pace.granted) {
            granted += n;
        }
        CHECK(granted > 10);
    }
    TEST_CASE("a store that grants every slot: the local limiter still bounds the starts when the process is held up") {
        // 5/s, burst 1: at most 6 starts in any second as this runner's clock sees them. The
        // store grants every slot, but some answers come 900 ms after the question (the process
        // held up): the local slots are taken when the jobs start, not when the turn began.
        Rig rig(ok, 5, 1, 10ms);
        rig.settings.concurrency = 10;
        std::vector<Steady> starts;
        rig.recorder.attempt_hook = [&] { starts.push_back(rig.clock.steady_now()); };
        int asks = 0;
        FakePace pace([&](Steady, int want) {
            if (asks++ % 5 == 0) {
                rig.clock.advance(900ms);
            }
            return grant(want);
        });
        rig.pace = &pace;
        ListSource source(60);
        auto result = rig.run(source);
        CHECK(result.reason == queue::StopReason::completed);
        REQUIRE(starts.size() == 60);
        std::size_t most = 0;
        for (auto from = starts.begin(); from != starts.end(); ++from) {
            const auto in_window = std::count_if(from, starts.end(), [&](Steady t) { return t < *from + 1s; });
            most = std::max(most, static_cast<std::size_t>(in_window));
        }
        CHECK(most <= 6);
    }
}
