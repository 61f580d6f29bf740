// The account's ledger in PostgreSQL, end to end: two `wacamp run` processes (two campaigns of
// one account) share it as they would from two machines. Against the test cluster
// (tests/support/pg_cluster.hpp); reported skipped where PostgreSQL is not installed.

#include <doctest/doctest.h>
#include <fmt/format.h>
#include <libpq-fe.h>

#include <csignal>
#include <fstream>
#include <sstream>
#include <thread>

#include "../support/pg_cluster.hpp"
#include "fixtures.hpp"
#include "ledger_recovery.hpp"

using namespace e2e;
using nlohmann::json;

namespace {

constexpr const char* k_password = "pg-E2eSecret-9431";

// The ledger's URL for a campaign file: the cluster's database, its password from ${PGPASS}.
std::string ledger_yaml(const std::string& url, const std::string& more = "") {
    const std::string user = "postgresql://wacamp";
    return fmt::format("account:\n  ledger: \"postgresql://wacamp:${{PGPASS}}{}\"\n{}", url.substr(user.size()), more);
}

// A campaign of the sandbox's account whose ledger is `url`, named `name`.
void use_ledger(CampaignFixture& f, const std::string& name) {
    f.env["PGPASS"] = k_password;
    edit_campaign(f, "name: e2e", "name: " + name);
}

// The first value `sql` answers on the database at `url`.
std::string sql_at(const std::string& url, const std::string& sql) {
    PGconn* conn = PQconnectdb(url.c_str());
    REQUIRE_MESSAGE(PQstatus(conn) == CONNECTION_OK, PQerrorMessage(conn));
    PGresult* result = PQexec(conn, sql.c_str());
    const bool ok = PQresultStatus(result) == PGRES_TUPLES_OK;
    std::string value = ok && PQntuples(result) > 0 ? PQgetvalue(result, 0, 0) : "";
    PQclear(result);
    PQfinish(conn);
    REQUIRE(ok);
    return value;
}

std::string file_text(const std::filesystem::path& path) {
    std::ifstream in(path);
    std::stringstream text;
    text << in.rdbuf();
    return text.str();
}

}  // namespace

