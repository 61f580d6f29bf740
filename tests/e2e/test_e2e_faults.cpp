// Trust under faults: throttling, 5xx, dropped connections, timeouts, rejected numbers,
// refused credentials, the spam limit, TLS, each against the sandbox with that fault on; and
// secrets kept out of every output through all of it.

#include <doctest/doctest.h>
#include <atomic>
#include <filesystem>

#include "../support/scripted_server.hpp"
#include "fixtures.hpp"
#include "tls_fixture.hpp"

using namespace e2e;

namespace {

const std::string k_fast_retries = "retry: {max_attempts: 10, initial_backoff: 10ms, max_backoff: 100ms}\n";

// Adds `more` to `into`: deliveries counted over two sandboxes.
void add(std::map<std::string, int>& into, const std::map<std::string, int>& more) {
    for (const auto& [wa_id, times] : more) {
        into[wa_id] += times;
    }
}

// How many result records of `f`'s log have `cause`.
int results_with_cause(const CampaignFixture& f, const std::string& cause) {
    int n = 0;
    for (const auto& rec : f.records()) {
        n += rec.value("event", "") == "result" && rec.value("cause", "") == cause ? 1 : 0;
    }
    return n;
}

// A way the service throttles (its --rate-limit-style).
struct Throttling {
    std::string name;
    std::string style;
};
const std::vector<Throttling> k_throttlings = {
    {"HTTP 429", "http429"},
    {"HTTP 400 and code 130429", "meta400"},
};

// A fault the service recovers from (the sandbox's flags), the retry policy and the sandbox's
// journal outcome for it: every fault is retried until the row is sent.
struct RetriedFault {
    std::string name;
    std::vector<std::string> sandbox_args;
    std::string retry;
    std::string outcome;
};
const std::vector<RetriedFault> k_retried_faults = {
    {"30% of sends answered 5xx", {"--error-rate", "0.3", "--seed", "11"}, k_fast_retries, "error"},
    {"5xx with retry.ambiguous: hold (the default) are still retried: the service answered",
     {"--error-rate", "0.3", "--seed", "12"},
     "retry: {max_attempts: 10, initial_backoff: 10ms, ambiguous: hold}\n",
     "error"},
    {"dropped connections with retry.ambiguous: retry",
     {"--drop-rate", "0.3", "--seed", "13"},
     "retry: {max_attempts: 10, initial_backoff: 10ms, max_backoff: 100ms, ambiguous: retry}\n",
     "dropped"},
};

// An answer that stops the whole account (the sandbox's flags to give it after `ok` sends), the
// sandbox's journal outcome for it, what the output says and the log's end reason.
struct AccountStop {
    std::string name;
    std::vector<std::string> sandbox_args;
    int rows = 0;
    int concurrency = 0;
    int ok = 0;
    std::string outcome;
    std::string says;
    std::string reason;
    std::vector<std::string> later_sandbox_args;  // the service once the stop is lifted
};
const std::vector<AccountStop> k_account_stops = {
    {.name = "a key revoked mid-campaign",
     .sandbox_args = {"--auth-fail-after", "10", "--latency", "20"},
     .rows = 40,
     .concurrency = 4,
     .ok = 10,
     .outcome = "unauthorized",
     .says = "The API key has been revoked",
     .reason = "auth",
     .later_sandbox_args = {"--latency", "5"}},
    {.name = "the spam limit",
     .sandbox_args = {"--spam-limit-after", "5", "--latency", "20"},
     .rows = 30,
     .concurrency = 3,
     .ok = 5,
     .outcome = "spam_limit",
     .says = "131048",
     .reason = "spam_limit",
     .later_sandbox_args = {}},
};

}  // namespace

