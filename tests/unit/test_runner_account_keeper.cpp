#include <doctest/doctest.h>

#include <algorithm>
#include <filesystem>
#include <optional>

#include "account/rule.hpp"
#include "account/sqlite.hpp"
#include "account_ledger_fixture.hpp"
#include "campaign_file_fixture.hpp"
#include "cli/run_common.hpp"
#include "results/log_writer.hpp"
#include "results/records.hpp"
#include "runner/account_keeper.hpp"

using namespace account_fixture;
using campaign_file_test::Folder;
using campaign_file_test::k_minimal;
using queue::Admission;

namespace {

const std::string k_key = "spring@2025-03-01T00:00:00.000Z";

// The state of the send for `row` of campaign k_key in the ledger at `path`, as the ledger reads
// it (account::rule::state_of): "reserved", "sent" (written so, or reserved by a run whose mark
// passed it), or "" when there is none. `written`: the state column alone.
enum class Read { as_known, written };
std::string state_of_send(const std::string& path, std::int64_t row, Read read = Read::as_known) {
    account::sqlite::Database db(path, account::sqlite::Database::Mode::read_only);
    account::sqlite::Statement query(db,
                                     "SELECT s.state, s.at, coalesce(r.answered_before, 0) FROM sends s "
                                     "JOIN campaigns c ON c.id = s.campaign_id LEFT JOIN runs r ON r.id = s.run "
                                     "WHERE c.name = ?1 AND s.csv_row = ?2");
    query.bind(1, k_key).bind(2, row);
    if (!query.step()) {
        return "";
    }
    if (read == Read::written) {
        return query.text(0);
    }
    return account::rule::state_of(query.text(0), query.integer(1), query.integer(2)) == account::SendState::sent
               ? "sent"
               : "reserved";
}

// How many sends the ledger at `path` holds, all campaigns.
std::int64_t count_sends(const std::string& path) {
    account::sqlite::Database db(path, account::sqlite::Database::Mode::read_only);
    account::sqlite::Statement query(db, "SELECT COUNT(*) FROM sends");
    return query.step() ? query.integer(0) : -1;
}

// The log's writer as the runner's LogObserver uses it: lines batched, written on flush.
class LineObserver final : public queue::DispatchObserver {
public:
    explicit LineObserver(results::LogWriter& log) : m_log(log) {}
    util::Result<void> on_attempt(const queue::Job& job) override {
        return m_log.append_batched(results::to_line(results::AttemptRecord{job.row, job.wa_id, job.requests, {}}));
    }
    util::Result<void> on_result(const queue::Job& job, queue::JobStatus status, const service::Outcome&,
                                 std::chrono::milliseconds) override {
        ++results;
        results::ResultRecord record;
        record.row = job.row;
        record.wa_id = job.wa_id;
        record.status = status == queue::JobStatus::sent ? results::Status::sent : results::Status::failed;
        return m_log.append_batched(results::to_line(record));
    }
    void on_progress(const queue::Progress&) override {}
    util::Result<void> flush() override {
        ++flushes;
        return m_log.flush();
    }
    int results = 0;
    int flushes = 0;

private:
    results::LogWriter& m_log;
};

results::LogWriter open_log(const std::string& path) {
    auto log = results::LogWriter::open(path, {.durability = results::Durability::none});
    REQUIRE_MESSAGE(log.ok(), (log.ok() ? "" : log.error().message));
    return std::move(log.value());
}

campaign::Campaign load(const Folder& folder, const std::string& extra) {
    auto c = folder.load(k_minimal + "account: {name: acme, ledger: state/ledger.sqlite}\n" + extra);
    REQUIRE_MESSAGE(c.ok(), (c.ok() ? "" : c.error().message));
    return std::move(c.value());
}

// A campaign "spring" with its ledger and log, the keeper between the dispatcher and the log.
struct Rig {
    explicit Rig(const std::string& extra = "")
        : campaign(load(folder, extra)),
          book(open_book()),
          log(open_log(folder.str("results.jsonl"))),
          inner(log),
          keeper(*book, inner, log, k_key, clock) {
        clock.set_wall(k_t0);
    }

    std::unique_ptr<runner::AccountBook> open_book() {
        auto opened = cli::open_account_book(campaign, account::Access::read_write);
        REQUIRE_MESSAGE(opened.ok(), (opened.ok() ? "" : opened.error().message));
        REQUIRE(opened.value() != nullptr);
        return std::move(opened.value());
    }

    // Admits `jobs`, given as they stand once started (job.requests: their request's number),
    // as the dispatcher asks before the launch counts the request.
    std::vector<Admission> reserve(const std::vector<queue::Job>& jobs) {
        std::vector<queue::Job> before = jobs;
        std::vector<const queue::Job*> pointers;
        for (auto& job : before) {
            --job.requests;
            pointers.push_back(&job);
        }
        std::vector<Admission> answers;
        auto admitted = keeper.admit(pointers, {clock.steady_now(), clock.wall_now()}, answers);
        REQUIRE_MESSAGE(admitted.ok(), (admitted.ok() ? "" : admitted.error().message));
        REQUIRE(answers.size() == jobs.size());
        return answers;
    }

