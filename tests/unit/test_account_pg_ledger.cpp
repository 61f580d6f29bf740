// What only the PostgreSQL ledger does: a server to reach, runners on other connections, a
// schema made on first open. Against the test cluster (tests/support/pg_cluster.hpp).
#include <doctest/doctest.h>

#include <fmt/format.h>
#include <libpq-fe.h>

#include <mutex>
#include <set>
#include <thread>

#include "account/pg_ledger.hpp"
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

// Runs `sql` on one session at `url`; returns the notices it sent (auto_explain's plans).
std::vector<std::string> notices_of(const std::string& url, const std::string& sql) {
    PGconn* conn = PQconnectdb(url.c_str());
    REQUIRE_MESSAGE(PQstatus(conn) == CONNECTION_OK, PQerrorMessage(conn));
    std::vector<std::string> notices;
    PQsetNoticeReceiver(
        conn,
        [](void* out, const PGresult* notice) {
            static_cast<std::vector<std::string>*>(out)->push_back(PQresultErrorMessage(notice));
        },
        &notices);
    PGresult* result = PQexec(conn, sql.c_str());
    const ExecStatusType status = PQresultStatus(result);
    const bool ok = status == PGRES_TUPLES_OK || status == PGRES_COMMAND_OK;
    std::string error = ok ? "" : PQresultErrorMessage(result);
    PQclear(result);
    PQfinish(conn);
    REQUIRE_MESSAGE(ok, error);
    return notices;
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
        CHECK(sql_at(place.where(), "SELECT max(version) FROM wacamp.meta") == "5");
        auto answers = book->reserve(request(sends("spring", {"14155550100"}), {}, k_t0));
        REQUIRE(answers.ok());
        CHECK(answers->at(0).refusal == account::Refusal::suppressed);
    }
    TEST_CASE(
        "a version 2 schema is read as it is read-only, and upgraded by a read-write open: holds then apply "
        "only when the request says so") {
        LedgerPlace place(Backend::postgresql);
        if (place.skipped()) {
            return;
        }
        { auto book = place.open(); }
        // Version 2's reserve(): no p_holds, a held number refused whatever the message.
        sql_at(place.where(),
               "DROP FUNCTION wacamp.reserve(text, text[], bigint[], text[], bigint, bigint, bigint, bigint, boolean, "
               "boolean)");
        sql_at(place.where(),
               "CREATE FUNCTION wacamp.reserve(p_account text, p_campaigns text[], p_rows bigint[], "
               "p_wa_ids text[], p_now bigint, p_max bigint, p_per bigint, p_per_day bigint, p_commit boolean) "
               "RETURNS TABLE (refusal integer, room_at bigint) LANGUAGE sql AS "
               "$$ SELECT 4, p_now + 3600000 FROM unnest(p_wa_ids) $$");
        sql_at(place.where(), "UPDATE wacamp.meta SET version = 2");
        sql_at(place.where(), "INSERT INTO wacamp.marketing_holds VALUES ('acme', '14155550100', 9000000000000)");
        const std::string overloads =
            "SELECT count(*) FROM pg_catalog.pg_proc p JOIN pg_catalog.pg_namespace n ON n.oid = p.pronamespace "
            "WHERE n.nspname = 'wacamp' AND p.proname = 'reserve'";
        auto utility = request(sends("spring", {"14155550100"}), {}, k_t0, account::Apply::preview);
        utility.marketing_holds = account::MarketingHolds::ignored;
        {
            // Read-only calls the old reserve() and changes nothing.
            auto reader = place.open(account::Access::read_only);
            auto answers = reader->reserve(utility);
            REQUIRE_MESSAGE(answers.ok(), (answers.ok() ? "" : answers.error().message));
            CHECK(answers->at(0).refusal == account::Refusal::held);
            CHECK(sql_at(place.where(), "SELECT max(version) FROM wacamp.meta") == "2");
        }
        auto book = place.open();
        CHECK(sql_at(place.where(), "SELECT max(version) FROM wacamp.meta") == "5");
        CHECK(sql_at(place.where(), overloads) == "1");  // the old one is gone: no call is ambiguous
        auto answers = book->reserve(utility);
        REQUIRE(answers.ok());
        CHECK(answers->at(0).granted());
        auto marketing = book->reserve(request(sends("spring", {"14155550100"}), {}, k_t0));
        REQUIRE(marketing.ok());
        CHECK(marketing->at(0).refusal == account::Refusal::held);
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
        CHECK(sql_at(place.where(), "SELECT max(version) FROM wacamp.meta") == "5");
        check_day(*book);
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
    TEST_CASE("a number's lookups are planned for its values, not with a plan cached while the ledger was new") {
        // A plan cached after the first reservations, on an empty table, read every send of the
        // account for each number (sends_pkey on account alone): 0.3 ms a row at 10,000 sends,
        // found by bench/shared_memory.sh. auto_explain, in this one session, shows the plans.
        LedgerPlace place(Backend::postgresql);
        if (place.skipped()) {
            return;
        }
        { auto book = place.open(); }
        const std::string reserve =
            "SELECT count(*) FROM generate_series({}, {}) i, wacamp.reserve('acme', ARRAY['c'], ARRAY[i]::bigint[], "
            "ARRAY['n' || i], 1000000000000, 1, 604800000, 100, true, true);";
        const std::vector<std::string> notices = notices_of(
            place.where(), fmt::format(fmt::runtime(reserve), 1, 8) +
                               "LOAD 'auto_explain'; SET auto_explain.log_min_duration = 0;"
                               "SET auto_explain.log_nested_statements = on; SET client_min_messages = log;" +
                               fmt::format(fmt::runtime(reserve), 100, 102));
        int lookups = 0;
        for (const auto& notice : notices) {
            if (notice.find("s.wa_id = v_wa_id") == std::string::npos) {
                continue;  // the day's count, the inserts, the call itself
            }
            ++lookups;
            CAPTURE(notice);
            const auto number = notice.find("'n10");  // the number's own value in the plan
            CHECK(number != std::string::npos);
        }
        CHECK(lookups == 6);  // two a number: per_recipient's and per_day's
    }
    TEST_CASE("the campaign's sends are read through each number's index, however many the campaign sent") {
        // Without the fence, the planner took the key (account, campaign, …) and walked every
        // send of the campaign for each batch screened: a 100,000-row run crawled.
        LedgerPlace place(Backend::postgresql);
        if (place.skipped()) {
            return;
        }
        { auto book = place.open(); }
        sql_at(place.where(),
               "INSERT INTO wacamp.sends (account, campaign, csv_row, wa_id, at, state) SELECT 'acme', 'spring', i, "
               "(919800000000 + i)::text, 1740787200000, 'sent' FROM generate_series(1, 20000) i");
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
