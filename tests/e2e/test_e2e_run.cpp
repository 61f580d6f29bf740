#include <doctest/doctest.h>

#include <fmt/format.h>
#include <algorithm>
#include <csignal>
#include <fstream>
#include <thread>

#include "fixtures.hpp"

using namespace e2e;

TEST_SUITE("e2e: run") {
    TEST_CASE("sends every row once, records each result, exits 0") {
        Sandbox sandbox;
        CampaignFixture f(sandbox, numbers_csv(20), "rate: {per_second: 200, concurrency: 4}\n");
        auto r = f.wacamp({"run", f.campaign.string(), "--no-progress"});
        CHECK(r.exit_code == 0);
        auto sent = delivered(sandbox);
        CHECK(sent.size() == 20);
        for (const auto& [wa_id, times] : sent) {
            CHECK(times == 1);
        }
        auto status = f.final_status();
        CHECK(status.size() == 20);
        for (const auto& [row, s] : status) {
            CHECK(s == "sent");
        }
        auto records = f.records();
        REQUIRE(!records.empty());
        CHECK(records.front()["event"] == "campaign");
        CHECK(records.back()["event"] == "end");
        CHECK(records.back()["reason"] == "completed");
        CHECK(r.out.find("sent 20") != std::string::npos);
    }
    TEST_CASE("a list with too many invalid rows is refused before any request and before the prompt") {
        Sandbox sandbox;
        CampaignFixture f(sandbox, seven_formats_csv(300), "rate: {per_second: 200, concurrency: 4}\n");
        edit_campaign(f, "  default_country: IN\n", "");
        auto r = f.wacamp({"run", f.campaign.string(), "--no-progress"});
        CAPTURE(r.err);
        CHECK(r.exit_code == 2);
        CHECK(contains(r.err, "more than abort.max_invalid_share (5.0%) allows: nothing is sent"));
        CHECK(contains(r.err, "set recipients.default_country: IN"));
        CHECK(sandbox.journal().empty());
        CHECK_FALSE(std::filesystem::exists(f.log));
        auto t = on_terminal(f, {"run", f.campaign.string()}, "y\n");
        CAPTURE(t.out);
        CHECK(t.exit_code == 2);
        CHECK_FALSE(contains(t.out, "[y/N]"));
        CHECK(sandbox.journal().empty());
    }
    TEST_CASE("a campaign begun with its list is continued, not refused halfway; a changed list is checked again") {
        Sandbox sandbox;
        std::string csv = numbers_csv(20);
        for (int i = 0; i < 11; ++i) {
            csv += fmt::format("12345{},Bad,u{}\n", i, i);
        }
        CampaignFixture f(sandbox, csv, "rate: {per_second: 200, concurrency: 2}\nabort: {max_invalid_share: 0.5}\n");
        REQUIRE(f.wacamp({"run", f.campaign.string(), "--no-progress", "--limit", "5"}).exit_code == 0);
        CHECK(delivered(sandbox).size() == 5);
        edit_campaign(f, "abort: {max_invalid_share: 0.5}\n", "");
        auto continued = f.wacamp({"run", f.campaign.string(), "--no-progress", "--force"});
        CAPTURE(continued.err);
        CHECK(continued.exit_code == 0);
        CHECK(delivered(sandbox).size() == 20);
        std::ofstream(f.csv, std::ios::app) << "123459,Bad,u99\n";
        auto changed = f.wacamp({"run", f.campaign.string(), "--no-progress", "--force"});
        CHECK(changed.exit_code == 2);
        CHECK(contains(changed.err, "12 of 32 rows of"));
    }
    TEST_CASE("a proxy named in the environment carries the requests") {
        // libcurl is told "no proxy" only when no proxy variable is set (to spare it looking
        // them up at every request); with one set, requests go to that proxy: here a port
        // where nothing listens, so none reaches the sandbox.
        Sandbox sandbox;
        CampaignFixture f(sandbox, numbers_csv(2), "retry: {max_attempts: 1}\n");
        f.env["http_proxy"] = "http://127.0.0.1:1";
        auto r = f.wacamp({"run", f.campaign.string(), "--no-progress"});
        CHECK(r.exit_code != 0);
        CHECK(delivered(sandbox).empty());
        f.env.erase("http_proxy");
        f.env["no_proxy"] = "127.0.0.1";  // a variable set, but not for this host
        CHECK(f.wacamp({"resume", f.log.string(), "--no-progress"}).exit_code == 0);
        CHECK(delivered(sandbox).size() == 2);
    }

    TEST_CASE("an attempt line precedes every request's result") {
        Sandbox sandbox;
        CampaignFixture f(sandbox, numbers_csv(5));
        REQUIRE(f.wacamp({"run", f.campaign.string()}).exit_code == 0);
        std::map<long long, int> attempts;
        for (const auto& rec : f.records()) {
            if (rec["event"] == "attempt") {
                ++attempts[rec["row"].get<long long>()];
            } else if (rec["event"] == "result") {
                CHECK(attempts[rec["row"].get<long long>()] == 1);
                CHECK(rec.contains("message_id"));
                CHECK(rec["http_status"] == 200);
            }
        }
        CHECK(attempts.size() == 5);
    }
    TEST_CASE("a second run of a finished campaign sends nothing and exits 0") {
        Sandbox sandbox;
        CampaignFixture f(sandbox, numbers_csv(6));
        REQUIRE(f.wacamp({"run", f.campaign.string()}).exit_code == 0);
        auto lines_before = f.records().size();
        auto again = f.wacamp({"run", f.campaign.string()});
        CHECK(again.exit_code == 0);
        CHECK(again.out.find("already complete") != std::string::npos);
        CHECK(delivered(sandbox).size() == 6);
        CHECK(f.records().size() == lines_before);
    }
    TEST_CASE("--limit sends the first N; the next run sends the rest") {
        Sandbox sandbox;
        CampaignFixture f(sandbox, numbers_csv(7));
        for (const std::string bad : {"0", "-1", "x", "1.5"}) {
            auto refused = f.wacamp({"run", f.campaign.string(), "--limit", bad});
            CAPTURE(refused.err);
            CHECK(refused.exit_code == 2);
            CHECK(contains(refused.err, "--limit: must be a whole number of 1 or more, got " + bad));
            CHECK(delivered(sandbox).empty());
        }
        auto first = f.wacamp({"run", f.campaign.string(), "--limit", "3"});
        CHECK(first.exit_code == 0);
        CHECK(delivered(sandbox).size() == 3);
        CHECK(delivered(sandbox).count(numbers_wa_id(0)) == 1);
        auto rest = f.wacamp({"run", f.campaign.string()});
        CHECK(rest.exit_code == 0);
        auto sent = delivered(sandbox);
        CHECK(sent.size() == 7);
        for (const auto& [wa_id, times] : sent) {
            CHECK(times == 1);
        }
    }
    TEST_CASE("bad rows are recorded with their reason and good rows go out") {
        Sandbox sandbox;
        std::string csv =
            "phone,name,user_id\n"
            "+919812300001,Asha,u1\n"
            "12345,Short,u2\n"
            "+919812300001,Asha again,u3\n"
            "+919812300004,,u4\n"
            "+919812300005,Kiran,u5\n";
        CampaignFixture f(sandbox, csv);
        auto r = f.wacamp({"run", f.campaign.string()});
        CHECK(r.exit_code == 0);
        auto status = f.final_status();
        CHECK(status[1] == "sent");
        CHECK(status[2] == "invalid");
        CHECK(status[3] == "skipped");
        CHECK(status[4] == "invalid");
        CHECK(status[5] == "sent");
        CHECK(delivered(sandbox).size() == 2);
        for (const auto& rec : f.records()) {
            if (rec["event"] == "result" && rec["row"] == 2) {
                CHECK(rec["wa_id"] == "");  // not the previous row's number
                CHECK(rec["user_name"] == "");
                CHECK(rec["cause"] == "invalid");
                CHECK(rec["error"].get<std::string>().find("12345") != std::string::npos);
            }
            if (rec["event"] == "result" && rec["row"] == 3) {
                CHECK(rec["cause"] == "duplicate");
                CHECK(rec["error"] == "duplicate of row 1");
            }
        }
    }
    TEST_CASE("a changed CSV is refused without --force, and --force never resends") {
        Sandbox sandbox;
        CampaignFixture f(sandbox, numbers_csv(4));
        REQUIRE(f.wacamp({"run", f.campaign.string()}).exit_code == 0);
        // A new first row shifts every row number; numbers already sent must still not get a second message.
        f.dir.write("recipients.csv", "phone,name,user_id\n+919812399999,New,u9\n" + numbers_csv(4).substr(19));
        auto refused = f.wacamp({"run", f.campaign.string()});
        CHECK(refused.exit_code == 2);
        CHECK(refused.err.find("--force") != std::string::npos);
        CHECK(delivered(sandbox).size() == 4);
        auto forced = f.wacamp({"run", f.campaign.string(), "--force"});
        CHECK(forced.exit_code == 0);
        auto sent = delivered(sandbox);
        CHECK(sent.size() == 5);
        for (const auto& [wa_id, times] : sent) {
            CHECK(times == 1);
        }
    }
    TEST_CASE("rejected numbers fail once and are retried only with --retry-failed") {
        Sandbox sandbox({"--reject-number", numbers_wa_id(1)});
        CampaignFixture f(sandbox, numbers_csv(3));
        auto r = f.wacamp({"run", f.campaign.string()});
        CHECK(r.exit_code == 1);
        CHECK(f.final_status()[2] == "failed");
        auto resumed = f.wacamp({"resume", f.log.string()});
        CHECK(resumed.exit_code == 1);
        CHECK(resumed.out.find("--retry-failed") != std::string::npos);
        auto rejected_requests = [&] {
            int n = 0;
            for (const auto& j : sandbox.journal()) {
                n += j.value("wa_id", "") == numbers_wa_id(1) ? 1 : 0;
            }
            return n;
        };
        CHECK(rejected_requests() == 1);
        auto retried = f.wacamp({"resume", f.log.string(), "--retry-failed"});
        CHECK(retried.exit_code == 1);
        CHECK(rejected_requests() == 2);
    }
    TEST_CASE("a refused key stops the campaign with exit 3 and the key appears nowhere") {
        const std::string key = "k-3f9a0c77e1d2b845";
        Sandbox sandbox({"--api-key", "the-right-key-0000"});
        CampaignFixture f(sandbox, numbers_csv(10));
        f.env["WACAMP_API_KEY"] = key;
        auto r = f.wacamp({"run", f.campaign.string()});
        CHECK(r.exit_code == 3);
        CHECK(r.out.find("auth") != std::string::npos);
        CHECK(delivered(sandbox).empty());
        CHECK_FALSE(leaks(key, {r.out, r.err, read_file(f.log), read_file(sandbox.journal_path())}));
    }
    TEST_CASE(
        "a wrong path in base_url stops at the first answer, fails no row; resume with the right one sends each once") {
        Sandbox sandbox;
        CampaignFixture f(sandbox, numbers_csv(20), "rate: {per_second: 200, concurrency: 1}\n");
        f.env["WACAMP_BASE_URL"] = sandbox.url() + "/api/v1";
        auto r = f.wacamp({"run", f.campaign.string(), "--no-progress"});
        CAPTURE(r.out);
        CAPTURE(r.err);
        CHECK(r.exit_code == 3);
        CHECK(contains(r.err, "POST " + sandbox.url() +
                                  "/api/v1/whatsapp-automation/wa/send-message?apiKey=*** answered HTTP 404"));
        CHECK(contains(r.err, "(endpoint)"));
        CHECK_FALSE(contains(r.out, "for good"));
        CHECK_FALSE(leaks(k_api_key, {r.out, r.err, read_file(f.log)}));
        const auto records = f.records();
        CHECK(of_event(records, "attempt").size() == 1);  // no other row was tried
        CHECK(of_event(records, "result").empty());       // the row is not failed, nor rejected
        CHECK(of_event(records, "unsent").size() == 1);
        CHECK(records.back()["reason"] == "endpoint");
        const auto journal = sandbox.journal();  // the send, and the template list read before it
        CHECK(std::count_if(journal.begin(), journal.end(),
                            [](const nlohmann::json& j) { return j.value("method", "") == "POST"; }) == 1);
        CHECK(f.final_status().empty());

        f.env["WACAMP_BASE_URL"] = sandbox.url();
        auto resumed = f.wacamp({"resume", f.log.string(), "--no-progress"});
        CAPTURE(resumed.err);
        CHECK(resumed.exit_code == 0);
        CHECK(once_each(delivered(sandbox), 20).empty());
        CHECK(status_counts(f) == std::map<std::string, int>{{"sent", 20}});
    }
    TEST_CASE("throttling with 429 and Retry-After still delivers every row exactly once") {
        Sandbox sandbox({"--rate-limit", "20", "--retry-after", "1"});
        CampaignFixture f(sandbox, numbers_csv(60), "rate: {per_second: 100, burst: 5, concurrency: 8}\n");
        auto r = f.wacamp({"run", f.campaign.string()});
        CHECK(r.exit_code == 0);
        auto sent = delivered(sandbox);
        CHECK(sent.size() == 60);
        for (const auto& [wa_id, times] : sent) {
            CHECK(times == 1);
        }
        int throttled = 0;
        for (const auto& j : sandbox.journal()) {
            throttled += j.value("outcome", "") == "rate_limited" ? 1 : 0;
        }
        CHECK(throttled > 0);
    }
    TEST_CASE("a second run of the same campaign at the same time is refused") {
        Sandbox sandbox({"--latency", "200"});
        CampaignFixture f(sandbox, numbers_csv(40), "rate: {per_second: 20, concurrency: 2}\n");
        Background first({"run", f.campaign.string(), "--no-progress"}, f.env);
        wait_for_delivered(sandbox, 1);
        auto second = f.wacamp({"run", f.campaign.string()});
        CHECK(second.exit_code == 2);
        CHECK(second.err.find("another wacamp process") != std::string::npos);
        CHECK(first.wait() == 0);
        auto sent = delivered(sandbox);
        CHECK(sent.size() == 40);
        for (const auto& [wa_id, times] : sent) {
            CHECK(times == 1);
        }
    }
    TEST_CASE("SIGTERM stops the run, records an end line and exits 3; resume finishes it") {
        Sandbox sandbox({"--latency", "100"});
        CampaignFixture f(sandbox, numbers_csv(60), "rate: {per_second: 20, concurrency: 2}\n");
        Background run({"run", f.campaign.string(), "--no-progress"}, f.env);
        wait_for_delivered(sandbox, 5);
        run.signal(SIGTERM);
        CHECK(run.wait() == 3);
        auto records = f.records();
        REQUIRE(!records.empty());
        CHECK(records.back()["event"] == "end");
        CHECK(records.back()["reason"] == "interrupted");
        for (const auto& [row, status] : f.final_status()) {
            CHECK(status != "unknown");  // in-flight requests were waited for
        }
        CHECK(f.wacamp({"resume", f.log.string()}).exit_code == 0);
        auto sent = delivered(sandbox);
        CHECK(sent.size() == 60);
        for (const auto& [wa_id, times] : sent) {
            CHECK(times == 1);
        }
    }
    TEST_CASE("--sync every forces each line to disk and changes nothing else") {
        Sandbox sandbox;
        CampaignFixture f(sandbox, numbers_csv(5));
        CHECK(f.wacamp({"run", f.campaign.string(), "--sync", "bogus"}).exit_code == 2);
        CHECK(f.wacamp({"run", f.campaign.string(), "--sync", "every"}).exit_code == 0);
        CHECK(delivered(sandbox).size() == 5);
        CHECK(f.final_status().size() == 5);
    }
    TEST_CASE("outside the send window nothing is sent: the run waits, saying until when") {
        // A window open only on the weekday after today (UTC), so it is closed now.
        const char* k_days[] = {"sun", "mon", "tue", "wed", "thu", "fri", "sat"};
        auto days = std::chrono::duration_cast<std::chrono::hours>(std::chrono::system_clock::now().time_since_epoch())
                        .count() /
                    24;
        std::string tomorrow = k_days[(days + 4 + 1) % 7];  // 1970-01-01 was a Thursday
        Sandbox sandbox;
        CampaignFixture f(
            sandbox, numbers_csv(3),
            "schedule: {window: {timezone: UTC, days: [" + tomorrow + "], from: \"00:00\", to: \"24:00\"}}\n");
        Background run({"run", f.campaign.string(), "--no-progress"}, f.env);
        for (int i = 0; i < 250 && run.err().find("outside the send window") == std::string::npos; ++i) {
            std::this_thread::sleep_for(std::chrono::milliseconds(20));
        }
        CHECK(run.err().find("paused: outside the send window until") != std::string::npos);
        run.signal(SIGTERM);
        CHECK(run.wait() == 3);
        CHECK(delivered(sandbox).empty());
        // The same campaign with a window open all week sends at once.
        CampaignFixture open(sandbox, numbers_csv(3), "schedule: {window: {timezone: Asia/Kolkata}}\n");
        CHECK(open.wacamp({"run", open.campaign.string()}).exit_code == 0);
        CHECK(delivered(sandbox).size() == 3);
    }
    TEST_CASE("an OpenSSL that cannot compute SHA-256 stops the run before anything is sent") {
        // The inputs' digests in the log are how a later run notices a changed CSV: a run
        // must not start on a digest of nothing. OpenSSL with only its null provider has no
        // SHA-256.
        Sandbox sandbox;
        CampaignFixture f(sandbox, numbers_csv(2));
        const auto conf = f.dir.path() / "openssl.cnf";
        std::ofstream(conf)
            << ("openssl_conf = openssl_init\n[openssl_init]\nproviders = provider_sect\n"
                "[provider_sect]\nnull = null_sect\n[null_sect]\nactivate = 1\n");
        f.env["OPENSSL_CONF"] = conf.string();
        auto r = f.wacamp({"run", f.campaign.string(), "--no-progress", "--yes"});
        CHECK(r.exit_code == 2);
        CHECK(r.err.find("OpenSSL could not compute a SHA-256 digest") != std::string::npos);
        CHECK(send_requests(sandbox) == 0);
    }
    TEST_CASE("missing secrets and bad campaign files exit 2 and send nothing") {
        Sandbox sandbox;
        CampaignFixture f(sandbox, numbers_csv(3));
        f.env["WACAMP_API_KEY"] = k_unset;
        auto r = f.wacamp({"run", f.campaign.string()});
        CHECK(r.exit_code == 2);
        CHECK(r.err.find("WACAMP_API_KEY") != std::string::npos);
        CampaignFixture bad(sandbox, numbers_csv(3), "rate: {per_sec: 5}\n");
        auto b = bad.wacamp({"run", bad.campaign.string()});
        CHECK(b.exit_code == 2);
        CHECK(b.err.find("per_second") != std::string::npos);
        CampaignFixture missing_col(sandbox, numbers_csv(3), "", "message: {type: text, text: \"Hi {{nickname}}\"}\n");
        auto m = missing_col.wacamp({"run", missing_col.campaign.string()});
        CHECK(m.exit_code == 2);
        CHECK(m.err.find("nickname") != std::string::npos);
        CHECK(sandbox.journal().empty());
    }
}
