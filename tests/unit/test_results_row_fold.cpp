#include <doctest/doctest.h>

#include <string>

#include "results/row_fold.hpp"

using results::Cause;
using results::RowFold;
using results::RowState;
using results::Status;

TEST_CASE("RowFold: an attempt makes a row unknown and in flight until its result decides it") {
    RowFold row;
    CHECK(row.state.pending());
    row.attempt(1);
    CHECK_FALSE(row.state.pending());
    CHECK(row.state.in_flight());
    CHECK(row.state.status == Status::unknown);
    CHECK(row.unknown());
    row.result(Status::failed, Cause::transient, 1);
    CHECK_FALSE(row.state.in_flight());
    CHECK(row.state.has_result());
    CHECK(row.state.status == Status::failed);
    CHECK(row.state.cause == Cause::transient);
    CHECK_FALSE(row.unknown());
    row.attempt(2);
    row.result(Status::sent, Cause::none, 2);
    CHECK(row.state.ever_sent());
    CHECK(row.state.attempts == 2);
}

TEST_CASE("RowFold: an unsent undoes its attempt, to pending, to the last result, or still in flight") {
    SUBCASE("never answered: pending again") {
        RowFold row;
        row.attempt(1);
        row.unsent();
        CHECK(row.state.pending());
        CHECK_FALSE(row.unknown());
    }
    SUBCASE("answered before: its last result again") {
        RowFold row;
        row.attempt(1);
        row.result(Status::failed, Cause::rate_limited, 1);
        row.attempt(2);
        row.unsent();
        CHECK(row.state.status == Status::failed);
        CHECK(row.state.cause == Cause::rate_limited);
        CHECK_FALSE(row.state.in_flight());
    }
    SUBCASE("an earlier request still unanswered: still in flight, still unknown") {
        RowFold row;
        row.attempt(1);
        row.attempt(2);
        row.unsent();
        CHECK(row.state.in_flight());
        CHECK(row.unknown());
    }
}

TEST_CASE("RowFold: an unsent after its attempt's result (a hand-edited log) changes nothing") {
    RowFold row;
    row.attempt(1);
    row.result(Status::sent, Cause::none, 1);
    CHECK_FALSE(row.unsent());
    CHECK(row.state.status == Status::sent);
    CHECK(row.state.has_result());
    CHECK_FALSE(row.state.in_flight());
    RowFold failed;
    failed.attempt(1);
    failed.result(Status::failed, Cause::transient, 1);
    failed.attempt(2);
    CHECK(failed.unsent());
    CHECK_FALSE(failed.unsent());  // a second one for the same attempt: nothing left to undo
    CHECK(failed.state.status == Status::failed);
}

TEST_CASE("RowState::count: a pending row counts nowhere; a row in flight counts as unknown without a cause") {
    results::StatusCounts counts;
    results::CauseCounts causes;
    RowFold row;
    row.state.count(counts, causes);
    CHECK(counts.total() == 0);
    row.attempt(1);
    row.state.count(counts, causes);
    CHECK(counts[Status::unknown] == 1);
    row.state.count(counts, causes, -1);
    row.result(Status::skipped, Cause::suppressed, 0);
    row.state.count(counts, causes);
    CHECK(counts[Status::unknown] == 0);
    CHECK(counts[Status::skipped] == 1);
    CHECK(causes[Cause::suppressed] == 1);
}

TEST_CASE("ShownRowFold: what is shown follows the fold, and an unsent that undoes an attempt brings it back") {
    results::ShownRowFold<std::string> row;
    row.result(Status::failed, Cause::transient, 1, "failed 1");
    row.attempt(2, "in flight 2");
    CHECK(row.shown() == "in flight 2");
    CHECK(row.fold().state.in_flight());
    CHECK(row.unsent());
    CHECK(row.shown() == "failed 1");
    CHECK(row.fold().state.status == Status::failed);
    row.attempt(3, "in flight 3");
    row.result(Status::sent, Cause::none, 3, "sent 3");
    CHECK_FALSE(row.unsent());  // after its result: changes nothing
    CHECK(row.shown() == "sent 3");
}
