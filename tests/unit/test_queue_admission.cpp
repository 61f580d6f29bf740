#include <doctest/doctest.h>

#include "fakes.hpp"
#include "queue/admission.hpp"
#include "queue/pace.hpp"

using namespace std::chrono_literals;
using queue::Admission;

namespace {

queue::Instant instant_of(const fakes::FakeClock& clock) {
    return {clock.steady_now(), clock.wall_now()};
}

}  // namespace

TEST_SUITE("queue::later_until") {
    TEST_CASE("asks again when the wait ends, or after `poll` when that comes first") {
        fakes::FakeClock clock;
        const auto at = instant_of(clock);
        const Admission::Later soon = queue::later_until(at, at.wall + 3s, 5s);
        CHECK(soon.retry_at == at.steady + 3s);
        CHECK(soon.until == at.wall + 3s);
        CHECK(queue::later_until(at, at.wall + 1h, 5s).retry_at == at.steady + 5s);
        const Admission::Later unknown = queue::later_until(at, std::nullopt, 1s);
        CHECK(unknown.retry_at == at.steady + 1s);
        CHECK_FALSE(unknown.until.has_value());
    }
}

TEST_SUITE("queue::admissions_of") {
    TEST_CASE("the first `granted` start now by the use-by time, the rest wait without a reason") {
        fakes::FakeClock clock;
        const auto now = clock.steady_now();
        queue::PaceAnswer answer{.granted = 2, .retry_at = now + 100ms, .reason = "r", .use_by = now + 5ms};
        std::vector<Admission> out;
        queue::admissions_of(answer, 3, out);
        REQUIRE(out.size() == 3);
        CHECK(out[0].is_now());
        REQUIRE(out[1].now());
        CHECK(out[1].now()->use_by == now + 5ms);
        REQUIRE(out[2].later());
        CHECK(out[2].later()->retry_at == now + 100ms);
        CHECK(out[2].later()->reason.empty());
    }
    TEST_CASE("none granted: every job waits with the pace's reason, its end and whether it is news") {
        fakes::FakeClock clock;
        queue::PaceAnswer answer{.retry_at = clock.steady_now() + 1s,
                                 .reason = "rate store unreachable: x",
                                 .paused_until = clock.wall_now() + 1s,
                                 .notice = true};
        std::vector<Admission> out;
        queue::admissions_of(answer, 2, out);
        REQUIRE(out.size() == 2);
        const Admission::Later* wait = out[1].later();
        REQUIRE(wait);
        CHECK(wait->reason == "rate store unreachable: x");
        CHECK(wait->until == clock.wall_now() + 1s);
        CHECK(wait->notice);
    }
    TEST_CASE("more granted than asked counts as what was asked") {
        std::vector<Admission> out;
        queue::admissions_of(queue::PaceAnswer{.granted = 5}, 1, out);
        REQUIRE(out.size() == 1);
        CHECK(out[0].is_now());
    }
}
