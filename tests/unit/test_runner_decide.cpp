#include <doctest/doctest.h>

#include "runner/decide.hpp"

using results::Cause;
using results::RowState;
using results::Status;
using runner::Decision;
using runner::ResendUnknown;
using runner::RetryRejected;

namespace {

RowState row(Status status, Cause cause = Cause::none, std::uint8_t extra_flags = 0) {
    RowState s;
    s.status = status;
    s.cause = cause;
    s.flags = static_cast<std::uint8_t>(RowState::k_has_result | extra_flags |
                                        (status == Status::sent ? RowState::k_ever_sent : 0));
    return s;
}

runner::RowFacts facts(RowState state, campaign::Verdict verdict = campaign::Verdict::ok, bool sent = false,
                       bool unknown = false) {
    return {state, verdict, sent, unknown};
}

Decision plain(const runner::RowFacts& f) {
    return runner::decide(f, RetryRejected::no, ResendUnknown::no);
}

}  // namespace

TEST_SUITE("runner::decide") {
    TEST_CASE("a row the log never saw is sent, or recorded invalid or duplicate") {
        CHECK(plain(facts({})) == Decision::send);
        CHECK(plain(facts({}, campaign::Verdict::invalid)) == Decision::record_invalid);
        CHECK(plain(facts({}, campaign::Verdict::duplicate)) == Decision::record_duplicate);
    }
    TEST_CASE("sent, invalid and skipped rows are never touched again") {
        CHECK(plain(facts(row(Status::sent))) == Decision::done);
        CHECK(plain(facts(row(Status::invalid, Cause::invalid))) == Decision::done);
        CHECK(plain(facts(row(Status::skipped, Cause::duplicate))) == Decision::done);
        CHECK(runner::decide(facts(row(Status::sent)), RetryRejected::yes, ResendUnknown::yes) == Decision::done);
    }
    TEST_CASE("a row once sent stays done even if a later record says otherwise") {
        auto s = row(Status::failed, Cause::transient, RowState::k_ever_sent);
        CHECK(runner::decide(facts(s), RetryRejected::yes, ResendUnknown::yes) == Decision::done);
    }
    TEST_CASE("retryable failures are sent again; rejected ones only when asked") {
        CHECK(plain(facts(row(Status::failed, Cause::transient))) == Decision::send);
        CHECK(plain(facts(row(Status::failed, Cause::rate_limited))) == Decision::send);
        CHECK(plain(facts(row(Status::failed, Cause::auth))) == Decision::send);
        CHECK(plain(facts(row(Status::failed, Cause::rejected))) == Decision::hold_rejected);
        CHECK(runner::decide(facts(row(Status::failed, Cause::rejected)), RetryRejected::yes, ResendUnknown::no) ==
              Decision::send);
    }
    TEST_CASE("unknown rows, and requests in flight at a crash, wait for --resend-unknown") {
        RowState in_flight;
        in_flight.flags = RowState::k_in_flight;
        in_flight.status = Status::unknown;
        CHECK(plain(facts(in_flight)) == Decision::hold_unknown);
        CHECK(plain(facts(row(Status::unknown, Cause::transient))) == Decision::hold_unknown);
        CHECK(runner::decide(facts(in_flight), RetryRejected::no, ResendUnknown::yes) == Decision::send);
    }
    TEST_CASE("a number already sent from another row is not sent again") {
        CHECK(plain(facts({}, campaign::Verdict::ok, true)) == Decision::record_already_sent);
        CHECK(runner::decide(facts({}, campaign::Verdict::ok, true), RetryRejected::yes, ResendUnknown::yes) ==
              Decision::record_already_sent);
    }
    TEST_CASE("a number of unknown outcome under an earlier CSV is held") {
        CHECK(plain(facts({}, campaign::Verdict::ok, false, true)) == Decision::hold_unknown);
        CHECK(runner::decide(facts({}, campaign::Verdict::ok, false, true), RetryRejected::no, ResendUnknown::yes) ==
              Decision::send);
    }
}