TEST_SUITE("e2e: ledger in PostgreSQL") {
    TEST_CASE("an opt-out one runner saw is honoured by another's run; validate reads it; the password never shows") {
        const auto url = test_support::pg_cluster::fresh_database();
        if (!url) {
            return;
        }
        Sandbox sandbox({"--meta-error", numbers_wa_id(1) + "=131050"});
        CampaignFixture first(sandbox, numbers_csv(4), ledger_yaml(*url));
        use_ledger(first, "first");
        auto r = first.wacamp({"run", first.campaign.string(), "--no-progress"});
        CAPTURE(r.err);
        CHECK(r.exit_code == 1);
        CHECK(result_of(first, 2)["cause"] == "opted_out");
        CHECK(sql_at(*url, "SELECT reason FROM wacamp.suppressions WHERE wa_id = '" + numbers_wa_id(1) + "'") ==
              "opted_out");

        CampaignFixture second(sandbox, numbers_csv(4), ledger_yaml(*url));
        use_ledger(second, "second");
        auto checked = second.wacamp({"validate", second.campaign.string()});
        CAPTURE(checked.out);
        CHECK(checked.exit_code == 0);
        CHECK(contains(checked.out, "would hold back 1 now: suppressed 1"));
        auto run = second.wacamp({"run", second.campaign.string(), "--no-progress"});
        CAPTURE(run.err);
        CHECK(run.exit_code == 0);
        const auto rec = result_of(second, 2);
        CAPTURE(rec.dump());
        CHECK(rec["status"] == "skipped");
        CHECK(rec["cause"] == "suppressed");
        CHECK(contains(rec.value("error", ""), "opted_out"));
        CHECK(requests_for(sandbox, numbers_wa_id(1)) == 1);  // the first runner's only
        CHECK(delivered(sandbox)[numbers_wa_id(0)] == 2);

        auto listed = second.wacamp({"suppress", "list", "--campaign", second.campaign.string()});
        CAPTURE(listed.err);
        CHECK(listed.exit_code == 0);
        CHECK(contains(listed.out, "opted_out"));
        // --account with --ledger URL: the same list, by hand.
        const std::string account = fmt::format("127.0.0.1:{}", sandbox.port());
        auto added = second.wacamp({"suppress", "add", "--account", account, "--ledger", *url, "+" + numbers_wa_id(3)});
        CAPTURE(added.err);
        CHECK(added.exit_code == 0);
        auto by_account = second.wacamp({"suppress", "list", "--account", account, "--ledger", *url, "--json"});
        CHECK(by_account.exit_code == 0);
        CHECK(contains(by_account.out, "\"wa_id\":\"" + numbers_wa_id(1) + "\",\"reason\":\"opted_out\""));
        CHECK(contains(by_account.out, "\"wa_id\":\"" + numbers_wa_id(3) + "\",\"reason\":\"manual\""));
        for (const auto* f : {&first, &second}) {
            CHECK_FALSE(leaks(k_password, {file_text(f->log)}));
        }
        CHECK_FALSE(
            leaks(k_password, {r.out, r.err, checked.out, checked.err, run.out, run.err, listed.out, listed.err}));
    }

    TEST_CASE("an opt-out met by one runner, or added by hand, holds back another runner already running") {
        const auto url = test_support::pg_cluster::fresh_database();
        if (!url) {
            return;
        }
        Sandbox sandbox({"--meta-error", numbers_wa_id(7) + "=131050"});
        CampaignFixture slow(sandbox, numbers_csv(10),
                             ledger_yaml(*url, "rate: {per_second: 1, burst: 1, per_recipient: {max: 1, per: 7d}}\n"));
        CampaignFixture quick(sandbox, numbers_csv(1, 7), ledger_yaml(*url));
        use_ledger(slow, "slow");
        use_ledger(quick, "quick");
        const MidRunOptOut run = run_opt_out_midway(slow, quick);
        check_opt_out_midway(sandbox, slow, run);
        CHECK_FALSE(leaks(k_password, {run.slow_err, file_text(slow.log)}));
    }

    TEST_CASE("rate.per_day holds across two runners at once: never more sends than the day allows") {
        const auto url = test_support::pg_cluster::fresh_database();
        if (!url) {
            return;
        }
        Sandbox sandbox({"--latency", "15"});
        const std::string rate = "rate: {per_second: 40, concurrency: 2, per_day: 40}\n";
        CampaignFixture first(sandbox, numbers_csv(30), ledger_yaml(*url, rate));
        CampaignFixture second(sandbox, numbers_csv(30, 30), ledger_yaml(*url, rate));
        use_ledger(first, "first");
        use_ledger(second, "second");
        const PairRun pair = run_pair_to_daily_cap(sandbox, first, second, 40);
        CAPTURE(pair.err_first);
        CAPTURE(pair.err_second);
        CHECK(pair.capped);
        CHECK((pair.code_first == 0 || pair.code_first == 3));
        CHECK((pair.code_second == 0 || pair.code_second == 3));
        CHECK(total_delivered(sandbox) == 40);
        CHECK(status_counts(first)["sent"] + status_counts(second)["sent"] == 40);
        CHECK(sql_at(*url, "SELECT count(*) FROM wacamp.sends") == "40");
        CHECK_FALSE(leaks(k_password, {pair.out_first, pair.err_first, pair.out_second, pair.err_second,
                                       file_text(first.log), file_text(second.log)}));
    }

    TEST_CASE("a ledger server that cannot be reached stops the run before any send, naming it without the password") {
        if (!test_support::pg_cluster::fresh_database()) {
            return;
        }
        Sandbox sandbox;
        // Port 1 of 127.0.0.1: nothing listens there.
        CampaignFixture f(
            sandbox, numbers_csv(3),
            "account:\n  ledger: \"postgresql://wacamp:${PGPASS}@127.0.0.1:1/nowhere?connect_timeout=2\"\n");
        use_ledger(f, "unreachable");
        auto r = f.wacamp({"run", f.campaign.string(), "--no-progress"});
        CAPTURE(r.out);
        CAPTURE(r.err);
        CHECK(r.exit_code == 2);
        CHECK(contains(r.err,
                       "ledger postgresql://wacamp@127.0.0.1:1/nowhere?connect_timeout=2: cannot connect: "
                       "connection to server at \"127.0.0.1\", port 1 failed: Connection refused Is the server"));
        CHECK_FALSE(leaks(k_password, {r.out, r.err}));
        CHECK(send_requests(sandbox) == 0);
    }

    TEST_CASE("the ledger's connection lost mid-run stops the run, resumable; the resume sends each number once") {
        const auto url = test_support::pg_cluster::fresh_database();
        if (!url) {
            return;
        }
        Sandbox sandbox;
        const int n = 40;
        CampaignFixture f(sandbox, numbers_csv(n), ledger_yaml(*url, "rate: {per_second: 10}\n"));
        use_ledger(f, "lost");
        Background run({"run", f.campaign.string(), "--no-progress"}, f.env);
        CHECK(wait_until([&] { return total_delivered(sandbox) >= 3; }));
        // The server ends the runner's session, as a restart or a network cut would.
        const std::string database = url->substr(url->rfind('/') + 1);
        sql_at(*url, "SELECT count(pg_terminate_backend(pid, 10000)) FROM pg_stat_activity WHERE datname = '" +
                         database + "' AND application_name = 'wacamp'");
        const int code = run.wait();
        CAPTURE(run.out());
        CAPTURE(run.err());
        CHECK(code == 3);
        CHECK(contains(run.err(), "ledger " + *url + ": "));
        CHECK(total_delivered(sandbox) < n);
        auto resumed = f.wacamp({"resume", f.log.string(), "--no-progress"});
        CAPTURE(resumed.err);
        CHECK(resumed.exit_code == 0);
        CHECK(once_each(delivered(sandbox), n) == "");
        // Sent: written so, or reserved by a run whose mark passed it.
        CHECK(sql_at(*url,
                     "SELECT count(*) FROM wacamp.sends s LEFT JOIN wacamp.runs r ON r.id = s.run "
                     "WHERE s.state = 'sent' OR s.at < coalesce(r.answered_before, 0)") == std::to_string(n));
        CHECK_FALSE(leaks(k_password, {run.out(), run.err(), resumed.out, resumed.err, file_text(f.log)}));
    }
    TEST_CASE(
        "a restored older copy of the log: the rows it lacks are recovered from the ledger as sent, never resent") {
        const auto url = test_support::pg_cluster::fresh_database();
        if (!url) {
            return;
        }
        Sandbox sandbox;
        CampaignFixture f(sandbox, numbers_csv(k_recovery_rows), ledger_yaml(*url) + k_recovery_rate);
        use_ledger(f, "restored");
        check_restored_log(sandbox, f);
        // The rows were recovered from reservations written once (docs/ledger.md "A send written once").
        const std::string written_once =
            sql_at(*url, "SELECT count(*) FROM wacamp.sends WHERE state = 'reserved' AND run <> 0");
        const std::string said = "a send written once: " + written_once + " of " + std::to_string(k_recovery_rows) +
                                 " rows are their reservations alone";
        MESSAGE(said);
        CHECK(std::stoi(written_once) >= 1);
    }
    TEST_CASE("a log cut at a line boundary: a plain run and --resend-unknown send none of its lost rows again") {
        const auto url = test_support::pg_cluster::fresh_database();
        if (!url) {
            return;
        }
        Sandbox sandbox;
        CampaignFixture f(sandbox, numbers_csv(k_recovery_rows), ledger_yaml(*url) + "rate: {per_second: 50}\n");
        use_ledger(f, "shortened");
        check_shortened_log(sandbox, f);
    }
    TEST_CASE(
        "a reservation the log holds no record of is recovered as unknown; --resend-unknown sends it under max 1") {
        const auto url = test_support::pg_cluster::fresh_database();
        if (!url) {
            return;
        }
        Sandbox sandbox;
        CampaignFixture f(sandbox, numbers_csv(k_recovery_rows), ledger_yaml(*url) + k_recovery_rate);
        use_ledger(f, "reserved");
        check_reserved_without_record(sandbox, f, [&](const std::string& wa_id) {
            CHECK(sql_at(*url, "UPDATE wacamp.sends SET state = 'reserved', run = 0 WHERE wa_id = '" + wa_id +
                                   "' RETURNING 1") == "1");
        });
    }
    TEST_CASE("an older log whose failed request was retried: its failure releases nothing, the row is never resent") {
        const auto url = test_support::pg_cluster::fresh_database();
        if (!url) {
            return;
        }
        Sandbox sandbox;
        CampaignFixture f(sandbox, numbers_csv(k_recovery_rows), ledger_yaml(*url) + "rate: {per_second: 50}\n");
        use_ledger(f, "retried");
        check_older_log_after_retry(sandbox, f, [&](const std::string& wa_id) {
            CHECK(sql_at(*url, "UPDATE wacamp.sends SET state = 'reserved', run = 0, attempt = 2 WHERE wa_id = '" +
                                   wa_id + "' RETURNING 1") == "1");
        });
    }
    TEST_CASE("two copies of one log resumed at once: the ledger gives each row to one run, no number twice") {
        const auto url = test_support::pg_cluster::fresh_database();
        if (!url) {
            return;
        }
        Sandbox sandbox;
        CampaignFixture f(sandbox, numbers_csv(k_copies_rows), ledger_yaml(*url) + k_copies_rate);
        use_ledger(f, "copies");
        check_copies_resumed_at_once(sandbox, f);
    }
}
