#include <doctest/doctest.h>

#include <fstream>

#include "fakes.hpp"
#include "results/records.hpp"
#include "results/replay.hpp"
#include "runner/row_tally.hpp"

using results::Cause;
using results::Status;

namespace {

const std::string k_header =
    R"({"event":"campaign","name":"spring","campaign_file":"c.yaml","campaign_sha256":"aa",)"
    R"("recipients_file":"r.csv","recipients_sha256":"bb","started_at":"2026-11-21T09:00:00.000Z",)"
    R"("version":"0.1.0","mode":"send"})"
    "\n";

// A log being written and, beside it, a tally fed the same events, as a run feeds both.
struct Run {
    fakes::TempDir dir;
    std::string path = dir.file("log.jsonl");
    std::ofstream out{path, std::ios::binary};
    results::LogState before;
    std::optional<runner::RowTally> tally;

    void attempt_line(std::int64_t row) {
        results::AttemptRecord a;
        a.row = row;
        a.wa_id = "91000000000" + std::to_string(row);
        out << results::to_line(a);
    }
    void result_line(std::int64_t row, Status status, Cause cause = Cause::none) {
        results::ResultRecord r;
        r.row = row;
        r.wa_id = "91000000000" + std::to_string(row);
        r.user_name = "A";
        r.status = status;
        r.cause = cause;
        out << results::to_line(r);
    }
    // Ends the earlier runs: replays what is written so far and starts the tally from it.
    void start_tally() {
        out.flush();
        before = results::replay(path).value();
        tally.emplace(before.counts, before.causes);
    }
    void attempt(std::int64_t row) {
        attempt_line(row);
        tally->attempt(row, *before.row(row));
    }
    void result(std::int64_t row, Status status, runner::Retry retry, Cause cause = Cause::none) {
        result_line(row, status, cause);
        tally->result(row, status, cause, retry);
    }
    void unsent(std::int64_t row) {
        results::UnsentRecord u;
        u.row = row;
        u.wa_id = "91000000000" + std::to_string(row);
        out << results::to_line(u);
        tally->unsent(row);
    }
    void record(std::int64_t row, Status status, Cause cause = Cause::none) {
        result_line(row, status, cause);
        tally->record(row, *before.row(row), status, cause);
    }
    results::StatusCounts replayed() {
        out.flush();
        return results::replay(path)->counts;
    }
    results::CauseCounts replayed_causes() {
        out.flush();
        return results::replay(path)->causes;
    }
};

}  // namespace

TEST_SUITE("runner::RowTally") {
    TEST_CASE("a new log: the tally equals what a replay of the log counts") {
        Run run;
        run.out << k_header;
        run.start_tally();
        run.record(1, Status::invalid);
        run.attempt(2);
        run.result(2, Status::failed, runner::Retry::follows);
        run.attempt(2);
        run.result(2, Status::sent, runner::Retry::none);
        run.attempt(3);  // still in flight when the run stops
        run.record(4, Status::skipped);
        auto expected = run.replayed();
        CHECK(run.tally->counts() == expected);
        CHECK(expected[Status::sent] == 1);
        CHECK(expected[Status::unknown] == 1);
        CHECK(expected.total() == 4);
    }

    TEST_CASE("a continued log: rows change status from what the earlier run left") {
        Run run;
        run.out << k_header;
        run.attempt_line(1);
        run.result_line(1, Status::sent);
        run.attempt_line(2);
        run.result_line(2, Status::failed);
        run.attempt_line(3);  // died in flight: unknown
        run.attempt_line(5);
        run.result_line(5, Status::unknown);
        run.start_tally();
        run.attempt(2);
        run.result(2, Status::sent, runner::Retry::none);
        run.attempt(3);
        run.result(3, Status::unknown, runner::Retry::none);
        run.record(4, Status::invalid);
        run.attempt(5);
        run.result(5, Status::failed, runner::Retry::none);
        auto expected = run.replayed();
        CHECK(run.tally->counts() == expected);
        CHECK(expected[Status::sent] == 2);
        CHECK(expected[Status::failed] == 1);
        CHECK(expected[Status::unknown] == 1);
        CHECK(expected[Status::invalid] == 1);
    }

    TEST_CASE("an unsent request: the row counts as before its attempt, as a replay counts it") {
        Run run;
        run.out << k_header;
        run.attempt_line(2);
        run.result_line(2, Status::failed, Cause::transient);
        run.attempt_line(3);  // died in flight: unknown
        run.start_tally();
        run.attempt(1);
        run.unsent(1);  // was pending: counted nowhere
        run.attempt(2);
        run.result(2, Status::failed, runner::Retry::follows, Cause::transient);
        run.attempt(2);
        run.unsent(2);
        run.attempt(3);
        run.unsent(3);
        auto expected = run.replayed();
        CHECK(run.tally->counts() == expected);
        CHECK(run.tally->causes() == run.replayed_causes());
        CHECK(expected[Status::failed] == 1);
        CHECK(expected[Status::unknown] == 1);
        CHECK(expected.total() == 2);
    }

    TEST_CASE("failed and skipped rows are counted by cause, as a replay counts them") {
        Run run;
        run.out << k_header;
        run.attempt_line(1);
        run.result_line(1, Status::failed, Cause::pair_rate);
        run.attempt_line(2);
        run.result_line(2, Status::failed, Cause::marketing_limit);
        run.attempt_line(3);
        run.result_line(3, Status::failed, Cause::outside_window);
        run.start_tally();
        CHECK(run.before.causes[Cause::pair_rate] == 1);
        run.attempt(1);
        run.result(1, Status::failed, runner::Retry::follows, Cause::pair_rate);
        run.attempt(1);
        run.result(1, Status::sent, runner::Retry::none);
        run.attempt(3);
        run.result(3, Status::failed, runner::Retry::none, Cause::opted_out);
        run.record(4, Status::skipped, Cause::duplicate);
        run.attempt(5);  // in flight: counted under no cause
        const auto expected = run.replayed_causes();
        CHECK(run.tally->causes() == expected);
        CHECK(expected[Cause::pair_rate] == 0);
        CHECK(expected[Cause::marketing_limit] == 1);
        CHECK(expected[Cause::outside_window] == 0);
        CHECK(expected[Cause::opted_out] == 1);
        CHECK(expected[Cause::duplicate] == 1);
        CHECK(run.tally->counts() == run.replayed());
    }
}