TEST_SUITE("e2e: faults") {
    TEST_CASE("throttled: every row sent once, throttles don't use up max_attempts") {
        for (const auto& throttling : k_throttlings) {
            SUBCASE(throttling.name.c_str()) {
                Sandbox sandbox({"--rate-limit", "25", "--retry-after", "1", "--rate-limit-style", throttling.style});
                const int n = 60;
                // max_attempts 1 still ends all sent.
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
                // Every throttled answer is in the log, and the summary and the report say so.
                CHECK(results_with_cause(f, "rate_limited") == throttled);
                CHECK(contains(r.out, "rate limited " + std::to_string(throttled) + " request"));
                // The pace figure says what it measures, beside the messages accepted a second.
                CHECK(contains(r.out, "requests started a second, retries included"));
                CHECK(contains(r.out, "accepted: "));
                CHECK_FALSE(contains(r.out, "slowed down to"));
                auto report = f.wacamp({"report", f.log.string()});
                CHECK(report.exit_code == 0);
                CHECK(contains(report.out, std::to_string(throttled) + " rate limited"));
            }
        }
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
        CampaignFixture f(server.url(), numbers_csv(3), "abort: {max_throttled: 3s}\n");
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
    TEST_CASE("5xx and dropped connections: retried until every row is sent, none twice") {
        for (const auto& fault : k_retried_faults) {
            SUBCASE(fault.name.c_str()) {
                Sandbox sandbox(fault.sandbox_args);
                const int n = 40;
                CampaignFixture f(sandbox, numbers_csv(n), "rate: {per_second: 500, concurrency: 4}\n" + fault.retry);
                auto r = f.wacamp({"run", f.campaign.string(), "--no-progress"});
                CHECK(r.exit_code == 0);
                const int faults = send_requests(sandbox, fault.outcome);
                REQUIRE(faults > 0);
                CHECK(once_each(delivered(sandbox), n) == "");
                CHECK(status_counts(f)["unknown"] == 0);
                CHECK(status_counts(f)["sent"] == n);
                // A 5xx, or a drop (an empty reply after the request went out), is logged as a
                // transient failure.
                CHECK(results_with_cause(f, "transient") == faults);
            }
        }
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
    TEST_CASE("an account stop mid-campaign ends the run at once (exit 3); after the fix resume finishes it") {
        for (const auto& stop : k_account_stops) {
            SUBCASE(stop.name.c_str()) {
                std::map<std::string, int> sent;
                Sandbox stopping(stop.sandbox_args);
                CampaignFixture f(stopping, numbers_csv(stop.rows),
                                  "rate: {per_second: 200, concurrency: " + std::to_string(stop.concurrency) + "}\n");
                auto r = f.wacamp({"run", f.campaign.string(), "--no-progress"});
                CAPTURE(r.out);
                CHECK(r.exit_code == 3);
                CHECK(send_requests(stopping, "ok") == stop.ok);
                CHECK(send_requests(stopping, stop.outcome) >= 1);
                CHECK(send_requests(stopping, stop.outcome) <= stop.concurrency);  // those in flight
                CHECK(contains(r.out, stop.says));
                CHECK(contains(r.out, "wacamp resume " + f.log.string()));
                auto records = f.records();
                REQUIRE(!records.empty());
                CHECK(records.back()["event"] == "end");
                CHECK(records.back()["reason"] == stop.reason);
                add(sent, delivered(stopping));

                Sandbox later(stop.later_sandbox_args);
                f.env["WACAMP_BASE_URL"] = later.url();
                auto resumed = f.wacamp({"resume", f.log.string(), "--no-progress"});
                CHECK(resumed.exit_code == 0);
                add(sent, delivered(later));
                CHECK(once_each(sent, stop.rows) == "");
                CHECK(status_counts(f)["sent"] == stop.rows);
            }
        }
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
        const TlsServer* tls = untrusted_tls_server();
        if (tls == nullptr) {
            return;
        }
        CampaignFixture f(tls->url(), numbers_csv(2));
        auto refused = f.wacamp({"templates", "--campaign", f.campaign.string()});
        CAPTURE(refused.err);
        CHECK(refused.exit_code == 3);  // stopped: a certificate that fails verification is not retried
        CHECK(refused.err.find("certificate") != std::string::npos);
        trust(f, tls->cert());
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
        // The wrong key was refused by the template-list read before the first send: no send left.
        CHECK(send_requests(sandbox, "unauthorized") == 0);
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
