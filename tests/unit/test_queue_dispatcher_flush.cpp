#include <doctest/doctest.h>

#include "queue_dispatch_rig.hpp"

using namespace dispatch_test;

namespace {

// Counts what the dispatcher asks to be recorded and what it has flushed.
class BatchingObserver final : public queue::DispatchObserver {
public:
    util::Result<void> on_attempt(const queue::Job&) override {
        ++recorded;
        return {};
    }
    util::Result<void> on_result(const queue::Job&, queue::JobStatus, const service::Outcome&,
                                 std::chrono::milliseconds) override {
        ++recorded;
        return {};
    }
    void on_progress(const queue::Progress&) override {}
    util::Result<void> flush() override {
        if (fail_flush || (on_flush && on_flush())) {
            return util::fail("disk full");
        }
        flushed = recorded;
        return {};
    }
    int recorded = 0;
    int flushed = 0;
    bool fail_flush = false;
    std::function<bool()> on_flush;  // whether this flush fails
};

// The rig's fake transport, checking at every poll (when real requests would leave) that
// everything recorded so far was flushed.
class CheckingTransport final : public service::HttpTransport {
public:
    CheckingTransport(fakes::FakeTransport& inner, BatchingObserver& observer) : m_inner(inner), m_observer(observer) {}
    void start(std::uint64_t id, service::HttpRequest request) override {
        ++unpolled;
        m_inner.start(id, std::move(request));
    }
    std::vector<service::Completion> poll(std::chrono::microseconds max_wait, service::Wait wait) override {
        ++polls;
        unpolled = 0;
        unflushed_at_poll = std::max(unflushed_at_poll, m_observer.recorded - m_observer.flushed);
        return m_inner.poll(max_wait, wait);
    }
    std::size_t in_flight() const override { return m_inner.in_flight(); }
    int polls = 0;
    int unflushed_at_poll = 0;
    std::int64_t unpolled = 0;  // started since the last poll: not left yet

private:
    fakes::FakeTransport& m_inner;
    BatchingObserver& m_observer;
};

// The rig's parts, with `transport` and `observer` in place of its own.
queue::DispatchParts parts_for(Rig& rig, CheckingTransport& transport, BatchingObserver& observer) {
    return {.service = &rig.service,
            .transport = &transport,
            .clock = &rig.clock,
            .limiter = &rig.limiter,
            .retry = &rig.retry,
            .observer = &observer,
            .stop_requests = &rig.stops};
}

}  // namespace

TEST_SUITE("queue::dispatch") {
    TEST_CASE("what was recorded is flushed before the transport is polled, and at the end") {
        Rig rig(ok);
        rig.settings.concurrency = 4;
        BatchingObserver observer;
        CheckingTransport transport(rig.transport, observer);
        ListSource source(30);
        const queue::DispatchParts parts = parts_for(rig, transport, observer);
        auto result = queue::dispatch(source, rig.settings, parts);
        CHECK(result.reason == queue::StopReason::completed);
        CHECK(transport.polls > 0);
        CHECK(transport.unflushed_at_poll == 0);
        CHECK(observer.recorded == 60);  // an attempt and a result each
        CHECK(observer.flushed == observer.recorded);
    }
    TEST_CASE("a failed flush stops the dispatch before the requests of that turn are polled") {
        Rig rig(ok);
        rig.settings.concurrency = 4;
        BatchingObserver observer;
        observer.fail_flush = true;
        CheckingTransport transport(rig.transport, observer);
        ListSource source(30);
        const queue::DispatchParts parts = parts_for(rig, transport, observer);
        auto result = queue::dispatch(source, rig.settings, parts);
        CHECK(result.reason == queue::StopReason::log_error);
        CHECK(result.message == "disk full");
        CHECK(transport.polls == 0);
        // Those requests never left: the summary says so, not merely "unknown".
        CHECK(transport.unpolled > 0);
        CHECK(result.never_left == transport.unpolled);
        CHECK(result.progress.unknown == transport.unpolled);
    }
    TEST_CASE("a flush that fails later counts only the requests started since the last poll as never sent") {
        Rig rig(ok);
        rig.settings.concurrency = 4;
        BatchingObserver observer;
        CheckingTransport transport(rig.transport, observer);
        ListSource source(3000);
        const queue::DispatchParts parts = parts_for(rig, transport, observer);
        int flushes = 0;
        observer.on_flush = [&] { return ++flushes >= 200; };  // after answers came back
        auto result = queue::dispatch(source, rig.settings, parts);
        CHECK(result.reason == queue::StopReason::log_error);
        CHECK(transport.polls >= 1);
        CHECK(result.progress.sent > 0);
        CHECK(transport.unpolled > 0);
        CHECK(result.never_left == transport.unpolled);
        CHECK(result.never_left <= result.progress.unknown);
    }
}