    void answer(const queue::Job& job, queue::JobStatus status, const service::Outcome& outcome) {
        REQUIRE(keeper.on_result(job, status, outcome, std::chrono::milliseconds(20)).ok());
    }

    void flush() {
        auto flushed = keeper.flush();
        REQUIRE_MESSAGE(flushed.ok(), (flushed.ok() ? "" : flushed.error().message));
    }

    std::string send_state(std::int64_t row, Read read = Read::as_known) const {
        return state_of_send(*campaign.account.ledger, row, read);
    }

    std::optional<account::Suppression> suppression_of(const std::string& wa_id) {
        auto found = book->ledger().suppressed({wa_id});
        REQUIRE(found.ok());
        if (found->empty()) {
            return std::nullopt;
        }
        return found->front();
    }

    Folder folder;
    fakes::FakeClock clock;
    campaign::Campaign campaign;
    std::unique_ptr<runner::AccountBook> book;
    results::LogWriter log;
    LineObserver inner;
    runner::AccountKeeper keeper;
};

queue::Job job(std::int64_t row, std::string wa_id) {
    queue::Job j;
    j.row = row;
    j.wa_id = std::move(wa_id);
    j.requests = 1;
    j.attempts = 1;
    return j;
}

service::Outcome delivered() {
    service::Outcome outcome;
    outcome.http_status = 200;
    outcome.message_id = "wamid.1";
    return outcome;
}

// A sent answer (HTTP 200 naming its message id) that also carried Meta's `code`, whose cause
// still acts (`code_cause`, as service::classify_response gives it).
service::Outcome delivered_with(long long code, service::Cause code_cause) {
    service::Outcome outcome = delivered();
    outcome.error_code = code;
    outcome.code_cause = code_cause;
    outcome.error = "HTTP 200";
    return outcome;
}

// A failed answer of the service: HTTP 400 with Meta's `code` when given.
service::Outcome answered(service::Cause cause, std::optional<long long> code = std::nullopt) {
    service::Outcome outcome;
    outcome.cause = cause;
    outcome.http_status = 400;
    outcome.error_code = code;
    outcome.error = "HTTP 400";
    return outcome;
}

// Sends of another campaign of the account, its rows from `first_row`, reserved at `at`.
void reserved_elsewhere(runner::AccountBook& book, const std::vector<std::string>& wa_ids, util::TimePoint at,
                        std::int64_t first_row = 1) {
    REQUIRE(book.ledger().reserve(request(sends("autumn@x", wa_ids, first_row), account::Limits{}, at)).ok());
}

results::ResultRecord result_of(std::int64_t row, const std::string& wa_id, results::Status status,
                                results::Cause cause, util::TimePoint at) {
    results::ResultRecord result;
    result.row = row;
    result.wa_id = wa_id;
    result.status = status;
    result.cause = cause;
    result.at = at;
    return result;
}

// A result log written line by line (not batched), as an earlier run left it.
class OldLog {
public:
    explicit OldLog(const std::string& path) : m_log(open_log(path)) {
        results::CampaignHeader header;
        header.name = "spring";
        header.started_at = k_t0;
        add(header);
    }
    void add(const results::Record& record) { REQUIRE(m_log.append(results::to_line(record)).ok()); }
    // A result of the service for `row`: sent (HTTP 200), or failed with HTTP 400 and Meta's `code`.
    void answer(std::int64_t row, const std::string& wa_id, results::Cause cause, std::optional<std::int64_t> code,
                util::TimePoint at) {
        add(results::AttemptRecord{row, wa_id, 1, at});
        const bool sent = cause == results::Cause::none;
        results::ResultRecord result =
            result_of(row, wa_id, sent ? results::Status::sent : results::Status::failed, cause, at);
        result.attempts = 1;
        result.http_status = sent ? 200 : 400;
        result.error_code = code;
        result.error = sent ? "" : "HTTP 400";
        result.latency_ms = 20;
        add(result);
    }
    std::int64_t size() const { return m_log.size(); }
    const std::string& path() const { return m_log.path(); }

private:
    results::LogWriter m_log;
};

std::int64_t fold(runner::AccountBook& book, const OldLog& log, util::TimePoint now) {
    auto folded = runner::fold_log(book, log.path(), log.size(), k_key, now);
    REQUIRE_MESSAGE(folded.ok(), (folded.ok() ? "" : folded.error().message));
    return *folded;
}

}  // namespace

