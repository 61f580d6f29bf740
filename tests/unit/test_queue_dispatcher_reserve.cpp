#include <doctest/doctest.h>

#include <functional>
#include <map>
#include <numeric>

#include "queue_dispatch_rig.hpp"

using namespace dispatch_test;
using queue::Admission;

namespace {

// The account's answer for each job, as `decide` says; remembers the rows of every call and when
// it came (steady time).
class FakeReserver final : public queue::Admitter {
public:
    using Decide = std::function<util::Result<Admission>(const queue::Job&)>;
    FakeReserver(const fakes::FakeClock& clock, Decide decide) : m_clock(clock), m_decide(std::move(decide)) {}

    util::Result<void> admit(std::span<const queue::Job* const> jobs, queue::Instant at,
                             std::vector<Admission>& out) override {
        std::vector<std::int64_t> rows;
        out.clear();
        for (const auto* job : jobs) {
            rows.push_back(job->row);
            auto answer = m_decide(*job);
            if (!answer) {
                return answer.error();
            }
            if (const Admission::Later* given = answer->later()) {
                // As the ledger's keeper asks: again when room opens, meanwhile every 5 s.
                Admission::Later wait = queue::later_until(at, given->until, std::chrono::seconds(5));
                wait.reason = given->reason;
                wait.notice = true;
                *answer = std::move(wait);
            }
            out.push_back(*answer);
        }
        calls.push_back({m_clock.steady_now(), rows});
        return {};
    }

    struct Call {
        std::chrono::steady_clock::time_point at;
        std::vector<std::int64_t> rows;
    };
    std::vector<Call> calls;

private:
    const fakes::FakeClock& m_clock;
    Decide m_decide;
};

// ListSource's rows carry the numbers 919812300000 + row; the requests' bodies hold them.
std::int64_t row_of(const std::string& body) {
    const std::string key = R"("wa_id":")";
    const auto at = body.find(key);
    REQUIRE(at != std::string::npos);
    return std::stoll(body.substr(at + key.size(), 12)) - 919812300000LL;
}

// What the observer and the transport were told, in one sequence: "attempt 2", "request 2", …
class Trace final : public queue::DispatchObserver, public service::HttpTransport {
public:
    explicit Trace(fakes::FakeTransport& transport) : m_transport(transport) {}

    util::Result<void> on_attempt(const queue::Job& job) override {
        events.push_back("attempt " + std::to_string(job.row));
        return {};
    }
    util::Result<void> on_result(const queue::Job& job, queue::JobStatus status, const service::Outcome&,
                                 std::chrono::milliseconds) override {
        events.push_back("result " + std::to_string(job.row));
        results[job.row] = status;
        return {};
    }
    util::Result<void> on_refused(const queue::Job& job, const queue::Admission::Never& answer) override {
        if (fail_refused) {
            return util::Error{"disk full", util::ErrorKind::write};
        }
        events.push_back("refused " + std::to_string(job.row));
        refused[job.row] = answer.reason;
        return {};
    }
    void on_progress(const queue::Progress&) override {}
    void on_pause(const queue::Progress& progress) override { pauses.push_back(progress); }
    util::Result<void> flush() override {
        if (flush_failure) {
            return *flush_failure;
        }
        return {};
    }

    void start(std::uint64_t id, service::HttpRequest request) override {
        events.push_back("request " + std::to_string(row_of(request.body)));
        m_transport.start(id, std::move(request));
    }
    std::vector<service::Completion> poll(std::chrono::microseconds max_wait, service::Wait wait) override {
        return m_transport.poll(max_wait, wait);
    }
    std::size_t in_flight() const override { return m_transport.in_flight(); }

    // The position of `event` in `events`, or -1.
    long index(const std::string& event) const {
        const auto it = std::find(events.begin(), events.end(), event);
        return it == events.end() ? -1 : static_cast<long>(it - events.begin());
    }

    std::vector<std::string> events;
    std::map<std::int64_t, queue::JobStatus> results;
    std::map<std::int64_t, std::string> refused;
    std::vector<queue::Progress> pauses;
    bool fail_refused = false;                 // on_refused fails, as a full disk would
    std::optional<util::Error> flush_failure;  // what flush() fails with

private:
    fakes::FakeTransport& m_transport;
};

struct ReserveRig {
    explicit ReserveRig(FakeReserver::Decide decide, int burst = 16)
        : rig(ok, 1000, burst), reserver(rig.clock, std::move(decide)) {
        rig.settings.concurrency = 8;
    }

