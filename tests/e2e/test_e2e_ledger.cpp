// The account's ledger, end to end: campaigns of one account share what must hold across them
// (opt-outs, undeliverable numbers, a do-not-contact list, rate.per_recipient, rate.per_day, the
// marketing-limit hold), also when two of them run at once.

#include <doctest/doctest.h>
#include <fmt/format.h>
#include <csignal>
#include <sstream>
#include <thread>

#include "fixtures.hpp"
#include "ledger_probe.hpp"
#include "ledger_recovery.hpp"

using namespace e2e;
using nlohmann::json;

namespace {

// A second campaign of the same account (same sandbox, same ledger as `first`), named `name`.
void share_ledger(CampaignFixture& second, const CampaignFixture& first, const std::string& name) {
    second.env["XDG_STATE_HOME"] = first.env.at("XDG_STATE_HOME");
    edit_campaign(second, "name: e2e", "name: " + name);
}

std::filesystem::path ledger_of(const CampaignFixture& f) {
    return std::filesystem::path(f.env.at("XDG_STATE_HOME")) / "wacamp" / "ledger.sqlite";
}

std::string account_of(const Sandbox& sandbox) {
    return fmt::format("127.0.0.1:{}", sandbox.port());
}

std::string meta_error(int i, const std::string& code) {
    return numbers_wa_id(i) + "=" + code;
}

// numbers_csv's rows with the photo and discount the sandbox's spring_sale template needs.
std::string offers_csv(int count) {
    std::string csv = "phone,name,user_id,photo,discount\n";
    for (int i = 0; i < count; ++i) {
        csv += fmt::format("+{},Person {},u-{},p{}.jpg,{}%\n", numbers_wa_id(i), i, i, i, 10 + i);
    }
    return csv;
}

// How many sends of either kind (send-message, send-template) the sandbox journaled for `wa_id`.
int sends_to(const Sandbox& sandbox, const std::string& wa_id) {
    int n = 0;
    for (const auto& j : sandbox.journal()) {
        const std::string path = j.value("path", "");
        const bool send = path.ends_with("/send-message") || path.ends_with("/send-template");
        n += send && j.value("wa_id", "") == wa_id ? 1 : 0;
    }
    return n;
}

// Sets `assignments` on the send of `wa_id` in the SQLite ledger at `path`.
void update_send_in(const std::filesystem::path& path, const std::string& wa_id, const std::string& assignments) {
    sqlite3* db = nullptr;
    REQUIRE(sqlite3_open(path.c_str(), &db) == SQLITE_OK);
    sqlite3_busy_timeout(db, 5000);
    const std::string sql = "UPDATE sends SET " + assignments + " WHERE wa_id = '" + wa_id + "'";
    const int rc = sqlite3_exec(db, sql.c_str(), nullptr, nullptr, nullptr);
    const int changed = sqlite3_changes(db);
    sqlite3_close(db);
    REQUIRE(rc == SQLITE_OK);
    REQUIRE(changed == 1);
}

// How many sends of the SQLite ledger at `path` match `condition`.
int count_sends_in(const std::filesystem::path& path, const std::string& condition) {
    sqlite3* db = nullptr;
    REQUIRE(sqlite3_open_v2(path.c_str(), &db, SQLITE_OPEN_READONLY, nullptr) == SQLITE_OK);
    sqlite3_busy_timeout(db, 5000);
    sqlite3_stmt* statement = nullptr;
    const std::string sql = "SELECT count(*) FROM sends WHERE " + condition;
    int count = -1;
    if (sqlite3_prepare_v2(db, sql.c_str(), -1, &statement, nullptr) == SQLITE_OK &&
        sqlite3_step(statement) == SQLITE_ROW) {
        count = sqlite3_column_int(statement, 0);
    }
    sqlite3_finalize(statement);
    sqlite3_close(db);
    REQUIRE(count >= 0);
    return count;
}

// Makes the ledger at `path` hold `wa_id`'s send as reserved again, as a power cut between the
// request and its answer's record would leave it: reserved, and no run's mark passes it.
void unconfirm_in(const std::filesystem::path& path, const std::string& wa_id) {
    update_send_in(path, wa_id, "state = 'reserved', run = 0");
}

}  // namespace

