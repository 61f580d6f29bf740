// What only the PostgreSQL ledger does: a server to reach, runners on other connections, a
// schema made on first open. Against the test cluster (tests/support/pg_cluster.hpp).
#include <doctest/doctest.h>

#include <fmt/format.h>
#include <libpq-fe.h>

#include <mutex>
#include <set>
#include <sstream>
#include <thread>

#include "account/pg_ledger.hpp"
#include "account/pg_schema.hpp"
#include "account/rule.hpp"
#include "account_ledger_fixture.hpp"
#include "util/postgresql_url.hpp"
#include "util/text.hpp"

namespace {

using namespace account_fixture;

// Runs `sql` on the database at `url`; returns the first column of every row of its answer, one
// line each (nothing for a command).
std::string lines_at(const std::string& url, const std::string& sql) {
    PGconn* conn = PQconnectdb(url.c_str());
    REQUIRE_MESSAGE(PQstatus(conn) == CONNECTION_OK, PQerrorMessage(conn));
    PGresult* result = PQexec(conn, sql.c_str());
    const ExecStatusType status = PQresultStatus(result);
    const bool ok = status == PGRES_TUPLES_OK || status == PGRES_COMMAND_OK;
    std::string lines;
    for (int i = 0; ok && i < PQntuples(result); ++i) {
        lines.append(PQgetvalue(result, i, 0)).append("\n");
    }
    std::string error = ok ? "" : PQresultErrorMessage(result);
    PQclear(result);
    PQfinish(conn);
    REQUIRE_MESSAGE(ok, error);
    return lines;
}

// Runs `sql` on the database at `url`; returns the first value of its answer ("" when none).
std::string sql_at(const std::string& url, const std::string& sql) {
    const std::string lines = lines_at(url, sql);
    return lines.substr(0, lines.find('\n'));
}

// Writes `count` sends of account acme's campaign spring to the ledger at `url`, row i to number
// 919800000000 + i at the time `at` (SQL over i, milliseconds), sent.
void add_sends(const std::string& url, int count, const std::string& at) {
    sql_at(url,
           "INSERT INTO wacamp.sends (account, campaign, csv_row, wa_id, at, state) SELECT 'acme', 'spring', i, "
           "(919800000000 + i)::text, " +
               at + ", 'sent' FROM generate_series(1, " + std::to_string(count) + ") i");
}

// What went wrong in other threads: counted, the first kept.
class Failures {
public:
    void operator()(const std::string& message) {
        std::lock_guard lock(m_mutex);
        if (m_count++ == 0) {
            m_first = message;
        }
    }
    int count() const { return m_count; }
    const std::string& first() const { return m_first; }

private:
    std::mutex m_mutex;
    int m_count = 0;
    std::string m_first;
};

// The functions of the schema: none since version 6.
const std::string k_functions =
    "SELECT count(*) FROM pg_catalog.pg_proc p JOIN pg_catalog.pg_namespace n ON n.oid = p.pronamespace "
    "WHERE n.nspname = 'wacamp'";

}  // namespace

