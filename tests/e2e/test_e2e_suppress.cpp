// `wacamp suppress list|add|remove|import`, end to end: the account's suppression list kept by
// hand, in the ledger that runs read.

#include <doctest/doctest.h>
#include <sys/stat.h>

#include <algorithm>
#include <sstream>

#include "fixtures.hpp"
#include "util/time.hpp"

using namespace e2e;
using nlohmann::json;

namespace {

// Where the fixture's campaign keeps its ledger by default (XDG_STATE_HOME is the fixture's).
std::filesystem::path default_ledger(const CampaignFixture& f) {
    return f.dir.path() / "state" / "wacamp" / "ledger.sqlite";
}

// `wacamp suppress ARGS… --campaign CAMPAIGN`.
ProcessResult suppress(const CampaignFixture& f, std::vector<std::string> args) {
    args.insert(args.begin(), "suppress");
    args.insert(args.begin() + 2, {"--campaign", f.campaign.string()});
    return f.wacamp(args);
}

// The entries `suppress list --json` prints, in order.
std::vector<json> listed(const CampaignFixture& f) {
    auto r = suppress(f, {"list", "--json"});
    CAPTURE(r.err);
    REQUIRE(r.exit_code == 0);
    std::vector<json> out;
    std::istringstream lines(r.out);
    for (std::string line; std::getline(lines, line);) {
        out.push_back(json::parse(line));
    }
    return out;
}

util::TimePoint since_of(const json& entry) {
    return util::parse_timestamp(entry["since"].get<std::string>(), util::TimestampSyntax::rfc3339).value();
}

}  // namespace