TEST_SUITE("runner::AccountKeeper") {
    TEST_CASE("reserve: granted, or refused (frequency_cap) when another campaign messaged the number") {
        Rig rig("rate:\n  per_recipient: {max: 1, per: 7d}\n");
        reserved_elsewhere(*rig.book, {"1"}, k_t0 - 1h);
        const auto answers = rig.reserve({job(1, "1"), job(2, "2")});
        REQUIRE(answers[0].never());
        CHECK(answers[0].never()->until == k_t0 - 1h + std::chrono::days(7));
        CHECK(answers[0].never()->reason.find("rate.per_recipient") != std::string::npos);
        CHECK(answers[1].is_now());
        // The grant counts at once for the account.
        CHECK(rig.send_state(2) == "reserved");
        CHECK(rig.send_state(1).empty());
    }

    TEST_CASE("reserve: a full rate.per_day answers later, until the oldest send ages out of 24 h") {
        Rig rig("rate: {per_day: 2}\n");
        reserved_elsewhere(*rig.book, {"1"}, k_t0 - 23h);
        reserved_elsewhere(*rig.book, {"2"}, k_t0 - 1h, 2);
        // "3" is a third number in 24 h; "2" was messaged today and costs nothing more.
        const auto answers = rig.reserve({job(1, "3"), job(2, "2")});
        REQUIRE(answers[0].later());
        CHECK(answers[0].later()->until == k_t0 + 1h);
        CHECK(answers[0].later()->reason.find("rate.per_day: 2") != std::string::npos);
        CHECK(answers[1].is_now());
        // Once "1"'s send is 24 h old, there is room.
        rig.clock.set_wall(k_t0 + 1h + 1s);
        CHECK(rig.reserve({job(1, "3")})[0].is_now());
    }

    TEST_CASE("reserve: a full rate.per_day is asked again every 5 s, or when room opens if sooner, told once") {
        Rig rig("rate: {per_day: 1}\n");
        reserved_elsewhere(*rig.book, {"1"}, k_t0 - 1h);
        const auto far = rig.reserve({job(1, "2")});
        REQUIRE(far[0].later());
        CHECK(far[0].later()->retry_at == rig.clock.steady_now() + 5s);
        CHECK(far[0].later()->notice);
        rig.clock.set_wall(k_t0 + 23h - 3s);
        const auto near = rig.reserve({job(1, "2")});
        REQUIRE(near[0].later());
        CHECK(near[0].later()->until == k_t0 + 23h);
        CHECK(near[0].later()->retry_at == rig.clock.steady_now() + 3s);
    }

    TEST_CASE("a delivered answer confirms the reservation, in the ledger once flushed") {
        Rig rig;
        const auto j = job(1, "1");
        REQUIRE(rig.reserve({j})[0].is_now());
        rig.answer(j, queue::JobStatus::sent, delivered());
        CHECK(rig.inner.results == 1);
        CHECK(rig.send_state(1) == "reserved");
        rig.flush();
        CHECK(rig.send_state(1) == "sent");
    }

    TEST_CASE("answers are recorded every 250 ms or 1024 answers, not every turn; record_pending takes the rest") {
        Rig rig;
        const auto a = job(1, "1");
        const auto b = job(2, "2");
        const auto c = job(3, "3");
        // Reserved a millisecond apart: a run's mark passes the reservations of one time together.
        for (const auto& j : {a, b, c}) {
            REQUIRE(rig.reserve({j})[0].is_now());
            rig.clock.advance(1ms);
        }
        rig.answer(a, queue::JobStatus::sent, delivered());
        rig.flush();  // the first answers of a run are recorded at once
        CHECK(rig.send_state(1) == "sent");
        rig.answer(b, queue::JobStatus::sent, delivered());
        rig.flush();
        CHECK(rig.inner.flushes == 2);           // the log was written...
        CHECK(rig.send_state(2) == "reserved");  // ...the ledger waits
        rig.clock.advance(runner::AccountKeeper::k_record_every);
        rig.flush();
        CHECK(rig.send_state(2) == "sent");
        rig.answer(c, queue::JobStatus::sent, delivered());
        rig.flush();
        CHECK(rig.send_state(3) == "reserved");
        REQUIRE(rig.keeper.record_pending().ok());
        CHECK(rig.send_state(3) == "sent");
    }

    TEST_CASE("a send is written once: a delivered answer writes nothing, the run's mark makes it a send") {
        Rig rig;
        const auto a = job(1, "1");
        const auto b = job(2, "2");
        REQUIRE(rig.reserve({a, b}).size() == 2);
        rig.answer(a, queue::JobStatus::sent, delivered());
        rig.answer(b, queue::JobStatus::sent, delivered());
        REQUIRE(rig.keeper.record_pending().ok());
        CHECK(rig.send_state(1) == "sent");
        CHECK(rig.send_state(2) == "sent");
        // Neither row was written again: each is its reservation, passed by the mark.
        CHECK(rig.send_state(1, Read::written) == "reserved");
        CHECK(rig.send_state(2, Read::written) == "reserved");
        // A reservation made in the millisecond the mark was set is not passed by it.
        const auto c = job(3, "3");
        REQUIRE(rig.reserve({c})[0].is_now());
        REQUIRE(rig.keeper.record_pending().ok());
        CHECK(rig.send_state(3) == "reserved");
        // Delivered while c, reserved before it, is in flight: the mark cannot pass d yet, and the
        // log's fold mark says the ledger holds d's answer, so it is written sent.
        rig.clock.advance(1ms);
        const auto d = job(4, "4");
        REQUIRE(rig.reserve({d})[0].is_now());
        rig.answer(d, queue::JobStatus::sent, delivered());
        REQUIRE(rig.keeper.record_pending().ok());
        CHECK(rig.send_state(4, Read::written) == "sent");
        CHECK(rig.send_state(3) == "reserved");
    }

    TEST_CASE("a clock stepped back: a reservation is made no earlier than the run's last mark, so it is not passed") {
        Rig rig;
        const auto a = job(1, "1");
        REQUIRE(rig.reserve({a})[0].is_now());
        rig.answer(a, queue::JobStatus::sent, delivered());
        REQUIRE(rig.keeper.record_pending().ok());
        CHECK(rig.send_state(1) == "sent");
        // An hour back: b, in flight, would lie before the mark and read as sent.
        rig.clock.set_wall(rig.clock.wall_now() - 1h);
        const auto b = job(2, "2");
        REQUIRE(rig.reserve({b})[0].is_now());
        REQUIRE(rig.keeper.record_pending().ok());
        CHECK(rig.send_state(2) == "reserved");
        rig.answer(b, queue::JobStatus::sent, delivered());
        REQUIRE(rig.keeper.record_pending().ok());
        CHECK(rig.send_state(2) == "sent");
    }

    TEST_CASE("an answer in doubt leaves its reservation no run's: never a send by a mark, unknown to the next run") {
        Rig rig;
        const auto a = job(1, "1");
        REQUIRE(rig.reserve({a})[0].is_now());
        rig.clock.advance(1ms);
        service::Outcome timeout;
        timeout.ambiguous = true;
        rig.answer(a, queue::JobStatus::unknown, timeout);
        const auto b = job(2, "2");
        REQUIRE(rig.reserve({b})[0].is_now());
        rig.clock.advance(1ms);
        rig.answer(b, queue::JobStatus::sent, delivered());
        REQUIRE(rig.keeper.record_pending().ok());
        CHECK(rig.send_state(2) == "sent");
        CHECK(rig.send_state(1) == "reserved");  // the mark passed its time, not it
        const auto held = rig.book->ledger().campaign_sends(k_key, {"1", "2"});
        REQUIRE(held.ok());
        REQUIRE(held->size() == 2);
        for (const auto& send : *held) {
            CHECK(send.state == (send.row == 1 ? account::SendState::reserved : account::SendState::sent));
        }
    }

    TEST_CASE("a retry to come leaves its reservation no run's until the retry reserves the row again") {
        Rig rig;
        auto a = job(1, "1");
        REQUIRE(rig.reserve({a})[0].is_now());
        rig.clock.advance(1ms);
        service::Outcome busy;
        busy.http_status = 503;
        rig.answer(a, queue::JobStatus::retrying, busy);
        REQUIRE(rig.keeper.record_pending().ok());
        CHECK(rig.send_state(1) == "reserved");
        // The retry takes the row over for its run, and its delivered answer makes it a send.
        a.requests = 2;
        a.attempts = 2;
        REQUIRE(rig.reserve({a})[0].is_now());
        rig.clock.advance(1ms);
        rig.answer(a, queue::JobStatus::sent, delivered());
        REQUIRE(rig.keeper.record_pending().ok());
        CHECK(rig.send_state(1) == "sent");
    }

    TEST_CASE("a killed run's reservations in flight stay reserved: the next run's mark is its own") {
        Rig rig;
        const auto a = job(1, "1");
        const auto b = job(2, "2");
        REQUIRE(rig.reserve({a})[0].is_now());
        rig.clock.advance(1ms);
        REQUIRE(rig.reserve({b})[0].is_now());
        rig.clock.advance(1ms);
        rig.answer(a, queue::JobStatus::sent, delivered());
        REQUIRE(rig.keeper.record_pending().ok());
        CHECK(rig.send_state(1) == "sent");
        CHECK(rig.send_state(2) == "reserved");
        // Killed with b in flight. Another run of the campaign (here over another log) sends row
        // 3 and records marks past b's time: b stays reserved, as the kill left it.
        auto other_book = rig.open_book();
        results::LogWriter other_log = open_log(rig.folder.str("other.jsonl"));
        LineObserver other_inner(other_log);
        runner::AccountKeeper other(*other_book, other_inner, other_log, k_key, rig.clock);
        queue::Job c = job(3, "3");
        --c.requests;
        std::vector<const queue::Job*> pointers{&c};
        std::vector<Admission> answers;
        REQUIRE(other.admit(pointers, {rig.clock.steady_now(), rig.clock.wall_now()}, answers).ok());
        REQUIRE(answers.at(0).is_now());
        ++c.requests;
        rig.clock.advance(1ms);
        REQUIRE(other.on_result(c, queue::JobStatus::sent, delivered(), 20ms).ok());
        REQUIRE(other.record_pending().ok());
        CHECK(rig.send_state(3) == "sent");
        CHECK(rig.send_state(2) == "reserved");
    }

    TEST_CASE("1024 answers are recorded without waiting for the interval") {
        Rig rig;
        std::vector<queue::Job> jobs;
        for (int i = 1; i <= 1025; ++i) {
            jobs.push_back(job(i, std::to_string(1000 + i)));
        }
        REQUIRE(rig.reserve(jobs).size() == jobs.size());
        rig.answer(jobs[0], queue::JobStatus::sent, delivered());
        rig.flush();
        for (std::size_t i = 1; i < jobs.size(); ++i) {
            rig.answer(jobs[i], queue::JobStatus::sent, delivered());
        }
        rig.flush();
        CHECK(rig.send_state(1025) == "sent");
    }

    TEST_CASE("a failure the service answered releases the reservation: the slot can be reserved again") {
        Rig rig("rate: {per_day: 1}\n");
        const auto first = job(1, "1");
        const auto second = job(2, "2");
        REQUIRE(rig.reserve({first})[0].is_now());
        REQUIRE(rig.reserve({second})[0].later());
        rig.answer(first, queue::JobStatus::failed, answered(service::Cause::rejected));
        rig.flush();
        CHECK(rig.send_state(1).empty());
        CHECK(rig.reserve({second})[0].is_now());
    }

    TEST_CASE("a retry reserved before its failed request's answer was recorded keeps its reservation") {
        // The failure of request 1 waits in the batch while request 2 is reserved; without each
        // request its own reservation, recording the failure released request 2's, in flight.
        Rig rig("rate: {per_day: 1}\n");
        auto first = job(1, "1");
        REQUIRE(rig.reserve({first})[0].is_now());
        rig.answer(first, queue::JobStatus::failed, answered(service::Cause::rejected));
        auto retry = first;
        retry.requests = 2;
        REQUIRE(rig.reserve({retry})[0].is_now());
        rig.flush();
        CHECK(rig.send_state(1) == "reserved");
        CHECK(rig.reserve({job(2, "2")})[0].later());  // the day's one number is still taken
        rig.answer(retry, queue::JobStatus::failed, answered(service::Cause::rejected));
        rig.clock.advance(runner::AccountKeeper::k_record_every);
        rig.flush();
        CHECK(rig.send_state(1).empty());
    }

    TEST_CASE("a reservation withdrawn and asked for again is taken back, and no longer given back") {
        // Before, the withdrawal waited in the batch and was recorded after the job took its
        // reservation again: the row was released while its request was in flight.
        Rig rig;
        auto waiting = job(1, "1");
        waiting.requests = 0;  // as the dispatcher holds it before its request
        const queue::Job* const one[] = {&waiting};
        REQUIRE(rig.reserve({job(1, "1")})[0].is_now());
        rig.keeper.withdraw(one);  // it waited past its use-by time at the pace
        rig.clock.advance(std::chrono::seconds(3));
        REQUIRE(rig.reserve({job(1, "1")})[0].is_now());
        REQUIRE(rig.keeper.record_pending().ok());
        CHECK(rig.send_state(1) == "reserved");
        // Withdrawn and not asked for again: given back with the next record.
        rig.keeper.withdraw(one);
        REQUIRE(rig.keeper.record_pending().ok());
        CHECK(rig.send_state(1).empty());
    }

    TEST_CASE("another run of the campaign finds its row held: unknown while reserved, sent once confirmed") {
        // Two copies of one log sent from at once: each run asks for the same row's same request.
        Rig rig;
        auto other_book = rig.open_book();
        results::LogWriter other_log = open_log(rig.folder.str("copy.jsonl"));
        LineObserver other_inner(other_log);
        runner::AccountKeeper other(*other_book, other_inner, other_log, k_key, rig.clock);
        const auto j = job(1, "1");
        REQUIRE(rig.reserve({j})[0].is_now());
        auto before = j;
        before.requests = 0;
        const queue::Job* const one[] = {&before};
        std::vector<Admission> answers;
        REQUIRE(other.admit(one, {rig.clock.steady_now(), rig.clock.wall_now()}, answers).ok());
        REQUIRE(answers.size() == 1);
        REQUIRE(answers[0].never() != nullptr);
        CHECK(answers[0].never()->refusal == Admission::Refusal::ledger_reserved);
        CHECK(answers[0].never()->attempt == 1);
        CHECK(answers[0].never()->reason.find("--resend-unknown") != std::string::npos);
        rig.answer(j, queue::JobStatus::sent, delivered());
        rig.flush();
        REQUIRE(other.admit(one, {rig.clock.steady_now(), rig.clock.wall_now()}, answers).ok());
        REQUIRE(answers[0].never() != nullptr);
        CHECK(answers[0].never()->refusal == Admission::Refusal::ledger_sent);
        // Refused, the other run gives nothing back: the row stays the first run's.
        REQUIRE(other.record_pending().ok());
        CHECK(rig.send_state(1) == "sent");
    }

    TEST_CASE("a reservation is to be used within k_reservation_use_by") {
        Rig rig;
        const auto answers = rig.reserve({job(1, "1")});
        REQUIRE(answers[0].now() != nullptr);
        CHECK(answers[0].now()->use_by == rig.clock.steady_now() + runner::AccountKeeper::k_reservation_use_by);
    }

    TEST_CASE("a failure without an answer (a timeout) keeps the reservation counting") {
        Rig rig("rate: {per_day: 1}\n");
        const auto first = job(1, "1");
        REQUIRE(rig.reserve({first})[0].is_now());
        service::Outcome timeout;
        timeout.cause = service::Cause::transient;
        timeout.ambiguous = true;
        timeout.error = "timed out";
        rig.answer(first, queue::JobStatus::failed, timeout);
        rig.flush();
        CHECK(rig.send_state(1) == "reserved");
        CHECK(rig.reserve({job(2, "2")})[0].later());
    }

    TEST_CASE("131050 puts the number on the suppression list: opted_out, source campaign:NAME") {
        Rig rig;
        rig.answer(job(1, "1"), queue::JobStatus::failed, answered(service::Cause::opted_out, 131050));
        rig.flush();
        const auto s = rig.suppression_of("1");
        REQUIRE(s.has_value());
        CHECK(s->reason == "opted_out");
        CHECK(s->source == "campaign:spring");
        CHECK(s->since == k_t0);
    }

    TEST_CASE("an opt-out is recorded in the turn that logged it, not with the next batch") {
        Rig rig;
        const auto a = job(1, "1");
        const auto b = job(2, "2");
        REQUIRE(rig.reserve({a, b}).size() == 2);
        rig.answer(a, queue::JobStatus::sent, delivered());
        rig.flush();  // the first answers of a run are recorded at once; the next wait 250 ms...
        rig.answer(b, queue::JobStatus::failed, answered(service::Cause::opted_out, 131050));
        rig.flush();  // ...but not an opt-out: other runners check the list when they reserve
        CHECK(rig.suppression_of("2").has_value());
    }
    TEST_CASE("reserve refuses a number suppressed or held since its row was screened, saying why") {
        Rig rig;
        REQUIRE(rig.book->ledger().suppress({account::Suppression{"1", "opted_out", k_t0, "campaign:other"}}).ok());
        auto held = account::ResultBatch{};
        held.marketing_limited = {account::Answer{"2", k_t0 - 1h}};
        held.now = k_t0;
        REQUIRE(rig.book->ledger().record(held).ok());
        const auto answers = rig.reserve({job(1, "1"), job(2, "2"), job(3, "3")});
        REQUIRE(answers[0].never());
        CHECK(answers[0].never()->refusal == Admission::Refusal::suppressed);
        CHECK(answers[0].never()->reason.find("opted_out") != std::string::npos);
        CHECK(answers[0].never()->reason.find("campaign:other") != std::string::npos);
        REQUIRE(answers[1].never());
        CHECK(answers[1].never()->refusal == Admission::Refusal::marketing_limit);
        CHECK(answers[1].never()->until == k_t0 + 23h);
        CHECK(answers[2].is_now());
        CHECK(rig.send_state(1).empty());
        CHECK(rig.send_state(2).empty());
    }

    TEST_CASE("reserve of a template that is not marketing passes a 131049 hold; the campaign's other checks stand") {
        Rig rig;
        rig.campaign.message.type = campaign::MessageType::template_message;
        rig.campaign.message.templated.category = "UTILITY";
        REQUIRE(rig.book->ledger().suppress({account::Suppression{"1", "opted_out", k_t0, "campaign:other"}}).ok());
        auto held = account::ResultBatch{};
        held.marketing_limited = {account::Answer{"2", k_t0 - 1h}};
        held.now = k_t0;
        REQUIRE(rig.book->ledger().record(held).ok());
        const auto answers = rig.reserve({job(1, "1"), job(2, "2")});
        REQUIRE(answers[0].never());
        CHECK(answers[0].never()->refusal == Admission::Refusal::suppressed);
        CHECK(answers[1].is_now());
        CHECK(rig.send_state(2) == "reserved");
    }

    TEST_CASE("131026 suppresses the number (undeliverable) at the second answer, with undeliverable_after 2") {
        Rig rig;
        rig.answer(job(1, "1"), queue::JobStatus::failed, answered(service::Cause::undeliverable, 131026));
        rig.flush();
        CHECK_FALSE(rig.suppression_of("1").has_value());
        rig.clock.advance(1h);
        rig.answer(job(1, "1"), queue::JobStatus::failed, answered(service::Cause::undeliverable, 131026));
        rig.flush();
        const auto s = rig.suppression_of("1");
        REQUIRE(s.has_value());
        CHECK(s->reason == "undeliverable");
        CHECK(s->source == "campaign:spring");
        CHECK(s->since == k_t0 + 1h);
    }

    TEST_CASE("131049 holds the number for 24 h from the answer") {
        Rig rig;
        rig.answer(job(1, "1"), queue::JobStatus::failed, answered(service::Cause::marketing_limit, 131049));
        rig.flush();
        auto holds = rig.book->ledger().held({"1", "2"}, k_t0 + 1h);
        REQUIRE(holds.ok());
        REQUIRE(holds->size() == 1);
        CHECK(holds->at(0).wa_id == "1");
        CHECK(holds->at(0).until == k_t0 + 24h);
        CHECK_FALSE(rig.suppression_of("1").has_value());
    }

    TEST_CASE("131049 to a template that is not marketing (an ordinary refusal) holds nothing") {
        Rig rig;
        rig.answer(job(1, "1"), queue::JobStatus::failed, answered(service::Cause::rejected, 131049));
        rig.flush();
        auto holds = rig.book->ledger().held({"1"}, k_t0 + 1h);
        REQUIRE(holds.ok());
        CHECK(holds->empty());
    }

    TEST_CASE("add_answer: a sent answer is delivered, and its 131050, 131026 or 131049 still marks the number") {
        account::ResultBatch batch;
        batch.source = "campaign:spring";
        const account::Send send{"1", k_key, 1, std::nullopt};
        runner::add_answer(batch, send, runner::AnswerFacts{true, false, 131050, k_t0, false});
        runner::add_answer(batch, send, runner::AnswerFacts{true, false, 131026, k_t0, false});
        runner::add_answer(batch, send, runner::AnswerFacts{true, false, 131049, k_t0, true});
        runner::add_answer(batch, send, runner::AnswerFacts{true, false, 131049, k_t0, false});  // no hold applies
        CHECK(batch.delivered.size() == 4);
        CHECK(batch.not_delivered.empty());
        REQUIRE(batch.suppress.size() == 1);
        CHECK(batch.suppress[0].wa_id == "1");
        CHECK(batch.suppress[0].reason == "opted_out");
        CHECK(batch.suppress[0].source == "campaign:spring");
        REQUIRE(batch.undeliverable.size() == 1);
        CHECK(batch.undeliverable[0].wa_id == "1");
        REQUIRE(batch.marketing_limited.size() == 1);
        CHECK(batch.marketing_limited[0].at == k_t0);
    }

    TEST_CASE("a sent answer with 131050, 131026 or 131049 is sent in the ledger and has its code's effect") {
        Rig rig("suppression: {undeliverable_after: 1}\n");
        const std::vector<queue::Job> jobs = {job(1, "1"), job(2, "2"), job(3, "3"), job(4, "4")};
        REQUIRE(rig.reserve(jobs).size() == 4);
        rig.answer(jobs[0], queue::JobStatus::sent, delivered_with(131050, service::Cause::opted_out));
        rig.answer(jobs[1], queue::JobStatus::sent, delivered_with(131026, service::Cause::undeliverable));
        rig.answer(jobs[2], queue::JobStatus::sent, delivered_with(131049, service::Cause::marketing_limit));
        // A template that is not marketing: 131049 is no hold (classify gives no code_cause).
        rig.answer(jobs[3], queue::JobStatus::sent, delivered_with(131049, service::Cause::none));
        rig.flush();
        for (std::int64_t row = 1; row <= 4; ++row) {
            CHECK(rig.send_state(row) == "sent");
        }
        const auto opted_out = rig.suppression_of("1");
        REQUIRE(opted_out.has_value());
        CHECK(opted_out->reason == "opted_out");
        const auto undeliverable = rig.suppression_of("2");
        REQUIRE(undeliverable.has_value());
        CHECK(undeliverable->reason == "undeliverable");
        auto holds = rig.book->ledger().held({"3", "4"}, k_t0 + 1h);
        REQUIRE(holds.ok());
        REQUIRE(holds->size() == 1);
        CHECK(holds->at(0).wa_id == "3");
        CHECK(holds->at(0).until == k_t0 + 24h);
    }

    TEST_CASE("flush writes the log first, then the answers with the log's size as the fold mark") {
        Rig rig;
        const auto j = job(1, "1");
        REQUIRE(rig.keeper.on_attempt(j).ok());
        rig.answer(j, queue::JobStatus::sent, delivered());
        CHECK(std::filesystem::file_size(rig.log.path()) == 0);  // batched: nothing written yet
        rig.flush();
        CHECK(rig.inner.flushes == 1);
        const auto size = std::filesystem::file_size(rig.log.path());
        CHECK(size > 0);
        auto mark = rig.book->ledger().folded(k_key);
        REQUIRE(mark.ok());
        CHECK(*mark == size);
        CHECK(*mark == static_cast<std::uint64_t>(rig.log.size()));
    }
}