TEST_SUITE("account::PgLedger") {
    TEST_CASE("runners on two connections reserving at once never together exceed per_day") {
        LedgerPlace place(Backend::postgresql);
        if (place.skipped()) {
            return;
        }
        Failures fail;
        std::vector<std::set<std::string>> granted_by(4);
        std::vector<std::thread> runners;
        for (int runner = 0; runner < 4; ++runner) {
            runners.emplace_back([&, runner] {
                auto opened = account::open_ledger(place.where(), account::OpenOptions{.account = "acme"});
                if (!opened) {
                    fail(opened.error().message);
                    return;
                }
                // Each runner its own campaign, 300 numbers in batches of 25, overlapping the others'.
                for (int first = 0; first < 300; first += 25) {
                    std::vector<account::Send> batch;
                    for (int i = first; i < first + 25; ++i) {
                        batch.push_back(account::Send{std::to_string(5000 + (runner * 71 + i) % 400),
                                                      "c" + std::to_string(runner), i, std::nullopt});
                    }
                    auto answers = (*opened)->reserve(request(batch, per_day(100), k_t0));
                    if (!answers) {
                        fail(answers.error().message);
                        return;
                    }
                    for (std::size_t i = 0; i < batch.size(); ++i) {
                        if ((*answers)[i].granted()) {
                            granted_by[static_cast<std::size_t>(runner)].insert(batch[i].wa_id);
                        }
                    }
                }
            });
        }
        for (auto& runner : runners) {
            runner.join();
        }
        CHECK_MESSAGE(fail.count() == 0, fail.first());
        std::set<std::string> numbers;
        for (const auto& granted_numbers : granted_by) {
            numbers.insert(granted_numbers.begin(), granted_numbers.end());
        }
        // 400 numbers were tried by the four together: the day's 100 are reached, never passed.
        CHECK(numbers.size() == 100);
        CHECK(sql_at(place.where(), "SELECT count(DISTINCT wa_id) FROM wacamp.sends") == "100");
    }
    TEST_CASE("runners opening a new database at once create the schema once") {
        LedgerPlace place(Backend::postgresql);
        if (place.skipped()) {
            return;
        }
        Failures fail;
        std::vector<std::thread> openers;
        for (int i = 0; i < 6; ++i) {
            openers.emplace_back([&] {
                auto opened = account::open_ledger(place.where(), account::OpenOptions{.account = "acme"});
                if (!opened) {
                    fail(opened.error().message);
                } else if (auto mark = (*opened)->folded("spring"); !mark) {
                    fail(mark.error().message);
                }
            });
        }
        for (auto& opener : openers) {
            opener.join();
        }
        CHECK_MESSAGE(fail.count() == 0, fail.first());
        CHECK(sql_at(place.where(), "SELECT count(*) FROM wacamp.meta") == "1");
    }
    TEST_CASE("read-only on an empty database: nothing is created") {
        LedgerPlace place(Backend::postgresql);
        if (place.skipped()) {
            return;
        }
        auto book = place.open(account::Access::read_only);
        auto found = book->suppressed({"1"});
        REQUIRE(found.ok());
        CHECK(found->empty());
        CHECK(sql_at(place.where(), "SELECT to_regnamespace('wacamp') IS NULL") == "t");
    }
    TEST_CASE("a schema newer than this wacamp's is refused, read-only too") {
        LedgerPlace place(Backend::postgresql);
        if (place.skipped()) {
            return;
        }
        { auto book = place.open(); }
        sql_at(place.where(), "UPDATE wacamp.meta SET version = 99");
        for (const auto access : {account::Access::read_write, account::Access::read_only}) {
            auto opened =
                account::open_ledger(place.where(), account::OpenOptions{.account = "acme", .access = access});
            REQUIRE_FALSE(opened.ok());
            CHECK(opened.error().message.find("newer") != std::string::npos);
        }
    }
    TEST_CASE("a version 1 schema is upgraded by a read-write open: its reserve() then refuses suppressed numbers") {
        LedgerPlace place(Backend::postgresql);
        if (place.skipped()) {
            return;
        }
        { auto book = place.open(); }
        // Version 1's reserve(): the caps only (refusal 0 for everything here).
        sql_at(place.where(),
               "CREATE OR REPLACE FUNCTION wacamp.reserve(p_account text, p_campaigns text[], p_rows bigint[], "
               "p_wa_ids text[], p_now bigint, p_max bigint, p_per bigint, p_per_day bigint, p_commit boolean) "
               "RETURNS TABLE (refusal integer, room_at bigint) LANGUAGE sql AS "
               "$$ SELECT 0, NULL::bigint FROM unnest(p_wa_ids) $$");
        sql_at(place.where(), "UPDATE wacamp.meta SET version = 1");
        sql_at(place.where(),
               "INSERT INTO wacamp.suppressions VALUES ('acme', '14155550100', 'opted_out', 0, 'campaign:other')");
        {
            // Read-only reads it as it is: not an empty ledger, nothing changed.
            auto reader = place.open(account::Access::read_only);
            auto found = reader->suppressed({"14155550100"});
            REQUIRE(found.ok());
            CHECK(found->size() == 1);
            CHECK(sql_at(place.where(), "SELECT max(version) FROM wacamp.meta") == "1");
        }
        auto book = place.open();
        CHECK(sql_at(place.where(), "SELECT max(version) FROM wacamp.meta") == "8");
        CHECK(sql_at(place.where(), k_functions) == "0");  // the rule is the runner's now
        auto answers = book->reserve(request(sends("spring", {"14155550100"}), {}, k_t0));
        REQUIRE(answers.ok());
        CHECK(answers->at(0).refusal == account::Refusal::suppressed);
    }
    TEST_CASE(
        "a version 2 schema is read as it is read-only, by the rule in the runner, and upgraded by a read-write "
        "open to one without functions") {
        LedgerPlace place(Backend::postgresql);
        if (place.skipped()) {
            return;
        }
        { auto book = place.open(); }
        // Version 2: no count of the day's numbers, and a reserve() (here one that would hold
        // every number back, so that a call of it shows) with no p_holds.
        sql_at(place.where(), "DROP TABLE wacamp.day_counts");
        sql_at(place.where(),
               "CREATE FUNCTION wacamp.reserve(p_account text, p_campaigns text[], p_rows bigint[], "
               "p_wa_ids text[], p_now bigint, p_max bigint, p_per bigint, p_per_day bigint, p_commit boolean) "
               "RETURNS TABLE (refusal integer, room_at bigint) LANGUAGE sql AS "
               "$$ SELECT 4, p_now + 3600000 FROM unnest(p_wa_ids) $$");
        sql_at(place.where(), "UPDATE wacamp.meta SET version = 2");
        sql_at(place.where(), "INSERT INTO wacamp.marketing_holds VALUES ('acme', '14155550100', 9000000000000)");
        sql_at(place.where(), "INSERT INTO wacamp.sends VALUES ('acme', 'winter', 1, '14155550101', " +
                                  std::to_string(account::rule::to_millis(k_t0 - 1h)) + ", 'sent')");
        auto utility =
            request(sends("spring", {"14155550100", "14155550102"}), per_day(1), k_t0, account::Apply::preview);
        utility.marketing_holds = account::MarketingHolds::ignored;
        {
            // Read-only reads the tables as they are, changes nothing, and calls no function.
            auto reader = place.open(account::Access::read_only);
            auto answers = reader->reserve(utility);
            REQUIRE_MESSAGE(answers.ok(), (answers.ok() ? "" : answers.error().message));
            CHECK(answers->at(0).refusal == account::Refusal::per_day);  // the day's one number: 14155550101
            CHECK(answers->at(0).room_at == k_t0 + 23h);
            CHECK(sql_at(place.where(), "SELECT max(version) FROM wacamp.meta") == "2");
        }
        auto book = place.open();
        CHECK(sql_at(place.where(), "SELECT max(version) FROM wacamp.meta") == "8");
        CHECK(sql_at(place.where(), k_functions) == "0");
        auto answers = book->reserve(request(sends("spring", {"14155550100"}), {}, k_t0, account::Apply::preview));
        REQUIRE(answers.ok());
        CHECK(answers->at(0).refusal == account::Refusal::held);
        utility.limits = {};
        auto granted_answers = book->reserve(utility);
        REQUIRE(granted_answers.ok());
        CHECK(granted(*granted_answers) == std::vector<bool>{true, true});
    }
    TEST_CASE(
        "a version 3 schema is upgraded by a read-write open: the day's numbers, counted from its sends, "
        "answer as before") {
        LedgerPlace place(Backend::postgresql);
        if (place.skipped()) {
            return;
        }
        {
            auto book = place.open();
            write_day(*book);
        }
        // Version 3 is version 4 without the running count.
        sql_at(place.where(), "DROP TABLE wacamp.day_counts");
        sql_at(place.where(), "UPDATE wacamp.meta SET version = 3");
        auto book = place.open();
        CHECK(sql_at(place.where(), "SELECT max(version) FROM wacamp.meta") == "8");
        check_day(*book);
    }
    TEST_CASE(
        "a version 7 schema (no runs) is read as it is read-only, its sends as written, and upgraded by a "
        "read-write open") {
        LedgerPlace place(Backend::postgresql);
        if (place.skipped()) {
            return;
        }
        {
            auto book = place.open();
            auto results = batch_at(k_t0 + 1s);
            results.delivered = sends("spring", {"1"});
            REQUIRE(book->reserve(request(sends("spring", {"1", "2"}), account::Limits{}, k_t0)).ok());
            REQUIRE(book->record(results).ok());
        }
        sql_at(place.where(), "ALTER TABLE wacamp.sends DROP COLUMN run");
        sql_at(place.where(), "DROP TABLE wacamp.runs");
        sql_at(place.where(), "UPDATE wacamp.meta SET version = 7");
        {
            auto reader = place.open(account::Access::read_only);
            auto held = reader->campaign_sends("spring", {"1", "2"});
            REQUIRE_MESSAGE(held.ok(), (held.ok() ? "" : held.error().message));
            REQUIRE(held->size() == 2);
            for (const auto& send : *held) {
                CHECK(send.state == (send.wa_id == "1" ? account::SendState::sent : account::SendState::reserved));
            }
            auto again = reader->reserve(
                request(sends("spring", {"1", "2"}), account::Limits{}, k_t0 + 1min, account::Apply::preview));
            REQUIRE_MESSAGE(again.ok(), (again.ok() ? "" : again.error().message));
            CHECK(again->at(0).refusal == account::Refusal::row_sent);
            CHECK(again->at(1).refusal == account::Refusal::row_reserved);
            CHECK(sql_at(place.where(), "SELECT max(version) FROM wacamp.meta") == "7");
        }
        auto book = place.open();
        CHECK(sql_at(place.where(), "SELECT max(version) FROM wacamp.meta") == "8");
        CHECK(sql_at(place.where(), "SELECT count(*) FROM wacamp.sends WHERE run = 0") == "2");
        REQUIRE(book->begin_run("spring", k_t0 + 2min).ok());
    }
    TEST_CASE("an unreachable server fails naming the URL without its password") {
        // A port nothing listens on (the cluster's, plus one, is as good as any).
        const std::string url = "postgresql://wacamp:Sup3rSecretPw@127.0.0.1:1/ledger?connect_timeout=2";
        auto opened = account::open_ledger(url, account::OpenOptions{.account = "acme"});
        REQUIRE_FALSE(opened.ok());
        const std::string& message = opened.error().message;
        CHECK(message.starts_with("ledger postgresql://wacamp@127.0.0.1:1/ledger?connect_timeout=2: cannot connect: "));
        CHECK(message.find("Sup3rSecretPw") == std::string::npos);
        auto given = account::open_ledger("postgresql://wacamp@127.0.0.1:1/ledger?connect_timeout=2",
                                          account::OpenOptions{.account = "acme", .password = "An0therSecret"});
        REQUIRE_FALSE(given.ok());
        CHECK(given.error().message.find("An0therSecret") == std::string::npos);
    }
    TEST_CASE("a batch's facts are read through each number's index, before the table's statistics and after") {
        // A plan made while the table was small (a new ledger, never analyzed) must not read every
        // send of the account for each batch.
        LedgerPlace place(Backend::postgresql);
        if (place.skipped()) {
            return;
        }
        { auto book = place.open(); }
        add_sends(place.where(), 20000, "1740787200000");
        std::string query = account::PgLedger::k_number_sends_sql;
        for (const auto& [name, value] : std::vector<std::pair<std::string, std::string>>{
                 {"$1", "'acme'"}, {"$2", "ARRAY['919800000007', '919800000011', '1']"}}) {
            query.replace(query.find(name), name.size(), value);
        }
        for (const char* stats : {"SELECT 1", "ANALYZE wacamp.sends"}) {
            CAPTURE(stats);
            sql_at(place.where(), stats);
            const std::string plan = lines_at(place.where(), "EXPLAIN " + query);
            CAPTURE(plan);
            CHECK(plan.find("sends_by_number") != std::string::npos);
            CHECK(plan.find("Seq Scan") == std::string::npos);
        }
    }
    TEST_CASE("a prune counts the day's crossed numbers only when it moves the count's horizon") {
        // It counted them whenever a count was stored: every send between the prune's horizon
        // (367 days back) and the count's, which at 30 days of a million sends a day took 150 s,
        // and the run stopped at the statement's 30 s (bench/ledger_month.sh).
        LedgerPlace place(Backend::postgresql);
        if (place.skipped()) {
            return;
        }
        { auto book = place.open(); }
        // 2,000 numbers, one send each, 100 ms apart; the count's horizon after the first 1,000.
        add_sends(place.where(), 2000, "1740787200000 + i * 100");
        sql_at(place.where(),
               "INSERT INTO wacamp.day_counts (account, horizon, numbers) VALUES ('acme', 1740787300000, 1000)");
        // PREPARE and EXECUTE in one call: one connection.
        const std::string prepare =
            "PREPARE prune_day (text, bigint) AS " + std::string(account::PgLedger::k_prune_day_sql) + "; ";
        auto explain = [&](const std::string& target) {
            return lines_at(
                place.where(),
                prepare + "EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF) EXECUTE prune_day ('acme', " + target + ")");
        };
        // The rows the plan read from the sends by time (none: the scan never ran).
        auto sends_read = [](const std::string& plan) -> std::string {
            std::istringstream lines(plan);
            for (std::string line; std::getline(lines, line);) {
                if (line.find("sends_by_time") != std::string::npos &&
                    line.find("(actual rows=") != std::string::npos) {
                    return line.substr(line.find("(actual rows="));
                }
            }
            return "";
        };
        // Behind the count's horizon (a prune of a year back): nothing counted.
        const std::string behind = explain("1740787100000");
        CAPTURE(behind);
        CHECK(sends_read(behind).empty());
        // Ahead of it: the numbers whose latest sends lie between the two are counted.
        const std::string ahead = explain("1740787350000");
        CAPTURE(ahead);
        CHECK(sends_read(ahead).starts_with("(actual rows=500 "));
        auto book = place.open();
        auto pruned = book->prune(util::TimePoint(std::chrono::milliseconds(1740787250000)));
        REQUIRE(pruned.ok());
        CHECK(*pruned == 499);  // the sends before it, all behind the count's horizon: the count stays
        CHECK(sql_at(place.where(), "SELECT numbers FROM wacamp.day_counts WHERE account = 'acme'") == "1000");
    }
    TEST_CASE("the ledger's sessions run without JIT; a read-only one refuses writes, a normal one does not wait") {
        // With JIT on, a plan priced past jit_above_cost was compiled at every reservation:
        // 100 ms a call at 10 million sends in the day (bench/ledger_pg.sh).
        LedgerPlace place(Backend::postgresql);
        if (place.skipped()) {
            return;
        }
        { auto book = place.open(); }
        auto show = [&](account::Access access, account::Sync sync, const char* setting) {
            const std::string settings = account::PgLedger::session_settings(access, sync);
            const char* keywords[] = {"dbname", "options", nullptr};
            const char* values[] = {place.where().c_str(), settings.c_str(), nullptr};
            PGconn* conn = PQconnectdbParams(keywords, values, 1);
            REQUIRE_MESSAGE(PQstatus(conn) == CONNECTION_OK, PQerrorMessage(conn));
            PGresult* result = PQexec(conn, (std::string("SHOW ") + setting).c_str());
            std::string value = PQresultStatus(result) == PGRES_TUPLES_OK ? PQgetvalue(result, 0, 0) : "?";
            PQclear(result);
            PQfinish(conn);
            return value;
        };
        CHECK(show(account::Access::read_write, account::Sync::full, "jit") == "off");
        CHECK(show(account::Access::read_write, account::Sync::full, "idle_in_transaction_session_timeout") == "10s");
        CHECK(show(account::Access::read_write, account::Sync::full, "synchronous_commit") == "on");
        CHECK(show(account::Access::read_only, account::Sync::full, "jit") == "off");
        CHECK(show(account::Access::read_only, account::Sync::full, "default_transaction_read_only") == "on");
        CHECK(show(account::Access::read_write, account::Sync::normal, "synchronous_commit") == "off");
    }
    TEST_CASE("a runner stopped inside its transaction loses the account's lock, and the others go on") {
        // A stand-in for a runner stopped (SIGSTOP) between its two round trips: a session of the
        // ledger's settings holding the account's lock in an open transaction, then silent.
        LedgerPlace place(Backend::postgresql);
        if (place.skipped()) {
            return;
        }
        { auto book = place.open(); }
        const std::string settings =
            account::PgLedger::session_settings(account::Access::read_write, account::Sync::full);
        const char* keywords[] = {"dbname", "options", nullptr};
        const char* values[] = {place.where().c_str(), settings.c_str(), nullptr};
        PGconn* stopped = PQconnectdbParams(keywords, values, 1);
        REQUIRE_MESSAGE(PQstatus(stopped) == CONNECTION_OK, PQerrorMessage(stopped));
        PQclear(PQexec(stopped, ("BEGIN; SELECT pg_advisory_xact_lock(" +
                                 std::to_string(account::pg_schema::k_lock_space) + ", hashtext('acme'))")
                                    .c_str()));
        // The other runner waits for the lock (up to its 30 s), and gets it when the server ends the
        // silent session, after 10 s.
        auto other = place.open();
        auto answers = other->reserve(request(sends("spring", {"14155550100"}), per_day(5), k_t0));
        REQUIRE_MESSAGE(answers.ok(), (answers.ok() ? "" : answers.error().message));
        CHECK(answers->at(0).granted());
        PGresult* after = PQexec(stopped, "SELECT 1");
        CHECK(PQresultStatus(after) != PGRES_TUPLES_OK);  // its session is gone: nothing of it committed
        PQclear(after);
        PQfinish(stopped);
    }
    TEST_CASE("a reservation, a batch of answers and a prune are two round trips each, whatever the batch") {
        LedgerPlace place(Backend::postgresql);
        if (place.skipped()) {
            return;
        }
        auto opened = account::PgLedger::open(place.where(), account::OpenOptions{.account = "acme"});
        REQUIRE(opened.ok());
        auto& book = **opened;
        std::vector<std::string> numbers;
        for (int i = 0; i < 200; ++i) {
            numbers.push_back(std::to_string(14155550000 + i));
        }
        std::uint64_t before = book.round_trips();
        const account::Limits limits{account::PerRecipient{1, 24h}, 150};
        auto answers = book.reserve(request(sends("spring", numbers), limits, k_t0));
        REQUIRE(answers.ok());
        CHECK(book.round_trips() - before == 2);
        CHECK(answers->at(149).granted());
        CHECK(answers->at(150).refusal == account::Refusal::per_day);
        auto answered = batch_at(k_t0 + 1s);
        answered.delivered = sends("spring", std::vector<std::string>(numbers.begin(), numbers.begin() + 100));
        answered.not_delivered =
            sends("spring", std::vector<std::string>(numbers.begin() + 100, numbers.begin() + 150), 101);
        answered.undeliverable = {{numbers[100], k_t0 + 1s}, {numbers[100], k_t0 + 1s}};
        answered.marketing_limited = {{numbers[101], k_t0 + 1s}};
        before = book.round_trips();
        auto recorded = book.record(answered);
        REQUIRE(recorded.ok());
        CHECK(book.round_trips() - before == 2);
        CHECK(recorded->suppressed == std::vector<std::string>{numbers[100]});
        before = book.round_trips();
        REQUIRE(book.prune(k_t0 + 2s).ok());
        CHECK(book.round_trips() - before == 2);
        CHECK(sql_at(place.where(), "SELECT count(*) FROM wacamp.sends") == "0");
    }
    TEST_CASE("the campaign's sends are read through each number's index, however many the campaign sent") {
        // Without the fence, the planner took the key (account, campaign, …) and walked every
        // send of the campaign for each batch screened: a 100,000-row run crawled.
        LedgerPlace place(Backend::postgresql);
        if (place.skipped()) {
            return;
        }
        { auto book = place.open(); }
        add_sends(place.where(), 20000, "1740787200000");
        std::string query = account::PgLedger::k_campaign_sends_sql;
        for (const auto& [name, value] : std::vector<std::pair<std::string, std::string>>{
                 {"$1", "'acme'"}, {"$2", "'spring'"}, {"$3", "ARRAY['919800000007', '919800000011', '1']"}}) {
            query.replace(query.find(name), name.size(), value);
        }
        // Before the table's statistics (a new ledger's sends, autovacuum not yet by) and after.
        for (const char* stats : {"SELECT 1", "ANALYZE wacamp.sends"}) {
            CAPTURE(stats);
            sql_at(place.where(), stats);
            const std::string plan = lines_at(place.where(), "EXPLAIN " + query);
            CAPTURE(plan);
            CHECK(plan.find("sends_by_number") != std::string::npos);
            CHECK(plan.find("sends_pkey") == std::string::npos);
            CHECK(plan.find("Seq Scan") == std::string::npos);
        }
        auto book = place.open();
        CHECK(book->campaign_sends("spring", {"919800000007", "919800000011", "1"}).value().size() == 2);
    }
    TEST_CASE("a connection lost mid-run fails that call, never runs it again, and the next call reconnects") {
        LedgerPlace place(Backend::postgresql);
        if (place.skipped()) {
            return;
        }
        auto book = place.open();
        REQUIRE(book->reserve(request(sends("spring", {"1"}), per_day(10), k_t0)).ok());
        const std::string database = place.where().substr(place.where().rfind('/') + 1);
        sql_at(place.where(), "SELECT pg_terminate_backend(pid, 10000) FROM pg_stat_activity WHERE datname = '" +
                                  database + "' AND application_name = 'wacamp'");
        auto lost = book->reserve(request(sends("spring", {"2"}, 2), per_day(10), k_t0));
        REQUIRE_FALSE(lost.ok());
        CHECK(lost.error().message.starts_with("ledger " + place.where() + ": reserving sends: "));
        // The failed call wrote nothing (its statement never reached the server, or failed there).
        CHECK(sql_at(place.where(), "SELECT count(*) FROM wacamp.sends") == "1");
        auto again = book->reserve(request(sends("spring", {"3"}, 3), per_day(10), k_t0));
        REQUIRE(again.ok());
        CHECK(granted(*again) == std::vector<bool>{true});
    }
    TEST_CASE("a server that does not answer fails the call after answer_timeout instead of holding it for good") {
        LedgerPlace place(Backend::postgresql);
        if (place.skipped()) {
            return;
        }
        auto opened = account::open_ledger(
            place.where(), account::OpenOptions{.account = "acme", .answer_timeout = std::chrono::milliseconds(500)});
        REQUIRE_MESSAGE(opened.ok(), (opened.ok() ? "" : opened.error().message));
        auto& book = *opened.value();
        // Another session holds the account's lock: every reservation waits behind it.
        PGconn* holder = PQconnectdb(place.where().c_str());
        REQUIRE(PQstatus(holder) == CONNECTION_OK);
        PGresult* locked = PQexec(holder, "SELECT pg_advisory_lock(1463895917, hashtext('acme'))");
        REQUIRE(PQresultStatus(locked) == PGRES_TUPLES_OK);
        PQclear(locked);
        auto waited = book.reserve(request(sends("spring", {"1"}), per_day(10), k_t0));
        PQfinish(holder);  // the lock goes with the session
        REQUIRE_FALSE(waited.ok());
        CHECK(waited.error().message.find("no answer from the server for") != std::string::npos);
        // The connection it gave up on is dropped; the next call connects afresh and works.
        auto again = book.reserve(request(sends("spring", {"2"}, 2), per_day(10), k_t0));
        REQUIRE_MESSAGE(again.ok(), (again.ok() ? "" : again.error().message));
        CHECK(granted(*again) == std::vector<bool>{true});
    }
    TEST_CASE("Sync::normal and a password given apart connect as well") {
        LedgerPlace place(Backend::postgresql);
        if (place.skipped()) {
            return;
        }
        auto opened = account::open_ledger(
            place.where(),
            account::OpenOptions{.account = "acme", .sync = account::Sync::normal, .password = "unused"});
        REQUIRE_MESSAGE(opened.ok(), (opened.ok() ? "" : opened.error().message));
        REQUIRE((*opened)->suppress({account::Suppression{"1", "manual", k_t0, "manual"}}).ok());
    }
}

