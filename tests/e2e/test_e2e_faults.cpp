// Trust under faults: throttling, 5xx, dropped connections, timeouts, rejected numbers,
// refused credentials, the spam limit, TLS, each against the sandbox with that fault on; and
// secrets kept out of every output through all of it.

#include <doctest/doctest.h>
#include <atomic>
#include <filesystem>

#include "../support/scripted_server.hpp"
#include "fixtures.hpp"

using namespace e2e;

namespace {

const std::string k_fast_retries = "retry: {max_attempts: 10, initial_backoff: 10ms, max_backoff: 100ms}\n";

// Adds `more` to `into`: deliveries counted over two sandboxes.
void add(std::map<std::string, int>& into, const std::map<std::string, int>& more) {
    for (const auto& [wa_id, times] : more) {
        into[wa_id] += times;
    }
}

// Throttled requests must not use up the attempts: max_attempts 1 still ends all sent.
void check_throttled_campaign(const std::string& style) {
    Sandbox sandbox({"--rate-limit", "25", "--retry-after", "1", "--rate-limit-style", style});
    const int n = 60;
    CampaignFixture f(sandbox, numbers_csv(n),
                      "rate: {per_second: 500, burst: 5, concurrency: 4}\nretry: {max_attempts: 1}\n");
    auto r = f.wacamp({"run", f.campaign.string(), "--no-progress"});
    CAPTURE(r.out);
    CAPTURE(r.err);
    CHECK(r.exit_code == 0);
    CHECK(once_each(delivered(sandbox), n) == "");
    CHECK(status_counts(f)["sent"] == n);
    const int throttled = send_requests(sandbox, "rate_limited");
    CHECK(throttled > 0);
    // Every throttled answer is in the log (cause rate_limited), and the summary and the report say so.
    int logged = 0;
    for (const auto& rec : f.records()) {
        logged += rec.value("event", "") == "result" && rec.value("cause", "") == "rate_limited" ? 1 : 0;
    }
    CHECK(logged == throttled);
    CHECK(r.out.find("rate limited " + std::to_string(throttled) + " request") != std::string::npos);
    auto report = f.wacamp({"report", f.log.string()});
    CHECK(report.exit_code == 0);
    CHECK(report.out.find(std::to_string(throttled) + " rate limited") != std::string::npos);
}

}  // namespace

