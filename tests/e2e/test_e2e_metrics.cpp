#include <doctest/doctest.h>

#include <chrono>
#include <csignal>
#include <filesystem>
#include <thread>

#include "fixtures.hpp"
#include "prometheus.hpp"

using namespace e2e;

namespace {

// Unix seconds now, by the wall clock.
double unix_now() {
    return std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
}

// `campaign`'s sample of family `name` with `labels` in the metrics file at `path`.
std::optional<double> value(const std::filesystem::path& path, const std::string& name,
                            std::vector<std::string> labels = {}) {
    labels.push_back(R"(campaign="e2e")");
    return sample(read_file(path), name, labels);
}

// The names in `folder`.
std::vector<std::string> names_in(const std::filesystem::path& folder) {
    std::vector<std::string> names;
    for (const auto& entry : std::filesystem::directory_iterator(folder)) {
        names.push_back(entry.path().filename().string());
    }
    return names;
}

}  // namespace

// Needs promtool (Debian's package prometheus); ctest skips the file without it.
TEST_SUITE("e2e: metrics") {
    TEST_CASE("--metrics-file: promtool accepts the file, and it counts what the log records") {
        if (find_tool("promtool").empty()) {
            MESSAGE("promtool is not installed: metrics file not checked");
            return;
        }
        Sandbox sandbox;
        // Six numbers, one of them twice, and one that is no number.
        CampaignFixture f(sandbox, numbers_csv(6) + "+919812300002,Again,u-9\n12,Nobody,u-10\n",
                          "rate: {per_second: 50, concurrency: 4}\n");
        std::filesystem::create_directory(f.dir.path() / "textfile");
        const auto prom = f.dir.path() / "textfile" / "wacamp-e2e.prom";
        const double before = unix_now();
        auto r = f.wacamp({"run", f.campaign.string(), "--no-progress", "--metrics-file", prom.string()});
        const double after = unix_now();
        REQUIRE(r.exit_code == 0);

        auto checked = promtool_check(prom.string());
        CHECK_MESSAGE(checked.exit_code == 0, checked.out);
        CHECK(names_in(f.dir.path() / "textfile") == std::vector<std::string>{"wacamp-e2e.prom"});

        const auto sent = value(prom, "wacamp_messages_total", {R"(status="sent")", R"(cause="")"});
        CHECK(sent == static_cast<double>(delivered(sandbox).size()));
        CHECK(sent == 6);
        CHECK(sent == status_counts(f)["sent"]);
        CHECK(value(prom, "wacamp_messages_total", {R"(status="skipped")", R"(cause="duplicate")"}) == 1);
        CHECK(value(prom, "wacamp_messages_total", {R"(status="invalid")", R"(cause="invalid")"}) == 1);
        CHECK(value(prom, "wacamp_requests_total", {R"(outcome="sent")"}) == send_requests(sandbox));
        CHECK(value(prom, "wacamp_throttled_total") == 0);
        CHECK(value(prom, "wacamp_in_flight") == 0);
        CHECK(value(prom, "wacamp_in_flight_limit") == 4);
        CHECK(value(prom, "wacamp_remaining") == 0);
        CHECK(value(prom, "wacamp_paused", {R"(reason="")"}) == 0);
        CHECK(value(prom, "wacamp_send_rate").has_value());
        CHECK(value(prom, "wacamp_run_duration_seconds").value_or(1e9) <= after - before);
        const auto success = value(prom, "wacamp_last_success_timestamp_seconds");
        REQUIRE(success);
        CHECK(*success >= before - 1);
        CHECK(*success <= after + 1);
        for (const auto* family :
             {"wacamp_messages_total", "wacamp_requests_total", "wacamp_throttled_total", "wacamp_in_flight",
              "wacamp_in_flight_limit", "wacamp_send_rate", "wacamp_paused", "wacamp_remaining",
              "wacamp_run_duration_seconds", "wacamp_last_success_timestamp_seconds"}) {
            CHECK_MESSAGE(contains(read_file(prom), std::string("# HELP ") + family + " "), family);
            CHECK_MESSAGE(contains(read_file(prom), std::string("# TYPE ") + family + " "), family);
        }
    }

    TEST_CASE("a failed run writes its own counts and keeps the last success of the one before") {
        if (find_tool("promtool").empty()) {
            MESSAGE("promtool is not installed: metrics file not checked");
            return;
        }
        Sandbox sandbox;
        CampaignFixture f(sandbox, numbers_csv(3));
        const auto prom = f.dir.path() / "wacamp-e2e.prom";
        REQUIRE(f.wacamp({"run", f.campaign.string(), "--metrics-file", prom.string()}).exit_code == 0);
        const auto success = value(prom, "wacamp_last_success_timestamp_seconds");
        REQUIRE(success);

        // The same campaign with a key the service refuses: stopped, exit 3.
        f.env["WACAMP_API_KEY"] = "refused-key";
        auto failed = f.wacamp({"run", f.campaign.string(), "--results", (f.dir.path() / "again.jsonl").string(),
                                "--metrics-file", prom.string()});
        REQUIRE(failed.exit_code == 3);
        CHECK(promtool_check(prom.string()).exit_code == 0);
        CHECK(value(prom, "wacamp_last_success_timestamp_seconds") == success);
        CHECK(value(prom, "wacamp_messages_total", {R"(status="sent")"}) == 0);
        // The key is refused by the template-list read before the first send: no send was refused.
        CHECK(value(prom, "wacamp_messages_total", {R"(status="failed")", R"(cause="auth")"}).value_or(0) == 0);
    }

    TEST_CASE("the file is written while the run waits: paused, with the reason") {
        if (find_tool("promtool").empty()) {
            MESSAGE("promtool is not installed: metrics file not checked");
            return;
        }
        // A window open only on the weekday after today (UTC), so it is closed now.
        const char* k_days[] = {"sun", "mon", "tue", "wed", "thu", "fri", "sat"};
        const auto days =
            std::chrono::duration_cast<std::chrono::hours>(std::chrono::system_clock::now().time_since_epoch())
                .count() /
            24;
        const std::string tomorrow = k_days[(days + 4 + 1) % 7];  // 1970-01-01 was a Thursday
        Sandbox sandbox;
        CampaignFixture f(
            sandbox, numbers_csv(3),
            "schedule: {window: {timezone: UTC, days: [" + tomorrow + "], from: \"00:00\", to: \"24:00\"}}\n");
        const auto prom = f.dir.path() / "wacamp-e2e.prom";
        Background run({"run", f.campaign.string(), "--no-progress", "--metrics-file", prom.string()}, f.env);
        const auto paused = [&] { return value(prom, "wacamp_paused", {R"(reason="outside the send window")"}); };
        for (int i = 0; i < 1000 && !paused(); ++i) {
            std::this_thread::sleep_for(std::chrono::milliseconds(20));
        }
        CHECK(paused() == 1);
        CHECK(value(prom, "wacamp_remaining") == 3);
        CHECK(promtool_check(prom.string()).exit_code == 0);
        run.signal(SIGTERM);
        CHECK(run.wait() == 3);
        // Stopped: no longer paused, and not a success.
        CHECK(value(prom, "wacamp_paused", {R"(reason="")"}) == 0);
        CHECK_FALSE(paused());
        CHECK_FALSE(value(prom, "wacamp_last_success_timestamp_seconds"));
    }

    TEST_CASE("resume takes --metrics-file too") {
        Sandbox sandbox;
        CampaignFixture f(sandbox, numbers_csv(5));
        REQUIRE(f.wacamp({"run", f.campaign.string(), "--limit", "2"}).exit_code == 0);
        const auto prom = f.dir.path() / "wacamp-e2e.prom";
        REQUIRE(f.wacamp({"resume", f.log.string(), "--metrics-file", prom.string()}).exit_code == 0);
        CHECK(value(prom, "wacamp_messages_total", {R"(status="sent")"}) == 3);
        CHECK(delivered(sandbox).size() == 5);
    }

    TEST_CASE("bad --metrics-file and --metrics-push values exit 2, saying why, before anything is sent") {
        Sandbox sandbox;
        CampaignFixture f(sandbox, numbers_csv(2));
        const auto missing = (f.dir.path() / "no-such-folder" / "wacamp.prom").string();
        auto r = f.wacamp({"run", f.campaign.string(), "--metrics-file", missing});
        CHECK(r.exit_code == 2);
        CHECK(contains(r.err, "--metrics-file " + missing + ": the folder "));
        CHECK(contains(r.err, "does not exist"));

        r = f.wacamp({"run", f.campaign.string(), "--metrics-file", (f.dir.path() / "wacamp.txt").string()});
        CHECK(r.exit_code == 2);
        CHECK(contains(r.err, "must end in .prom"));

        r = f.wacamp({"run", f.campaign.string(), "--metrics-push", "ftp://user:secret-pw@127.0.0.1:9091"});
        CHECK(r.exit_code == 2);
        CHECK(contains(r.err, "--metrics-push ftp://127.0.0.1:9091: must start with http:// or https://"));
        CHECK_FALSE(contains(r.err + r.out, "secret"));

        r = f.wacamp({"resume", f.log.string(), "--metrics-push", "http://127.0.0.1:9091/metrics/job/x"});
        CHECK(r.exit_code == 2);
        CHECK(contains(r.err, "address alone"));

        r = f.wacamp({"run", f.campaign.string(), "--dry-run", "--metrics-file", (f.dir.path() / "w.prom").string()});
        CHECK(r.exit_code == 2);

        CHECK(send_requests(sandbox) == 0);
        CHECK_FALSE(std::filesystem::exists(f.log));
    }
}