TEST_SUITE("account::ledger_url") {
    TEST_CASE("a URL's password is found and left out of what is shown") {
        CHECK(util::is_postgresql_url("postgresql://db/x"));
        CHECK(util::is_postgresql_url("postgres://db/x"));
        CHECK_FALSE(util::is_postgresql_url("./postgresql://x"));
        CHECK(util::url_without_password("postgresql://u:p%40ss@db:5432/x?sslmode=require") ==
              "postgresql://u@db:5432/x?sslmode=require");
        CHECK(util::url_without_password("postgresql://u@db/x?password=pw&sslmode=require") ==
              "postgresql://u@db/x?sslmode=require");
        CHECK(util::url_without_password("postgresql://db/x?sslmode=require&password=pw") ==
              "postgresql://db/x?sslmode=require");
        CHECK(util::url_without_password("postgresql://u:a@db/x?password=b") == "postgresql://u@db/x");
        // A ':' after the host is its port, not a password.
        CHECK(util::url_without_password("postgresql://db:5432/x") == "postgresql://db:5432/x");
        CHECK_FALSE(util::url_password("postgresql://db:5432/x"));
        const auto password = util::url_password("postgresql://u:${PGPASS}@db/x");
        REQUIRE(password);
        CHECK(std::string("postgresql://u:${PGPASS}@db/x").substr(password->at, password->size) == "${PGPASS}");
        CHECK(util::percent_decoded("p%40ss%2Fw") == "p@ss/w");
        CHECK_FALSE(util::percent_decoded("p%40ss%2Fw%zz").has_value());
    }
}