TEST_SUITE("e2e: faults") {
    TEST_CASE("throttled with HTTP 429: every row sent once, throttles don't use up max_attempts") {
        check_throttled_campaign("http429");
    }
    TEST_CASE("throttled with HTTP 400 and code 130429: the same") {
        check_throttled_campaign("meta400");
    }
    TEST_CASE("a campaign configured far faster than the service allows settles instead of hammering") {
        Sandbox sandbox({"--rate-limit", "50", "--retry-after", "1", "--latency", "10"});
        const int n = 160;
        CampaignFixture f(sandbox, numbers_csv(n), "rate: {per_second: 2000, burst: 20, concurrency: 8}\n");
        auto r = f.wacamp({"run", f.campaign.string(), "--no-progress"});
        CHECK(r.exit_code == 0);
        CHECK(once_each(delivered(sandbox), n) == "");
        const int requests = send_requests(sandbox);
        const int throttled = send_requests(sandbox, "rate_limited");
        CAPTURE(requests);
        CAPTURE(throttled);
        CHECK(throttled > 0);
        CHECK(throttled * 4 < requests);
    }
    TEST_CASE("a service that throttles every request stops the run after abort.max_throttled, resumable") {
        std::atomic<int> requests{0};
        test_support::ScriptedServer server([&](const test_support::ReceivedRequest&) {
            ++requests;
            return test_support::answer(429, R"({"error":{"message":"(#130429) Rate limit hit","code":130429}})");
        });
        Sandbox unused;
        CampaignFixture f(unused, numbers_csv(3), "abort: {max_throttled: 3s}\n");
        f.env["WACAMP_BASE_URL"] = server.url();
        auto r = f.wacamp({"run", f.campaign.string(), "--no-progress"});
        CHECK(r.exit_code == 3);
        CHECK(contains(r.err, "throttled every request for"));
        auto records = f.records();
        REQUIRE_FALSE(records.empty());
        CHECK(records.back()["event"] == "end");
        CHECK(records.back()["reason"] == "throttled");
        CHECK(requests >= 2);
        CHECK(contains(r.out, "wacamp resume "));  // what to run once the service lets up
    }
    TEST_CASE("30% of sends answered 5xx: retried until every row is sent, none twice") {
        Sandbox sandbox({"--error-rate", "0.3", "--seed", "11"});
        const int n = 40;
        CampaignFixture f(sandbox, numbers_csv(n), "rate: {per_second: 500, concurrency: 4}\n" + k_fast_retries);
        auto r = f.wacamp({"run", f.campaign.string(), "--no-progress"});
        CHECK(r.exit_code == 0);
        CHECK(send_requests(sandbox, "error") > 0);
        CHECK(once_each(delivered(sandbox), n) == "");
        CHECK(status_counts(f)["sent"] == n);
    }
    TEST_CASE("5xx with retry.ambiguous: hold (the default) are still retried: the service answered") {
        Sandbox sandbox({"--error-rate", "0.3", "--seed", "12"});
        const int n = 40;
        CampaignFixture f(sandbox, numbers_csv(n),
                          "rate: {per_second: 500, concurrency: 4}\n"
                          "retry: {max_attempts: 10, initial_backoff: 10ms, ambiguous: hold}\n");
        auto r = f.wacamp({"run", f.campaign.string(), "--no-progress"});
        CHECK(r.exit_code == 0);
        REQUIRE(send_requests(sandbox, "error") > 0);
        CHECK(status_counts(f)["unknown"] == 0);
        CHECK(status_counts(f)["sent"] == n);
        CHECK(once_each(delivered(sandbox), n) == "");
    }
    TEST_CASE("dropped connections: retried with retry.ambiguous: retry, none twice") {
        Sandbox sandbox({"--drop-rate", "0.3", "--seed", "13"});
        const int n = 40;
        CampaignFixture f(sandbox, numbers_csv(n),
                          "rate: {per_second: 500, concurrency: 4}\n"
                          "retry: {max_attempts: 10, initial_backoff: 10ms, max_backoff: 100ms, ambiguous: retry}\n");
        auto r = f.wacamp({"run", f.campaign.string(), "--no-progress"});
        CHECK(r.exit_code == 0);
        const int drops = send_requests(sandbox, "dropped");
        CHECK(drops > 0);
        CHECK(once_each(delivered(sandbox), n) == "");
        // A drop is an empty reply after the request went out: logged as a transient failure.
        int transient = 0;
        for (const auto& rec : f.records()) {
            transient += rec.value("event", "") == "result" && rec.value("cause", "") == "transient" ? 1 : 0;
        }
        CHECK(transient == drops);
    }
    TEST_CASE("dropped connections with retry.ambiguous: hold end unknown, never retried on their own") {
        Sandbox sandbox({"--drop-rate", "0.3", "--seed", "14"});
        const int n = 30;
        CampaignFixture f(sandbox, numbers_csv(n),
                          "rate: {per_second: 500, concurrency: 4}\n"
                          "retry: {max_attempts: 10, initial_backoff: 10ms, ambiguous: hold}\n");
        auto r = f.wacamp({"run", f.campaign.string(), "--no-progress"});
        CHECK(r.exit_code == 1);
        const int drops = send_requests(sandbox, "dropped");
        REQUIRE(drops > 0);
        CHECK(send_requests(sandbox) == n);
        CHECK(status_counts(f)["unknown"] == drops);
        CHECK(status_counts(f)["sent"] == n - drops);
        int code = 1;
        for (int pass = 0; pass < 20 && code != 0; ++pass) {
            code = f.wacamp({"resume", f.log.string(), "--resend-unknown", "--no-progress"}).exit_code;
        }
        CHECK(code == 0);
        CHECK(once_each(delivered(sandbox), n) == "");
    }
    TEST_CASE("a timeout after the request left is ambiguous: with hold it ends unknown, not resent") {
        Sandbox sandbox({"--latency", "1500"});
        const int n = 3;
        CampaignFixture f(sandbox, numbers_csv(n),
                          "retry: {max_attempts: 5, initial_backoff: 10ms, ambiguous: hold}\n");
        edit_campaign(f, "  timeout: 5s\n", "  timeout: 1s\n");
        auto r = f.wacamp({"run", f.campaign.string(), "--no-progress"});
        CHECK(r.exit_code == 1);
        CHECK(status_counts(f)["unknown"] == n);
        CHECK(count_events(f, "attempt") == n);
        CHECK(r.out.find("--resend-unknown") != std::string::npos);
        // The service went on and delivered them: resending would have sent each twice.
        wait_for_delivered(sandbox, n);
        CHECK(once_each(delivered(sandbox), n) == "");
    }
    TEST_CASE("a rejected number is recorded once and not retried, even with retries to spare") {
        Sandbox sandbox({"--reject-number", numbers_wa_id(2), "--reject-number", numbers_wa_id(5)});
        CampaignFixture f(sandbox, numbers_csv(8), k_fast_retries);
        auto r = f.wacamp({"run", f.campaign.string(), "--no-progress"});
        CHECK(r.exit_code == 1);
        CHECK(send_requests(sandbox, "rejected") == 2);
        auto status = f.final_status();
        CHECK(status[3] == "failed");
        CHECK(status[6] == "failed");
        for (const auto& rec : f.records()) {
            if (rec.value("event", "") == "result" && (rec["row"] == 3 || rec["row"] == 6)) {
                CHECK(rec["cause"] == "undeliverable");
                CHECK(rec["error_code"] == 131026);
                CHECK(rec["http_status"] == 400);
                CHECK(rec["error"].get<std::string>().find("131026") != std::string::npos);
            }
        }
        CHECK(once_each(delivered(sandbox), 6) == "");
    }
    TEST_CASE("a key revoked mid-campaign stops it at once (exit 3); after the fix resume finishes it") {
        const int n = 40;
        const int concurrency = 4;
        std::map<std::string, int> sent;
        std::filesystem::path log;
        Sandbox revoking({"--auth-fail-after", "10", "--latency", "20"});
        CampaignFixture f(revoking, numbers_csv(n), "rate: {per_second: 200, concurrency: 4}\n");
        auto r = f.wacamp({"run", f.campaign.string(), "--no-progress"});
        CAPTURE(r.out);
        CHECK(r.exit_code == 3);
        CHECK(send_requests(revoking, "ok") == 10);
        CHECK(send_requests(revoking, "unauthorized") >= 1);
        CHECK(send_requests(revoking, "unauthorized") <= concurrency);
        CHECK(r.out.find("The API key has been revoked") != std::string::npos);
        CHECK(r.out.find("wacamp resume " + f.log.string()) != std::string::npos);
        auto records = f.records();
        REQUIRE(!records.empty());
        CHECK(records.back()["event"] == "end");
        CHECK(records.back()["reason"] == "auth");
        add(sent, delivered(revoking));

        Sandbox fixed({"--latency", "5"});
        f.env["WACAMP_BASE_URL"] = fixed.url();
        auto resumed = f.wacamp({"resume", f.log.string(), "--no-progress"});
        CHECK(resumed.exit_code == 0);
        add(sent, delivered(fixed));
        CHECK(once_each(sent, n) == "");
        CHECK(status_counts(f)["sent"] == n);
    }
    TEST_CASE("a key refused by the template check stops before any send; the advice is to run again") {
        Sandbox sandbox({"--auth-fail-after", "0"});
        CampaignFixture f(sandbox, numbers_csv(3), "template: {name: appointment_update}\n");
        auto r = f.wacamp({"run", f.campaign.string(), "--no-progress"});
        CAPTURE(r.out);
        CHECK(r.exit_code == 3);
        CHECK(send_requests(sandbox) == 0);
        CHECK(r.out.find("The API key has been revoked") != std::string::npos);
        // There is no log to resume yet.
        CHECK_FALSE(std::filesystem::exists(f.log));
        CHECK(r.out.find("wacamp resume") == std::string::npos);
        CHECK(r.out.find("wacamp run " + f.campaign.string()) != std::string::npos);
    }
    TEST_CASE("the spam limit stops the campaign at once (exit 3); resume finishes it later") {
        const int n = 30;
        std::map<std::string, int> sent;
        Sandbox limited({"--spam-limit-after", "5", "--latency", "20"});
        CampaignFixture f(limited, numbers_csv(n), "rate: {per_second: 200, concurrency: 3}\n");
        auto r = f.wacamp({"run", f.campaign.string(), "--no-progress"});
        CHECK(r.exit_code == 3);
        CHECK(send_requests(limited, "ok") == 5);
        CHECK(send_requests(limited, "spam_limit") <= 3);
        CHECK(r.out.find("131048") != std::string::npos);
        CHECK(r.out.find("wacamp resume " + f.log.string()) != std::string::npos);
        CHECK(f.records().back()["reason"] == "spam_limit");
        add(sent, delivered(limited));

        Sandbox later;
        f.env["WACAMP_BASE_URL"] = later.url();
        CHECK(f.wacamp({"resume", f.log.string(), "--no-progress"}).exit_code == 0);
        add(sent, delivered(later));
        CHECK(once_each(sent, n) == "");
    }
    TEST_CASE("every number rejected: the failure threshold stops the campaign after about that many") {
        std::vector<std::string> args;
        const int n = 30;
        for (int i = 0; i < n; ++i) {
            args.push_back("--reject-number");
            args.push_back(numbers_wa_id(i));
        }
        Sandbox sandbox(args);
        CampaignFixture f(sandbox, numbers_csv(n),
                          "rate: {per_second: 200, concurrency: 2}\nabort: {max_consecutive_failures: 5}\n");
        auto r = f.wacamp({"run", f.campaign.string(), "--no-progress"});
        CHECK(r.exit_code == 3);
        const int requests = send_requests(sandbox);
        CHECK(requests >= 5);
        CHECK(requests <= 5 + 1);  // + the one other request in flight
        CHECK(f.records().back()["reason"] == "failure_threshold");
        CHECK(r.out.find("131026") != std::string::npos);
    }
    TEST_CASE("an https base_url on a port that speaks plain HTTP fails cleanly as transient") {
        Sandbox sandbox;
        CampaignFixture f(sandbox, numbers_csv(3),
                          "retry: {max_attempts: 2, initial_backoff: 10ms, max_backoff: 10ms}\n");
        f.env["WACAMP_BASE_URL"] = "https://127.0.0.1:" + std::to_string(sandbox.port());
        auto r = f.wacamp({"run", f.campaign.string(), "--no-progress"});
        CAPTURE(r.out);
        CAPTURE(r.err);
        CHECK(r.exit_code == 1);
        CHECK(status_counts(f)["failed"] == 3);
        for (const auto& rec : f.records()) {
            if (rec.value("event", "") == "result") {
                CHECK(rec["cause"] == "transient");
                CHECK_FALSE(rec.contains("http_status"));
            }
        }
        CHECK(count_events(f, "attempt") == 6);
        CHECK(delivered(sandbox).empty());
    }
    TEST_CASE("TLS verification stays on: a self-signed certificate is refused unless service.ca_file names it") {
        TempDir dir;
        TlsServer tls(dir);
        if (tls.port() == 0) {
            MESSAGE("openssl is not available: TLS verification not tested");
            return;
        }
        Sandbox sandbox;
        CampaignFixture f(sandbox, numbers_csv(2));
        f.env["WACAMP_BASE_URL"] = "https://127.0.0.1:" + std::to_string(tls.port());
        auto refused = f.wacamp({"templates", "--campaign", f.campaign.string()});
        CAPTURE(refused.err);
        CHECK(refused.exit_code == 3);  // stopped: a certificate that fails verification is not retried
        CHECK(refused.err.find("certificate") != std::string::npos);
        add_service_line(f, "  ca_file: " + tls.cert().string());
        // Past the handshake, openssl's status page is not the service's JSON: a clean error, no crash.
        auto trusted = f.wacamp({"templates", "--campaign", f.campaign.string()});
        CAPTURE(trusted.err);
        CHECK(trusted.exit_code != 0);
        CHECK(trusted.exit_code < 128);
        CHECK(trusted.err.find("certificate") == std::string::npos);
    }
    TEST_CASE("the key, the token and a header's value appear in no output, log, report or journal") {
        const std::string key = "wk-LIVE-7f3c9a1e5b2d4c6e8a0f1b3d5c7e9a2b4d6f8a1c";
        const std::string token = "wt-BEARER-0e2c4a6b8d1f3e5a7c9b2d4f6a8c1e3b5d7f9a0c";
        const std::string header = "hv-AUTHTYPE-5a7c9e1b3d5f7a9c2e4b6d8f1a3c5e7b9d2f4a6c";
        const std::string wrong_key = "wk-WRONG-9d8c7b6a5f4e3d2c1b0a9f8e7d6c5b4a3f2e1d0c";
        Sandbox sandbox({"--api-key", key, "--access-token", token, "--error-rate", "0.2", "--seed", "21",
                         "--reject-number", numbers_wa_id(4), "--rate-limit", "30"});
        CampaignFixture f(sandbox, numbers_csv(24) + "12345,Bad number,u-x\n",
                          "rate: {per_second: 200, concurrency: 4}\n" + k_fast_retries +
                              "cleanup: {delete_contacts: true, batch_size: 5}\n");
        add_service_line(f, "  headers: {authtype: \"${WACAMP_AUTHTYPE}\"}");
        f.env["WACAMP_API_KEY"] = key;
        f.env["WACAMP_ACCESS_TOKEN"] = token;
        f.env["WACAMP_AUTHTYPE"] = header;
        std::vector<std::string> texts;
        const auto keep = [&](const ProcessResult& r) {
            texts.push_back(r.out);
            texts.push_back(r.err);
            return r.exit_code;
        };
        const auto log = f.log.string();
        CHECK(keep(f.wacamp({"validate", f.campaign.string()})) == 0);
        CHECK(keep(f.wacamp({"run", f.campaign.string(), "--dry-run"})) == 0);
        CHECK(keep(f.wacamp({"templates", "--campaign", f.campaign.string()})) == 0);
        CHECK(keep(run_wacamp({"templates", "--base-url", sandbox.url(), "--json"}, {{"WACAMP_API_KEY", key}})) == 0);
        CHECK(keep(run_wacamp({"templates", "--base-url", sandbox.url()}, {{"WACAMP_API_KEY", wrong_key}})) == 3);
        auto refused_env = f.env;
        refused_env["WACAMP_API_KEY"] = wrong_key;
        CHECK(keep(run_wacamp({"run", f.campaign.string(), "--no-progress"}, refused_env)) == 3);
        auto unreachable = f.env;
        unreachable["WACAMP_BASE_URL"] = "http://127.0.0.1:" + std::to_string(free_port());
        CHECK(keep(run_wacamp({"run", f.campaign.string(), "--no-progress", "--limit", "2"}, unreachable)) == 1);
        CHECK(keep(f.wacamp({"run", f.campaign.string(), "--limit", "5"})) == 1);
        keep(f.wacamp({"resume", log, "--retry-failed"}));
        keep(f.wacamp({"resume", log, "--resend-unknown"}));
        CHECK(keep(f.wacamp({"delete-contacts", log})) < 2);
        for (const std::string format : {"text", "json", "csv", "html"}) {
            CHECK(keep(f.wacamp({"report", log, "--format", format})) < 2);
        }
        // A broken campaign file with the secrets in the environment: its errors name no secret.
        CampaignFixture broken(sandbox, numbers_csv(2), "rate: {per_sec: 5}\n");
        add_service_line(broken, "  headers: {authtype: \"${WACAMP_AUTHTYPE}\", apiKey: \"${WACAMP_API_KEY}\"}");
        broken.env = f.env;
        CHECK(keep(broken.wacamp({"validate", broken.campaign.string()})) == 2);
        CHECK(keep(broken.wacamp({"run", broken.campaign.string()})) == 2);

        CHECK(send_requests(sandbox, "ok") > 0);
        CHECK(send_requests(sandbox, "unauthorized") > 0);
        texts.push_back(read_file(f.log));
        texts.push_back(read_file(f.dir.path() / "results" / "e2e.dry-run.jsonl"));
        CHECK(texts.back().find("dry_run") != std::string::npos);
        texts.push_back(read_file(sandbox.journal_path()));
        texts.push_back(sandbox.stderr_text());
        for (const auto& secret : {key, token, header, wrong_key}) {
            CAPTURE(secret);
            CHECK_FALSE(leaks(secret, texts));
        }
    }
}