TEST_SUITE("e2e: suppress") {
    TEST_CASE("add then list: number, reason manual, since, source manual, as a table and as JSON lines") {
        Sandbox sandbox;
        CampaignFixture f(sandbox, numbers_csv(2));
        const auto before = std::chrono::system_clock::now() - std::chrono::milliseconds(1);
        // A national number takes the campaign's default_country (IN), as in the CSV.
        auto added = suppress(f, {"add", "98123 00001", "+91 98123 00000"});
        CAPTURE(added.err);
        CHECK(added.exit_code == 0);
        CHECK(contains(added.out, "2 numbers added to the suppression list, 0 already on it"));
        const auto after = std::chrono::system_clock::now();

        const auto entries = listed(f);
        REQUIRE(entries.size() == 2);
        CHECK(entries[0]["wa_id"] == numbers_wa_id(0));
        CHECK(entries[1]["wa_id"] == numbers_wa_id(1));
        for (const auto& e : entries) {
            CHECK(e["reason"] == "manual");
            CHECK(e["source"] == "manual");
            CHECK(e["since"].get<std::string>().ends_with("Z"));
            CHECK(since_of(e) >= before);
            CHECK(since_of(e) <= after);
        }

        auto table = suppress(f, {"list"});
        CHECK(table.exit_code == 0);
        CHECK(table.out.starts_with("NUMBER "));
        CHECK(contains(table.out, "REASON"));
        CHECK(contains(table.out, "SINCE"));
        CHECK(contains(table.out, "SOURCE\n"));
        const std::string row =
            "+" + numbers_wa_id(1) + "  manual  " + entries[1]["since"].get<std::string>() + "  manual\n";
        CHECK(contains(table.out, row));
        CHECK(std::count(table.out.begin(), table.out.end(), '\n') == 3);
    }

    TEST_CASE("--reason is kept, and an escape sequence in it is listed as printable text") {
        Sandbox sandbox;
        CampaignFixture f(sandbox, numbers_csv(1));
        auto added = suppress(f, {"add", "+919812300007", "--reason", "\x1b[31mcomplained by phone"});
        CAPTURE(added.err);
        REQUIRE(added.exit_code == 0);

        auto table = suppress(f, {"list"});
        CHECK(table.exit_code == 0);
        CHECK(contains(table.out, "+919812300007  \\x1b[31mcomplained by phone  "));
        CHECK_FALSE(contains(table.out, "\x1b"));

        auto lines = suppress(f, {"list", "--json"});
        CHECK_FALSE(contains(lines.out, "\x1b"));
        const auto entries = listed(f);
        REQUIRE(entries.size() == 1);
        CHECK(entries[0]["reason"] == "\x1b[31mcomplained by phone");
        CHECK(entries[0]["source"] == "manual");
    }

    TEST_CASE("adding a number twice says it was already on the list and keeps its first entry") {
        Sandbox sandbox;
        CampaignFixture f(sandbox, numbers_csv(1));
        REQUIRE(suppress(f, {"add", "+919812300003", "--reason", "first"}).exit_code == 0);
        auto again = suppress(f, {"add", "+91 98123 00003", "+919812300004", "--reason", "second"});
        CHECK(again.exit_code == 0);
        CHECK(contains(again.out, "1 number added to the suppression list, 1 already on it"));
        const auto entries = listed(f);
        REQUIRE(entries.size() == 2);
        CHECK(entries[0]["reason"] == "first");
        CHECK(entries[1]["reason"] == "second");
    }

    TEST_CASE("remove takes numbers off the list and counts those that were not on it") {
        Sandbox sandbox;
        CampaignFixture f(sandbox, numbers_csv(1));
        REQUIRE(suppress(f, {"add", "+919812300003", "+919812300004"}).exit_code == 0);
        auto removed = suppress(f, {"remove", "98123 00003", "+919812300009"});
        CAPTURE(removed.err);
        CHECK(removed.exit_code == 0);
        CHECK(contains(removed.out, "1 number removed from the suppression list, 1 not on it"));
        const auto entries = listed(f);
        REQUIRE(entries.size() == 1);
        CHECK(entries[0]["wa_id"] == "919812300004");
    }

    TEST_CASE("import: a phone column normalised with default_country; a bad row counted with its example") {
        Sandbox sandbox;
        CampaignFixture f(sandbox, numbers_csv(1));
        const auto csv =
            f.dir.write("do-not-contact.csv", "name,phone\nA,98123 00005\nB,not a number\nC,+44 7400 123456\n");
        auto imported = suppress(f, {"import", csv.string()});
        CAPTURE(imported.err);
        CHECK(imported.exit_code == 0);
        CHECK(contains(imported.out, "2 numbers read, 2 added to the suppression list, 0 already on it"));
        CHECK(contains(imported.err, "1 row of " + csv.string() + " holds no usable number"));
        CHECK(contains(imported.err, csv.string() + ":3: \"not a number\" is not a phone number"));
        auto entries = listed(f);
        REQUIRE(entries.size() == 2);
        CHECK(entries[0]["wa_id"] == "447400123456");
        CHECK(entries[1]["wa_id"] == "919812300005");
        for (const auto& e : entries) {
            CHECK(e["reason"] == "listed");
            CHECK(e["source"] == "file:do-not-contact.csv");
        }

        const auto more = f.dir.write("complaints.csv", "wa_id\n919812300005\n919812300006\n");
        auto again = suppress(f, {"import", more.string(), "--reason", "complaint"});
        CHECK(again.exit_code == 0);
        CHECK(contains(again.out, "2 numbers read, 1 added to the suppression list, 1 already on it"));
        entries = listed(f);
        REQUIRE(entries.size() == 3);
        CHECK(entries[2]["reason"] == "complaint");
        CHECK(entries[2]["source"] == "file:complaints.csv");
    }

    TEST_CASE("import of a file that cannot be read exits 2 naming it") {
        Sandbox sandbox;
        CampaignFixture f(sandbox, numbers_csv(1));
        const auto missing = (f.dir.path() / "missing.csv").string();
        auto r = suppress(f, {"import", missing});
        CHECK(r.exit_code == 2);
        CHECK(contains(r.err, missing));
        CHECK(r.out.empty());
    }

    TEST_CASE("import of a device or a FIFO exits 2 at once instead of reading forever or waiting for a writer") {
        Sandbox sandbox;
        CampaignFixture f(sandbox, numbers_csv(1));
        const auto fifo = f.dir.path() / "dnc.fifo";
        REQUIRE(::mkfifo(fifo.c_str(), 0600) == 0);
        for (const std::string& path : {std::string("/dev/zero"), fifo.string()}) {
            // A bound, not a timing claim: before the fix neither ever returned.
            auto r = run_program({"/usr/bin/timeout", "60", wacamp_path(), "suppress", "import", "--campaign",
                                  f.campaign.string(), path},
                                 f.env);
            CAPTURE(r.err);
            CHECK(r.exit_code == 2);
            CHECK(contains(r.err, path));
            CHECK(contains(r.err, "not a regular file"));
        }
    }

    TEST_CASE("--account with --ledger keeps the list in that file; without, the default ledger the campaign reads") {
        Sandbox sandbox;
        CampaignFixture f(sandbox, numbers_csv(1));
        const auto own = (f.dir.path() / "acme.sqlite").string();
        auto added = f.wacamp({"suppress", "add", "--account", "acme", "--ledger", own, "+919812300001"});
        CAPTURE(added.err);
        CHECK(added.exit_code == 0);
        CHECK(contains(added.out, "acme: 1 number added"));
        CHECK(std::filesystem::exists(own));
        CHECK_FALSE(std::filesystem::exists(default_ledger(f)));
        auto list = f.wacamp({"suppress", "list", "--account", "acme", "--ledger", own, "--json"});
        CHECK(list.exit_code == 0);
        CHECK(contains(list.out, "\"wa_id\":\"919812300001\""));
        CHECK(listed(f).empty());

        // The campaign's account is the service's host:port; its ledger the default one.
        const std::string account = "127.0.0.1:" + std::to_string(sandbox.port());
        REQUIRE(f.wacamp({"suppress", "add", "--account", account, "+919812300002"}).exit_code == 0);
        CHECK(std::filesystem::exists(default_ledger(f)));
        const auto entries = listed(f);
        REQUIRE(entries.size() == 1);
        CHECK(entries[0]["wa_id"] == "919812300002");
    }

    TEST_CASE("--account: a number without + exits 2 naming it, and nothing is written") {
        Sandbox sandbox;
        CampaignFixture f(sandbox, numbers_csv(1));
        const auto own = (f.dir.path() / "acme.sqlite").string();
        auto r = f.wacamp({"suppress", "add", "--account", "acme", "--ledger", own, "+919812300001", "919812300002"});
        CHECK(r.exit_code == 2);
        CHECK(contains(r.err, "\"919812300002\" does not start with +"));
        CHECK(contains(r.err, "nothing was changed"));
        CHECK_FALSE(contains(r.err, "\"+919812300001\""));
        CHECK_FALSE(std::filesystem::exists(own));

        auto bad = suppress(f, {"add", "+919812300001", "12345"});
        CHECK(bad.exit_code == 2);
        CHECK(contains(bad.err, "\"12345\""));
        CHECK(listed(f).empty());
    }

    TEST_CASE("--campaign and --account together, neither, or --ledger without --account exit 2") {
        Sandbox sandbox;
        CampaignFixture f(sandbox, numbers_csv(1));
        auto both =
            f.wacamp({"suppress", "add", "--campaign", f.campaign.string(), "--account", "acme", "+919812300001"});
        CHECK(both.exit_code == 2);
        CHECK(contains(both.err, "--campaign excludes --account"));
        auto neither = f.wacamp({"suppress", "list"});
        CHECK(neither.exit_code == 2);
        CHECK(contains(neither.err, "--campaign FILE or --account NAME"));
        auto ledger_alone = f.wacamp({"suppress", "list", "--ledger", (f.dir.path() / "x.sqlite").string()});
        CHECK(ledger_alone.exit_code == 2);
        CHECK(contains(ledger_alone.err, "--ledger requires --account"));
        CHECK_FALSE(std::filesystem::exists(default_ledger(f)));
    }

    TEST_CASE("a campaign with ledger: off exits 2 saying so") {
        Sandbox sandbox;
        CampaignFixture f(sandbox, numbers_csv(1), "account: {ledger: off}\n");
        const auto list = suppress(f, {"list"});
        CHECK(list.exit_code == 2);
        CHECK(contains(list.err, f.campaign.string() + ": account.ledger is off"));
        const auto add = suppress(f, {"add", "+919812300001"});
        CHECK(add.exit_code == 2);
        CHECK(contains(add.err, f.campaign.string() + ": account.ledger is off"));
        CHECK_FALSE(std::filesystem::exists(f.dir.path() / "state"));
    }

    TEST_CASE("a ledger that is not SQLite exits 2 naming it") {
        Sandbox sandbox;
        CampaignFixture f(sandbox, numbers_csv(1));
        const auto junk = f.dir.write("junk.sqlite", "not a database, not at all, just some text");
        const auto list = f.wacamp({"suppress", "list", "--account", "acme", "--ledger", junk.string()});
        CHECK(list.exit_code == 2);
        CHECK(contains(list.err, "ledger " + junk.string() + ": file is not a database"));
        const auto remove =
            f.wacamp({"suppress", "remove", "--account", "acme", "--ledger", junk.string(), "+919812300001"});
        CHECK(remove.exit_code == 2);
        CHECK(contains(remove.err, "ledger " + junk.string() + ": file is not a database"));
        CHECK(remove.out.empty());
    }

    TEST_CASE("list on a fresh account prints nothing and creates no ledger file") {
        Sandbox sandbox;
        CampaignFixture f(sandbox, numbers_csv(1));
        const auto table = suppress(f, {"list"});
        CAPTURE(table.err);
        CHECK(table.exit_code == 0);
        CHECK(table.out.empty());
        CHECK(table.err.empty());
        const auto lines = suppress(f, {"list", "--json"});
        CHECK(lines.exit_code == 0);
        CHECK(lines.out.empty());
        auto r = f.wacamp({"suppress", "list", "--account", "acme"});
        CHECK(r.exit_code == 0);
        CHECK(r.out.empty());
        CHECK_FALSE(std::filesystem::exists(f.dir.path() / "state"));
    }

    TEST_CASE("list of an account the ledger never saw says so on stderr, naming the known ones (exit 0)") {
        Sandbox sandbox;
        CampaignFixture f(sandbox, numbers_csv(1));
        const auto own = (f.dir.path() / "shared.sqlite").string();
        REQUIRE(f.wacamp({"suppress", "add", "--account", "acme", "--ledger", own, "+919812300001"}).exit_code == 0);
        auto r = f.wacamp({"suppress", "list", "--account", "acme-typo", "--ledger", own});
        CHECK(r.exit_code == 0);
        CHECK(r.out.empty());
        CHECK(contains(r.err, "account \"acme-typo\" has no history in ledger " + own));
        CHECK(contains(r.err, "1 other account(s): \"acme\""));
        auto known = f.wacamp({"suppress", "list", "--account", "acme", "--ledger", own});
        CHECK(known.exit_code == 0);
        CHECK(known.err.empty());
    }

    TEST_CASE("a manual opt-out holds whichever loopback name the base URL uses") {
        Sandbox sandbox;
        CampaignFixture f(sandbox, numbers_csv(3));
        REQUIRE(suppress(f, {"add", "+919812300001"}).exit_code == 0);  // account 127.0.0.1:PORT
        f.env["WACAMP_BASE_URL"] = "http://localhost:" + std::to_string(sandbox.port());
        auto run = f.wacamp({"run", f.campaign.string(), "--no-progress"});
        CAPTURE(run.out);
        CAPTURE(run.err);
        CHECK(run.exit_code == 0);
        CHECK(requests_for(sandbox, numbers_wa_id(1)) == 0);
        CHECK(delivered(sandbox).size() == 2);
        CHECK_FALSE(contains(run.err, "no history"));
        CHECK(contains(run.out, "account: 127.0.0.1:" + std::to_string(sandbox.port())));
    }

    TEST_CASE("a number added by hand is skipped by a run: cause suppressed, no request for it") {
        Sandbox sandbox;
        CampaignFixture f(sandbox, numbers_csv(4));
        auto added = suppress(f, {"add", "98123 00002", "--reason", "asked us to stop"});
        CAPTURE(added.err);
        REQUIRE(added.exit_code == 0);

        auto run = f.wacamp({"run", f.campaign.string(), "--no-progress"});
        CAPTURE(run.out);
        CAPTURE(run.err);
        CHECK(run.exit_code == 0);
        int skipped = 0;
        for (const auto& r : f.records()) {
            if (r.value("event", "") == "result" && r["row"] == 3) {
                ++skipped;
                CHECK(r["status"] == "skipped");
                CHECK(r["cause"] == "suppressed");
                CHECK(contains(r.value("error", ""), "asked us to stop"));
            }
        }
        CHECK(skipped == 1);
        CHECK(requests_for(sandbox, numbers_wa_id(2)) == 0);
        const auto sent = delivered(sandbox);
        CHECK(sent.size() == 3);
        CHECK_FALSE(sent.contains(numbers_wa_id(2)));

        // Taken off the list, the number is sent on the next run of a new campaign.
        REQUIRE(suppress(f, {"remove", "+919812300002"}).exit_code == 0);
        std::filesystem::remove(f.log);
        auto again = f.wacamp({"run", f.campaign.string(), "--no-progress"});
        CHECK(again.exit_code == 0);
        CHECK(requests_for(sandbox, numbers_wa_id(2)) == 1);
    }
}