TEST_SUITE("runner::fold_log") {
    TEST_CASE("folds the log's answers into the ledger and moves the mark to the log's size") {
        Rig rig("rate:\n  per_recipient: {max: 1, per: 7d}\n");
        OldLog log(rig.folder.str("old.jsonl"));
        using results::Cause;
        log.answer(1, "1", Cause::none, std::nullopt, k_t0);
        log.answer(2, "2", Cause::opted_out, 131050, k_t0 + 1s);
        log.answer(3, "3", Cause::undeliverable, 131026, k_t0 + 2s);
        log.answer(4, "4", Cause::marketing_limit, 131049, k_t0 + 3s);
        // Held back by the ledger itself: no answer of the service, nothing to fold.
        log.add(result_of(5, "5", results::Status::skipped, Cause::suppressed, k_t0 + 4s));

        CHECK(fold(*rig.book, log, k_t0 + 1h) == 4);
        // Sent at its own time: "1" is capped for another campaign until 7 days after k_t0.
        auto other = rig.book->ledger().reserve(request(
            sends("autumn@x", {"1"}), per_recipient(1, std::chrono::days(7)), k_t0 + 1h, account::Apply::preview));
        REQUIRE(other.ok());
        CHECK(other->at(0).refusal == account::Refusal::frequency_cap);
        CHECK(other->at(0).room_at == k_t0 + std::chrono::days(7));
        CHECK(rig.send_state(1) == "sent");
        const auto opted_out = rig.suppression_of("2");
        REQUIRE(opted_out.has_value());
        CHECK(opted_out->reason == "opted_out");
        CHECK(opted_out->source == "campaign:spring");
        CHECK(opted_out->since == k_t0 + 1s);
        CHECK_FALSE(rig.suppression_of("3").has_value());  // one 131026 of the two it takes
        auto holds = rig.book->ledger().held({"4"}, k_t0 + 1h);
        REQUIRE(holds.ok());
        REQUIRE(holds->size() == 1);
        CHECK(holds->at(0).until == k_t0 + 3s + 24h);
        CHECK_FALSE(rig.suppression_of("5").has_value());
        auto mark = rig.book->ledger().folded(k_key);
        REQUIRE(mark.ok());
        CHECK(*mark == static_cast<std::uint64_t>(log.size()));
    }

    TEST_CASE("a logged 131049 holds the number only when its cause is the marketing limit") {
        Rig rig;
        OldLog log(rig.folder.str("old.jsonl"));
        log.answer(1, "1", results::Cause::rejected, 131049, k_t0);  // a utility template's
        log.answer(2, "2", results::Cause::marketing_limit, 131049, k_t0);
        CHECK(fold(*rig.book, log, k_t0 + 1h) == 2);
        auto holds = rig.book->ledger().held({"1", "2"}, k_t0 + 1h);
        REQUIRE(holds.ok());
        REQUIRE(holds->size() == 1);
        CHECK(holds->at(0).wa_id == "2");
    }

    TEST_CASE("folding again counts nothing twice; lines added since are folded alone") {
        Rig rig;
        const std::string ledger = *rig.campaign.account.ledger;
        OldLog log(rig.folder.str("old.jsonl"));
        log.answer(1, "1", results::Cause::none, std::nullopt, k_t0);
        log.answer(2, "2", results::Cause::undeliverable, 131026, k_t0 + 1s);
        CHECK(fold(*rig.book, log, k_t0 + 1h) == 2);
        CHECK(count_sends(ledger) == 1);

        CHECK(fold(*rig.book, log, k_t0 + 2h) == 0);
        CHECK(count_sends(ledger) == 1);
        CHECK_FALSE(rig.suppression_of("2").has_value());

        log.answer(3, "3", results::Cause::none, std::nullopt, k_t0 + 2s);
        CHECK(fold(*rig.book, log, k_t0 + 3h) == 1);
        CHECK(count_sends(ledger) == 2);
        // Read from the start again, "2"'s 131026 would have counted twice and suppressed it.
        CHECK_FALSE(rig.suppression_of("2").has_value());
        auto mark = rig.book->ledger().folded(k_key);
        REQUIRE(mark.ok());
        CHECK(*mark == static_cast<std::uint64_t>(log.size()));
    }

    TEST_CASE("a mark in the middle of the log: only the lines after it are folded") {
        Rig rig("suppression: {undeliverable_after: 1}\n");
        OldLog log(rig.folder.str("old.jsonl"));
        log.answer(1, "1", results::Cause::undeliverable, 131026, k_t0);
        const auto middle = static_cast<std::uint64_t>(log.size());
        log.answer(2, "2", results::Cause::undeliverable, 131026, k_t0 + 1s);
        auto marked = batch_at(k_t0);
        marked.fold = account::FoldMark{k_key, middle};
        REQUIRE(rig.book->ledger().record(marked).ok());

        CHECK(fold(*rig.book, log, k_t0 + 1h) == 1);
        CHECK_FALSE(rig.suppression_of("1").has_value());
        CHECK(rig.suppression_of("2").has_value());
    }

    TEST_CASE("a logged sent answer with 131050, 131026 or 131049 has the same effect as the live one") {
        Rig rig("suppression: {undeliverable_after: 1}\n");
        OldLog log(rig.folder.str("old.jsonl"));
        using results::Cause;
        log.answer(1, "1", Cause::none, 131050, k_t0);
        log.answer(2, "2", Cause::none, 131026, k_t0);
        log.answer(3, "3", Cause::none, 131049, k_t0);  // a text message: held
        // Template messages: held when the category is MARKETING (any case) or not known.
        const auto templated = [&](std::int64_t row, const std::string& wa_id, std::optional<std::string> category) {
            auto result = result_of(row, wa_id, results::Status::sent, Cause::none, k_t0);
            result.http_status = 200;
            result.error_code = 131049;
            result.template_name = "promo";
            result.category = std::move(category);
            log.add(result);
        };
        templated(4, "4", "UTILITY");
        templated(5, "5", "marketing");
        templated(6, "6", std::nullopt);
        CHECK(fold(*rig.book, log, k_t0 + 1h) == 6);
        for (std::int64_t row = 1; row <= 6; ++row) {
            CHECK(rig.send_state(row) == "sent");
        }
        REQUIRE(rig.suppression_of("1").has_value());
        CHECK(rig.suppression_of("1")->reason == "opted_out");
        REQUIRE(rig.suppression_of("2").has_value());
        CHECK(rig.suppression_of("2")->reason == "undeliverable");
        auto holds = rig.book->ledger().held({"3", "4", "5", "6"}, k_t0 + 1h);
        REQUIRE(holds.ok());
        std::vector<std::string> held;
        for (const auto& h : *holds) {
            held.push_back(h.wa_id);
        }
        std::sort(held.begin(), held.end());
        CHECK(held == std::vector<std::string>{"3", "5", "6"});
    }

    TEST_CASE("a mark past the log's end (an older copy of the log) folds the whole log") {
        Rig rig("suppression: {undeliverable_after: 1}\n");
        OldLog log(rig.folder.str("old.jsonl"));
        log.answer(1, "1", results::Cause::undeliverable, 131026, k_t0);
        auto marked = batch_at(k_t0);
        marked.fold = account::FoldMark{k_key, static_cast<std::uint64_t>(log.size()) + 4096};
        REQUIRE(rig.book->ledger().record(marked).ok());

        CHECK(fold(*rig.book, log, k_t0 + 1h) == 1);
        CHECK(rig.suppression_of("1").has_value());
    }
}