    queue::DispatchResult run(queue::JobSource& source) {
        const queue::DispatchParts parts{.service = &rig.service,
                                         .transport = &trace,
                                         .clock = &rig.clock,
                                         .limiter = &rig.limiter,
                                         .retry = &rig.retry,
                                         .steps = {&reserver},
                                         .observer = &trace,
                                         .stop_requests = &rig.stops};
        return queue::dispatch(source, rig.settings, parts);
    }

    Rig rig;
    Trace trace{rig.transport};
    FakeReserver reserver;
};

Admission granted() {
    return Admission{};
}

}  // namespace

TEST_SUITE("queue::dispatch account reservations") {
    TEST_CASE("the jobs started in one turn are reserved in one call, not one call each") {
        ReserveRig r([](const queue::Job&) { return granted(); });
        ListSource source(20);
        auto result = r.run(source);
        CHECK(result.reason == queue::StopReason::completed);
        CHECK(r.rig.transport.started.size() == 20);
        // Eight in flight at most: three turns of 8, 8 and 4 jobs.
        REQUIRE(r.reserver.calls.size() == 3);
        CHECK(r.reserver.calls[0].rows == std::vector<std::int64_t>{1, 2, 3, 4, 5, 6, 7, 8});
        CHECK(r.reserver.calls[1].rows.size() == 8);
        CHECK(r.reserver.calls[2].rows == std::vector<std::int64_t>{17, 18, 19, 20});
    }

    TEST_CASE("at a paced rate the jobs of the span asked ahead are reserved in one call, each started at its slot") {
        // Paced at burst 0 a turn may start one job: one reservation (one ledger transaction) a
        // message, where reserving ahead makes one for a tenth of a second's jobs here.
        for (const auto ahead : {std::chrono::milliseconds(0), std::chrono::milliseconds(100)}) {
            CAPTURE(ahead.count());
            ReserveRig r([](const queue::Job&) { return granted(); }, 0);
            r.rig.settings.ask_ahead = ahead;
            ListSource source(300);
            auto result = r.run(source);
            CHECK(result.reason == queue::StopReason::completed);
            REQUIRE(r.rig.transport.started.size() == 300);
            std::vector<std::int64_t> order;
            for (const auto& event : r.trace.events) {
                if (event.starts_with("request ")) {
                    order.push_back(std::stoll(event.substr(8)));
                }
            }
            std::vector<std::int64_t> rows(300);
            std::iota(rows.begin(), rows.end(), 1);
            CHECK(order == rows);  // first in line first, each once
            // Paced all the same: 1 ms apart at least, at 1,000 a second and burst 0.
            for (std::size_t i = 1; i < r.rig.transport.started.size(); ++i) {
                CHECK(r.rig.transport.started[i].at - r.rig.transport.started[i - 1].at >=
                      std::chrono::milliseconds(1));
            }
            if (ahead.count() == 0) {
                CHECK(r.reserver.calls.size() == 300);
            } else {
                // The next span is asked for as the last job of the one before starts: 100,
                // then 99 beside it, 99, and the last 2.
                REQUIRE(r.reserver.calls.size() == 4);
                CHECK(r.reserver.calls[0].rows.size() == 100);
                std::size_t asked = 0;
                for (const auto& call : r.reserver.calls) {
                    asked += call.rows.size();
                }
                CHECK(asked == 300);  // none asked twice
            }
        }
    }

    TEST_CASE("a refused job is reported refused: no attempt line, no request") {
        ReserveRig r([](const queue::Job& job) {
            if (job.row == 2) {
                return Admission{Admission::Never{.reason = "messaged meanwhile"}};
            }
            return granted();
        });
        ListSource source(3);
        auto result = r.run(source);
        CHECK(result.reason == queue::StopReason::completed);
        CHECK(r.trace.refused == std::map<std::int64_t, std::string>{{2, "messaged meanwhile"}});
        CHECK(r.trace.index("attempt 2") == -1);
        CHECK(r.trace.index("request 2") == -1);
        CHECK(r.trace.index("result 2") == -1);
        REQUIRE(r.rig.transport.started.size() == 2);
        CHECK(r.trace.results.size() == 2);
        CHECK(r.trace.results[3] == queue::JobStatus::sent);
    }

    TEST_CASE("a deferred job leaves no request until the clock passes `until`, asked again every 5 s at most") {
        const fakes::FakeClock* clock = nullptr;
        std::optional<std::chrono::system_clock::time_point> until;
        ReserveRig r([&](const queue::Job& job) {
            if (job.row == 2 && clock->wall_now() < *until) {
                return Admission{Admission::Later{.until = until, .reason = "the account's daily cap is reached"}};
            }
            return granted();
        });
        clock = &r.rig.clock;
        until = clock->wall_now() + 62500ms;  // not on a 5 s step: the last ask comes at `until`
        const auto start = r.rig.clock.steady_now();
        ListSource source(3);
        auto result = r.run(source);
        CHECK(result.reason == queue::StopReason::completed);
        CHECK(r.trace.results.size() == 3);
        CHECK(r.trace.results[2] == queue::JobStatus::sent);

        const auto& started = r.rig.transport.started;
        REQUIRE(started.size() == 3);
        CHECK(row_of(started[2].request.body) == 2);
        CHECK(started[0].at == start);
        CHECK(started[2].at - start == 62500ms);
        // Asked again while it waited, never more than 5 s apart.
        std::vector<std::chrono::steady_clock::time_point> asked;
        for (const auto& call : r.reserver.calls) {
            if (std::find(call.rows.begin(), call.rows.end(), 2) != call.rows.end()) {
                asked.push_back(call.at);
            }
        }
        REQUIRE(asked.size() >= 2);
        for (std::size_t i = 1; i < asked.size(); ++i) {
            CHECK(asked[i] - asked[i - 1] <= 5s);
        }
        CHECK(asked.back() == started[2].at);
        REQUIRE_FALSE(r.trace.pauses.empty());
        CHECK(r.trace.pauses.front().pause_reason == "the account's daily cap is reached");
        CHECK(r.trace.pauses.front().paused_until == until);
        CHECK(r.trace.pauses.size() == 1);  // told once, not at each ask
    }

    TEST_CASE("every granted job's attempt line comes before its request") {
        ReserveRig r([](const queue::Job&) { return granted(); }, 4);
        ListSource source(30);
        auto result = r.run(source);
        CHECK(result.reason == queue::StopReason::completed);
        REQUIRE(r.rig.transport.started.size() == 30);
        for (int row = 1; row <= 30; ++row) {
            const auto attempt = r.trace.index("attempt " + std::to_string(row));
            const auto request = r.trace.index("request " + std::to_string(row));
            CHECK_MESSAGE(attempt >= 0, "row " << row);
            CHECK_MESSAGE(attempt < request, "row " << row);
        }
    }

    TEST_CASE("a reservation that fails stops the dispatch with ledger_error before anything leaves") {
        ReserveRig r([](const queue::Job&) -> util::Result<Admission> { return util::fail("ledger: disk I/O error"); });
        ListSource source(3);
        auto result = r.run(source);
        CHECK(result.reason == queue::StopReason::ledger_error);
        CHECK(result.message == "ledger: disk I/O error");
        CHECK(r.rig.transport.started.empty());
        CHECK(r.trace.index("attempt 1") == -1);
    }

    TEST_CASE("a refusal that cannot be logged stops the dispatch with log_error") {
        ReserveRig r([](const queue::Job&) { return Admission{Admission::Never{.reason = "messaged meanwhile"}}; });
        r.trace.fail_refused = true;
        ListSource source(2);
        auto result = r.run(source);
        CHECK(result.reason == queue::StopReason::log_error);
        CHECK(result.message == "disk full");
    }

    TEST_CASE("answers the ledger cannot record stop the dispatch with ledger_error, not log_error") {
        ReserveRig r([](const queue::Job&) { return granted(); });
        r.trace.flush_failure = util::Error{"ledger /x/ledger.sqlite: database is locked", util::ErrorKind::ledger};
        ListSource source(3);
        auto result = r.run(source);
        CHECK(result.reason == queue::StopReason::ledger_error);
        CHECK(result.message == "ledger /x/ledger.sqlite: database is locked");
    }
    TEST_CASE("a log that cannot be written at a flush still stops the dispatch with log_error") {
        ReserveRig r([](const queue::Job&) { return granted(); });
        r.trace.flush_failure = util::Error{"disk full", util::ErrorKind::write};
        ListSource source(3);
        auto result = r.run(source);
        CHECK(result.reason == queue::StopReason::log_error);
        CHECK(result.message == "disk full");
    }
}