TEST_SUITE("e2e: ledger") {
    TEST_CASE(
        "a second campaign skips the first one's opt-outs and undeliverable numbers; its dry run and "
        "validate count them and write nothing") {
        Sandbox sandbox({"--meta-error", meta_error(1, "131050"), "--meta-error", meta_error(2, "131026")});
        CampaignFixture first(sandbox, numbers_csv(5), "suppression: {undeliverable_after: 1}\n");
        auto r = first.wacamp({"run", first.campaign.string(), "--no-progress"});
        CAPTURE(r.err);
        CHECK(r.exit_code == 1);
        const LedgerProbe ledger(ledger_of(first), account_of(sandbox));
        auto listed = ledger.suppressions();
        REQUIRE(listed.size() == 2);
        CHECK(listed[numbers_wa_id(1)].reason == "opted_out");
        CHECK(listed[numbers_wa_id(1)].source == "campaign:e2e");
        CHECK(listed[numbers_wa_id(2)].reason == "undeliverable");
        CHECK(ledger.sends().size() == 3);  // the three delivered; the two refused were released

        CampaignFixture second(sandbox, numbers_csv(6));
        share_ledger(second, first, "second");
        const std::string before = ledger.bytes();
        auto checked = second.wacamp({"validate", second.campaign.string()});
        CAPTURE(checked.out);
        CHECK(checked.exit_code == 0);
        CHECK(contains(checked.out, "would hold back 2 now: suppressed 2"));
        auto dry = second.wacamp({"run", second.campaign.string(), "--dry-run"});
        CAPTURE(dry.out);
        CAPTURE(dry.err);
        CHECK(dry.exit_code == 0);
        CHECK(contains(dry.out, "would send 4 · invalid 0 · skipped 2 (suppressed 2)"));
        const auto dry_log = read_jsonl(second.dir.path() / "results" / "e2e.dry-run.jsonl");
        int dry_suppressed = 0;
        for (const auto& rec : dry_log) {
            dry_suppressed += rec.value("cause", "") == "suppressed" && rec.value("status", "") == "skipped" ? 1 : 0;
        }
        CHECK(dry_suppressed == 2);
        CHECK(ledger.bytes() == before);  // read, never written

        auto run = second.wacamp({"run", second.campaign.string(), "--no-progress"});
        CAPTURE(run.err);
        CHECK(run.exit_code == 0);
        for (const int i : {1, 2}) {
            const auto rec = result_of(second, i + 1);
            CAPTURE(rec.dump());
            CHECK(rec["status"] == "skipped");
            CHECK(rec["cause"] == "suppressed");
            CHECK(contains(rec.value("error", ""), "suppression list"));
            CHECK(requests_for(sandbox, numbers_wa_id(i)) == 1);  // the first campaign's only
        }
        CHECK(result_of(second, 6)["status"] == "sent");
        CHECK(delivered(sandbox)[numbers_wa_id(0)] == 2);  // no limit set: messaged by both
    }

    TEST_CASE("a do-not-contact file: its numbers are skipped however written, a row without one is warned of") {
        Sandbox sandbox;
        CampaignFixture f(sandbox, numbers_csv(6), "suppression:\n  files: [do-not-contact.csv]\n");
        f.dir.write("do-not-contact.csv", "name,phone\nA,98123 00001\nB,+" + numbers_wa_id(3) + "\nC,not a number\n");
        auto r = f.wacamp({"run", f.campaign.string(), "--no-progress"});
        CAPTURE(r.out);
        CAPTURE(r.err);
        CHECK(r.exit_code == 0);
        CHECK(contains(r.out + r.err, "1 row of"));
        for (const int i : {1, 3}) {
            const auto rec = result_of(f, i + 1);
            CAPTURE(rec.dump());
            CHECK(rec["status"] == "skipped");
            CHECK(rec["cause"] == "suppressed");
            CHECK(requests_for(sandbox, numbers_wa_id(i)) == 0);
        }
        CHECK(once_each(delivered(sandbox), 4) == "");
        const LedgerProbe ledger(ledger_of(f), account_of(sandbox));
        auto listed = ledger.suppressions();
        REQUIRE(listed.size() == 2);
        CHECK(listed[numbers_wa_id(1)].reason == "listed");
        CHECK(listed[numbers_wa_id(1)].source == "file:do-not-contact.csv");

        // The report names the cause.
        auto report = f.wacamp({"report", f.log.string()});
        CHECK(contains(report.out, "suppressed"));
    }

    TEST_CASE("progress counts the rows the ledger holds back, by cause, and not as remaining") {
        Sandbox sandbox;
        CampaignFixture f(sandbox, numbers_csv(6), "suppression:\n  files: [do-not-contact.csv]\n");
        f.dir.write("do-not-contact.csv", "wa_id\n" + numbers_wa_id(0) + "\n" + numbers_wa_id(1) + "\n");
        auto r = f.wacamp({"run", f.campaign.string(), "--log-format", "json"});
        CAPTURE(r.err);
        CHECK(r.exit_code == 0);
        std::vector<json> progress;
        std::istringstream lines(r.err);
        for (std::string line; std::getline(lines, line);) {
            auto j = json::parse(line, nullptr, false);
            if (!j.is_discarded() && j.value("event", "") == "progress") {
                progress.push_back(j);
            }
        }
        REQUIRE_FALSE(progress.empty());
        // Rows 1 and 2 are held back before the first job leaves: 4 remain, not 6.
        CHECK(progress[0]["held_back"]["suppressed"] == 2);
        CHECK(progress[0]["remaining"] == 4);
        const auto summary = json::parse(r.out);
        CHECK(summary["causes"]["suppressed"] == 2);
    }

    TEST_CASE("rate.per_recipient: numbers another campaign of the account messaged within the window are skipped") {
        Sandbox sandbox;
        CampaignFixture first(sandbox, numbers_csv(4));
        REQUIRE(first.wacamp({"run", first.campaign.string(), "--no-progress"}).exit_code == 0);
        CampaignFixture second(sandbox, numbers_csv(6), "rate: {per_second: 50, per_recipient: {max: 1, per: 7d}}\n");
        share_ledger(second, first, "second");
        auto r = second.wacamp({"run", second.campaign.string(), "--no-progress"});
        CAPTURE(r.out);
        CAPTURE(r.err);
        CHECK(r.exit_code == 0);
        for (int i = 0; i < 6; ++i) {
            const auto rec = result_of(second, i + 1);
            CAPTURE(rec.dump());
            CHECK(rec["status"] == (i < 4 ? "skipped" : "sent"));
            if (i < 4) {
                CHECK(rec["cause"] == "frequency_cap");
                CHECK(contains(rec.value("error", ""), "rate.per_recipient"));
            }
        }
        CHECK(once_each(delivered(sandbox), 6) == "");
        CHECK(contains(r.out + r.err, "frequency_cap 4"));
    }

    TEST_CASE("rate.per_day counts the account: the second campaign pauses when the day is full, saying until when") {
        Sandbox sandbox;
        CampaignFixture first(sandbox, numbers_csv(4));
        REQUIRE(first.wacamp({"run", first.campaign.string(), "--no-progress"}).exit_code == 0);
        CampaignFixture second(sandbox, numbers_csv(4, 10), "rate: {per_second: 50, per_day: 5}\n");
        share_ledger(second, first, "second");
        Background run({"run", second.campaign.string(), "--no-progress"}, second.env);
        const bool paused = wait_until([&] { return contains(run.out() + run.err(), "daily cap"); });
        CHECK(paused);
        std::this_thread::sleep_for(std::chrono::milliseconds(300));
        run.signal(SIGINT);
        CHECK(run.wait() == 3);
        CAPTURE(run.out());
        CAPTURE(run.err());
        CHECK(contains(run.out() + run.err(), "until"));
        CHECK(total_delivered(sandbox) == 5);
        CHECK(status_counts(second)["sent"] == 1);
        const LedgerProbe ledger(ledger_of(first), account_of(sandbox));
        CHECK(ledger.sends().size() == 5);
    }

    TEST_CASE(
        "a marketing-limit answer holds the number 24 h: not retried by a resume, nor sent by the next "
        "campaign") {
        Sandbox sandbox({"--meta-error", meta_error(2, "131049")});
        CampaignFixture first(sandbox, numbers_csv(4));
        auto r = first.wacamp({"run", first.campaign.string(), "--no-progress"});
        CHECK(r.exit_code == 1);
        CHECK(result_of(first, 3)["cause"] == "marketing_limit");
        auto resumed = first.wacamp({"resume", first.log.string(), "--retry-failed", "--no-progress"});
        CAPTURE(resumed.out);
        CAPTURE(resumed.err);
        CHECK(requests_for(sandbox, numbers_wa_id(2)) == 1);

        CampaignFixture second(sandbox, numbers_csv(4));
        share_ledger(second, first, "second");
        auto again = second.wacamp({"run", second.campaign.string(), "--no-progress"});
        CAPTURE(again.out);
        CAPTURE(again.err);
        const auto rec = result_of(second, 3);
        CAPTURE(rec.dump());
        CHECK(rec["status"] == "failed");
        CHECK(rec["cause"] == "marketing_limit");
        CHECK(contains(rec.value("error", ""), "held until"));
        CHECK(requests_for(sandbox, numbers_wa_id(2)) == 1);
        CHECK(delivered(sandbox)[numbers_wa_id(3)] == 2);
    }

    TEST_CASE(
        "a marketing-limit hold keeps the number from text and MARKETING template campaigns, not from a UTILITY "
        "template's") {
        Sandbox sandbox({"--meta-error", meta_error(2, "131049x1")});
        CampaignFixture first(sandbox, offers_csv(4));
        auto r = first.wacamp({"run", first.campaign.string(), "--no-progress"});
        CAPTURE(r.err);
        CHECK(r.exit_code == 1);
        REQUIRE(result_of(first, 3)["cause"] == "marketing_limit");

        const std::string text = "message:\n  type: text\n  text: \"Hi {{name}}\"\n";
        const std::string spring_sale =  // the sandbox's MARKETING template
            "message:\n  type: template\n  template: spring_sale\n"
            "  header: {image: \"https://cdn.example.com/offers/{{photo}}\"}\n"
            "  body: [\"{{name}}\", \"{{discount}}\"]\n";
        for (const auto& [name, message] : {std::pair{"text", text}, std::pair{"marketing", spring_sale}}) {
            CAPTURE(name);
            CampaignFixture held(sandbox, offers_csv(4), "", message);
            share_ledger(held, first, name);
            auto run = held.wacamp({"run", held.campaign.string(), "--no-progress"});
            CAPTURE(run.out);
            CAPTURE(run.err);
            CHECK(run.exit_code == 1);
            const auto rec = result_of(held, 3);
            CAPTURE(rec.dump());
            CHECK(rec["status"] == "failed");
            CHECK(rec["cause"] == "marketing_limit");
            CHECK(contains(rec.value("error", ""), "held until"));
            CHECK(result_of(held, 4)["status"] == "sent");
        }
        CHECK(sends_to(sandbox, numbers_wa_id(2)) == 1);  // the first campaign's only

        // thank_you is a UTILITY template: 131049 holds do not apply to it.
        CampaignFixture utility(sandbox, offers_csv(4), "", "message:\n  type: template\n  template: thank_you\n");
        share_ledger(utility, first, "utility");
        auto sent = utility.wacamp({"run", utility.campaign.string(), "--no-progress"});
        CAPTURE(sent.out);
        CAPTURE(sent.err);
        CHECK(sent.exit_code == 0);
        CHECK(result_of(utility, 3)["status"] == "sent");
        CHECK(sends_to(sandbox, numbers_wa_id(2)) == 2);
    }

    TEST_CASE("an opt-out met by one campaign, or added by hand, holds back another campaign already running") {
        Sandbox sandbox({"--meta-error", meta_error(7, "131050")});
        // per_recipient max 1 too: the 131050 gives its slot back, the suppression must still hold.
        CampaignFixture slow(sandbox, numbers_csv(10),
                             "rate: {per_second: 1, burst: 1, per_recipient: {max: 1, per: 7d}}\n");
        CampaignFixture quick(sandbox, numbers_csv(1, 7));
        share_ledger(quick, slow, "quick");
        const MidRunOptOut run = run_opt_out_midway(slow, quick);
        check_opt_out_midway(sandbox, slow, run);
        CHECK(contains(result_of(slow, 9).value("error", ""), "manual"));
        CHECK(delivered(sandbox)[numbers_wa_id(9)] == 1);
    }

    TEST_CASE("two campaigns running at once on one ledger never exceed rate.per_recipient together") {
        Sandbox sandbox({"--latency", "15"});
        const int n = 40;
        const std::string rate = "rate: {per_second: 100, concurrency: 4, per_recipient: {max: 1, per: 7d}}\n";
        CampaignFixture first(sandbox, numbers_csv(n), rate);
        CampaignFixture second(sandbox, numbers_csv(n), rate);
        share_ledger(second, first, "second");
        Background a({"run", first.campaign.string(), "--no-progress"}, first.env);
        Background b({"run", second.campaign.string(), "--no-progress"}, second.env);
        CHECK(a.wait() == 0);
        CHECK(b.wait() == 0);
        CAPTURE(a.err());
        CAPTURE(b.err());
        CHECK(once_each(delivered(sandbox), n) == "");
        const int sent = status_counts(first)["sent"] + status_counts(second)["sent"];
        CHECK(sent == n);
        CHECK(status_counts(first)["skipped"] + status_counts(second)["skipped"] == n);
        MESSAGE(fmt::format("per_recipient across two runners: {} sent by the first, {} by the second",
                            status_counts(first)["sent"], status_counts(second)["sent"]));
        const LedgerProbe ledger(ledger_of(first), account_of(sandbox));
        CHECK(ledger.sends().size() == static_cast<size_t>(n));
    }

    TEST_CASE("two campaigns running at once on one ledger never exceed rate.per_day together") {
        Sandbox sandbox({"--latency", "15"});
        const std::string rate = "rate: {per_second: 40, concurrency: 2, per_day: 40}\n";
        CampaignFixture first(sandbox, numbers_csv(30), rate);
        CampaignFixture second(sandbox, numbers_csv(30, 30), rate);
        share_ledger(second, first, "second");
        const PairRun pair = run_pair_to_daily_cap(sandbox, first, second, 40);
        CAPTURE(pair.err_first);
        CAPTURE(pair.err_second);
        CHECK(pair.capped);
        CHECK((pair.code_first == 0 || pair.code_first == 3));
        CHECK((pair.code_second == 0 || pair.code_second == 3));
        CHECK(total_delivered(sandbox) == 40);
        CHECK(status_counts(first)["sent"] + status_counts(second)["sent"] == 40);
        const LedgerProbe ledger(ledger_of(first), account_of(sandbox));
        CHECK(ledger.sends().size() == 40);
    }

    TEST_CASE(
        "a run whose account is new to a ledger of other accounts warns, naming them; the summary names its own") {
        Sandbox sandbox;
        CampaignFixture f(sandbox, numbers_csv(2));
        const auto ledger = ledger_of(f).string();
        REQUIRE(f.wacamp({"suppress", "add", "--account", "acme", "--ledger", ledger, "+919812300009"}).exit_code == 0);
        auto r = f.wacamp({"run", f.campaign.string(), "--no-progress"});
        CAPTURE(r.out);
        CAPTURE(r.err);
        CHECK(r.exit_code == 0);
        CHECK(contains(r.err, "account \"" + account_of(sandbox) + "\" has no history in ledger " + ledger));
        CHECK(contains(r.err, "\"acme\""));
        CHECK(contains(r.out, "account: " + account_of(sandbox) + " (ledger " + ledger + ")"));

        // Its history begun, the next run of the account does not warn; in JSON both are fields.
        std::filesystem::remove(f.log);
        auto again = f.wacamp({"run", f.campaign.string(), "--log-format", "json"});
        CAPTURE(again.err);
        CHECK(again.exit_code == 0);
        CHECK_FALSE(contains(again.err, "no history"));
        CHECK(json::parse(again.out)["account"] == account_of(sandbox));
    }

    TEST_CASE("in JSON the new-account warning is a diagnostic line; without a ledger the summary names no account") {
        Sandbox sandbox;
        CampaignFixture f(sandbox, numbers_csv(1));
        REQUIRE(f.wacamp({"suppress", "add", "--account", "acme", "--ledger", ledger_of(f).string(), "+919812300009"})
                    .exit_code == 0);
        auto r = f.wacamp({"run", f.campaign.string(), "--log-format", "json"});
        CAPTURE(r.err);
        CHECK(r.exit_code == 0);
        bool warned = false;
        std::istringstream lines(r.err);
        for (std::string line; std::getline(lines, line);) {
            const auto j = json::parse(line, nullptr, false);
            warned = warned || (!j.is_discarded() && j.value("level", "") == "warning" &&
                                contains(j.value("message", ""), "has no history") &&
                                contains(j.value("message", ""), "\"acme\""));
        }
        CHECK(warned);

        CampaignFixture off(sandbox, numbers_csv(1), "account: {ledger: off}\n");
        auto plain = off.wacamp({"run", off.campaign.string(), "--log-format", "json"});
        CHECK(plain.exit_code == 0);
        CHECK(json::parse(plain.out)["account"].is_null());
    }
    TEST_CASE(
        "a restored older copy of the log: the rows it lacks are recovered from the ledger as sent, never resent") {
        Sandbox sandbox;
        CampaignFixture f(sandbox, numbers_csv(k_recovery_rows), k_recovery_rate);
        check_restored_log(sandbox, f);
    }
    TEST_CASE("a send written once: a finished run's delivered rows are their reservations alone, each read as sent") {
        Sandbox sandbox;
        CampaignFixture f(sandbox, numbers_csv(k_recovery_rows), k_recovery_rate);
        auto run = f.wacamp({"run", f.campaign.string(), "--no-progress"});
        CAPTURE(run.err);
        REQUIRE(run.exit_code == 0);
        // A delivered answer wrote nothing when its run's mark could pass its reservation
        // (docs/ledger.md "A send written once"); the last answers of the run always can.
        const int written_once = count_sends_in(ledger_of(f), "state = 'reserved' AND run <> 0");
        MESSAGE(fmt::format("a send written once: {} of {} rows are their reservations alone", written_once,
                            k_recovery_rows));
        CHECK(written_once >= 1);
        const LedgerProbe probe(ledger_of(f), account_of(sandbox));
        const auto sends = probe.sends();
        CHECK(sends.size() == static_cast<std::size_t>(k_recovery_rows));
        for (const auto& send : sends) {
            CAPTURE(send.row);
            CHECK(send.state == "sent");
        }
        // A run of the campaign again finds every row sent in the ledger and sends nothing.
        auto again = f.wacamp({"run", f.campaign.string(), "--no-progress"});
        CHECK(again.exit_code == 0);
        CHECK(once_each(delivered(sandbox), k_recovery_rows) == "");
    }
    TEST_CASE("a log cut at a line boundary: a plain run and --resend-unknown send none of its lost rows again") {
        Sandbox sandbox;
        CampaignFixture f(sandbox, numbers_csv(k_recovery_rows), "rate: {per_second: 50}\n");
        check_shortened_log(sandbox, f);
    }
    TEST_CASE(
        "a reservation the log holds no record of is recovered as unknown; --resend-unknown sends it under max 1") {
        Sandbox sandbox;
        CampaignFixture f(sandbox, numbers_csv(k_recovery_rows), k_recovery_rate);
        check_reserved_without_record(sandbox, f, [&](const std::string& wa_id) { unconfirm_in(ledger_of(f), wa_id); });
    }
    TEST_CASE("an older log whose failed request was retried: its failure releases nothing, the row is never resent") {
        Sandbox sandbox;
        CampaignFixture f(sandbox, numbers_csv(k_recovery_rows), "rate: {per_second: 50}\n");
        check_older_log_after_retry(sandbox, f, [&](const std::string& wa_id) {
            update_send_in(ledger_of(f), wa_id, "state = 'reserved', run = 0, attempt = 2");
        });
    }
    TEST_CASE("two copies of one log resumed at once: the ledger gives each row to one run, no number twice") {
        Sandbox sandbox;
        CampaignFixture f(sandbox, numbers_csv(k_copies_rows), k_copies_rate);
        check_copies_resumed_at_once(sandbox, f);
    }
    TEST_CASE(
        "stopped (SIGSTOP) past the reservations' use-by time at a paced rate: each number once, none left reserved") {
        // Jobs reserved ahead wait at the pace; stopped for 3 s they outlive their 2 s use-by
        // time, are given back and reserved again, taking their own reservations back.
        Sandbox sandbox;
        const int n = 300;
        CampaignFixture f(sandbox, numbers_csv(n), "rate: {per_second: 100}\n");
        Background run({"run", f.campaign.string(), "--no-progress"}, f.env);
        for (int i = 0; i < 5000 && count_events(f, "result") < 50; ++i) {
            std::this_thread::sleep_for(std::chrono::milliseconds(2));
        }
        run.signal(SIGSTOP);
        std::this_thread::sleep_for(std::chrono::seconds(3));
        run.signal(SIGCONT);
        CHECK(run.wait() == 0);
        CAPTURE(run.err());
        CHECK(once_each(delivered(sandbox), n) == "");
        CHECK(status_counts(f)["sent"] == n);
        const LedgerProbe ledger(ledger_of(f), account_of(sandbox));
        const auto sends = ledger.sends();
        CHECK(sends.size() == static_cast<size_t>(n));
        for (const auto& send : sends) {
            CAPTURE(send.row);
            CHECK(send.state == "sent");
        }
    }
}
