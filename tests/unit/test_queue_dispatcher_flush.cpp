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
        if (fail_flush) {
            return util::fail("disk full");
        }
        flushed = recorded;
        return {};
    }
    int recorded = 0;
    int flushed = 0;
    bool fail_flush = false;
};

// The rig's fake transport, checking at every poll (when real requests would leave) that
// everything recorded so far was flushed.
class CheckingTransport final : public service::HttpTransport {
public:
    CheckingTransport(fakes::FakeTransport& inner, BatchingObserver& observer) : m_inner(inner), m_observer(observer) {}
    void start(std::uint64_t id, service::HttpRequest request) override { m_inner.start(id, std::move(request)); }
    std::vector<service::Completion> poll(std::chrono::microseconds max_wait, service::Wait wait) override {
        ++polls;
        unflushed_at_poll = std::max(unflushed_at_poll, m_observer.recorded - m_observer.flushed);
        return m_inner.poll(max_wait, wait);
    }
    std::size_t in_flight() const override { return m_inner.in_flight(); }
    int polls = 0;
    int unflushed_at_poll = 0;

private:
    fakes::FakeTransport& m_inner;
    BatchingObserver& m_observer;
};

}  // namespace

TEST_SUITE("queue::dispatch") {
    TEST_CASE("what was recorded is flushed before the transport is polled, and at the end") {
        Rig rig(ok);
        rig.settings.concurrency = 4;
        BatchingObserver observer;
        CheckingTransport transport(rig.transport, observer);
        ListSource source(30);
        queue::DispatchParts parts{&rig.service, &transport, &rig.clock, &rig.limiter, &rig.retry,
                                   nullptr,      nullptr,    &observer,  &rig.stops};
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
        queue::DispatchParts parts{&rig.service, &transport, &rig.clock, &rig.limiter, &rig.retry,
                                   nullptr,      nullptr,    &observer,  &rig.stops};
        auto result = queue::dispatch(source, rig.settings, parts);
        CHECK(result.reason == queue::StopReason::log_error);
        CHECK(result.message == "disk full");
        CHECK(transport.polls == 0);
    }
}
