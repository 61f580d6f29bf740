// Campaigns over TLS with verification on, against `wacamp sandbox --tls`: the CA it prints
// is trusted through service.ca_file; any other CA stops the campaign at once.
#include <doctest/doctest.h>
#include <sys/stat.h>

#include <chrono>
#include <sstream>

#include "fixtures.hpp"
#include "sandbox/tls_cert.hpp"

using namespace e2e;

namespace {

const std::string k_fast = "rate: {per_second: 500, concurrency: 4}\n";

// The run's summary object among the JSON lines of `out` (--log-format json), or null.
nlohmann::json summary_of(const std::string& out) {
    std::istringstream lines(out);
    for (std::string line; std::getline(lines, line);) {
        auto object = nlohmann::json::parse(line, nullptr, false);
        if (object.is_object() && object.contains("reason") && object.contains("sent")) {
            return object;
        }
    }
    return nullptr;
}

// How many `result` records of the log have status sent.
int sent_results(const CampaignFixture& f) {
    int n = 0;
    for (const auto& record : f.records()) {
        n += record.value("event", "") == "result" && record.value("status", "") == "sent" ? 1 : 0;
    }
    return n;
}

mode_t mode_of(const std::filesystem::path& path) {
    struct stat info {};
    REQUIRE(stat(path.c_str(), &info) == 0);
    return info.st_mode & 07777;
}

}  // namespace

TEST_SUITE("e2e: tls") {
    TEST_CASE("trusting the CA the sandbox prints, a campaign over TLS delivers every message once") {
        Sandbox sandbox({}, Scheme::https);
        CHECK(sandbox.url().rfind("https://127.0.0.1:", 0) == 0);
        REQUIRE(std::filesystem::is_regular_file(sandbox.ca_file()));
        const int n = 30;
        CampaignFixture f(sandbox, numbers_csv(n), k_fast + "cleanup: {delete_contacts: true, batch_size: 10}\n");
        add_service_line(f, "  ca_file: " + sandbox.ca_file().string());
        auto templates = f.wacamp({"templates", "--campaign", f.campaign.string()});
        CAPTURE(templates.err);
        CHECK(templates.exit_code == 0);
        CHECK(contains(templates.out, "appointment_update"));
        auto r = f.wacamp({"run", f.campaign.string(), "--no-progress"});
        CAPTURE(r.out);
        CAPTURE(r.err);
        CHECK(r.exit_code == 0);
        CHECK(status_counts(f)["sent"] == n);
        CHECK(once_each(delivered(sandbox), n) == "");
        int deleted = 0;
        for (const auto& record : f.records()) {
            deleted += record.value("event", "") == "delete" && record.value("status", "") == "deleted" ? 1 : 0;
        }
        CHECK(deleted == 3);  // the deletion step went over TLS too
    }
    TEST_CASE("the sandbox's certificate verifies for localhost as for 127.0.0.1") {
        Sandbox sandbox({}, Scheme::https);
        for (const std::string host : {"127.0.0.1", "localhost"}) {
            CAPTURE(host);
            CampaignFixture f(sandbox, numbers_csv(3, host == "localhost" ? 10 : 0), k_fast);
            add_service_line(f, "  ca_file: " + sandbox.ca_file().string());
            f.env["WACAMP_BASE_URL"] = "https://" + host + ":" + std::to_string(sandbox.port());
            auto r = f.wacamp({"run", f.campaign.string(), "--no-progress"});
            CAPTURE(r.err);
            CHECK(r.exit_code == 0);
            CHECK(status_counts(f)["sent"] == 3);
        }
        CHECK(once_each(delivered(sandbox), 6) == "");
    }
    TEST_CASE("a CA that did not sign the certificate stops the campaign at once: exit 3, reason tls, nothing sent") {
        Sandbox other({}, Scheme::https);
        // No ca_file: the system's CAs, which never signed the sandbox's; another sandbox's CA.
        for (const std::string& ca : {std::string(), other.ca_file().string()}) {
            CAPTURE(ca);
            Sandbox sandbox({}, Scheme::https);
            const int n = 20;
            CampaignFixture f(sandbox, numbers_csv(n), k_fast);
            if (!ca.empty()) {
                add_service_line(f, "  ca_file: " + ca);
            }
            auto r = f.wacamp({"run", f.campaign.string(), "--no-progress", "--log-format", "json"});
            CAPTURE(r.out);
            CAPTURE(r.err);
            CHECK(r.exit_code == 3);
            const auto summary = summary_of(r.out);
            REQUIRE(summary.is_object());
            CHECK(summary["reason"] == "tls");
            CHECK(summary["sent"] == 0);
            CHECK(contains(r.out + r.err, "certificate"));
            auto records = f.records();
            REQUIRE(!records.empty());
            CHECK(records.back()["event"] == "end");
            CHECK(records.back()["reason"] == "tls");
            CHECK(count_events(f, "attempt") <= 4);  // at most those in flight, none retried
            CHECK(sent_results(f) == 0);
            CHECK(status_counts(f)["sent"] == 0);
            CHECK(delivered(sandbox).empty());
            CHECK(delivered(other).empty());
            // Trusting the right CA (the campaign file changed: --force), the run continues and
            // sends every message, once.
            const auto trusted = "  ca_file: " + sandbox.ca_file().string();
            if (ca.empty()) {
                add_service_line(f, trusted);
            } else {
                edit_campaign(f, "  ca_file: " + ca + "\n", trusted + "\n");
            }
            auto again = f.wacamp({"run", f.campaign.string(), "--no-progress", "--force"});
            CAPTURE(again.err);
            CHECK(again.exit_code == 0);
            CHECK(once_each(delivered(sandbox), n) == "");
            CHECK(sent_results(f) == n);
        }
    }
    TEST_CASE("over TLS a dropped connection is a lost answer, not a certificate problem: held unknown") {
        Sandbox sandbox({"--drop-rate", "0.3", "--seed", "14"}, Scheme::https);
        const int n = 30;
        CampaignFixture f(sandbox, numbers_csv(n),
                          k_fast + "retry: {max_attempts: 10, initial_backoff: 10ms, ambiguous: hold}\n");
        add_service_line(f, "  ca_file: " + sandbox.ca_file().string());
        auto r = f.wacamp({"run", f.campaign.string(), "--no-progress"});
        CAPTURE(r.err);
        CHECK(r.exit_code == 1);
        const int drops = send_requests(sandbox, "dropped");
        REQUIRE(drops > 0);
        CHECK(send_requests(sandbox) == n);
        CHECK(status_counts(f)["unknown"] == drops);
        CHECK(status_counts(f)["sent"] == n - drops);
        CHECK(f.records().back()["reason"] != "tls");
    }
    TEST_CASE("--tls-cert and --tls-key: the sandbox serves that certificate and names it on its ca: line") {
        TempDir dir;
        auto made = sandbox::GeneratedTls::make(dir.path(), std::chrono::system_clock::now());
        REQUIRE(made.ok());
        const auto& files = (*made)->files();
        Sandbox sandbox({"--tls-cert", files.cert.string(), "--tls-key", files.key.string()}, Scheme::https);
        CHECK(sandbox.ca_file() == files.cert);
        CampaignFixture f(sandbox, numbers_csv(5), k_fast);
        add_service_line(f, "  ca_file: " + sandbox.ca_file().string());
        auto r = f.wacamp({"run", f.campaign.string(), "--no-progress"});
        CAPTURE(r.err);
        CHECK(r.exit_code == 0);
        CHECK(once_each(delivered(sandbox), 5) == "");
    }
    TEST_CASE("a certificate or key that cannot be used is exit 2, naming the file, before listening") {
        TempDir dir;
        auto one = sandbox::GeneratedTls::make(dir.path(), std::chrono::system_clock::now());
        auto two = sandbox::GeneratedTls::make(dir.path(), std::chrono::system_clock::now());
        REQUIRE(one.ok());
        REQUIRE(two.ok());
        const auto cert = (*one)->files().cert.string();
        const auto key = (*one)->files().key.string();
        const auto other_key = (*two)->files().key.string();
        const auto missing = (dir.path() / "missing.pem").string();
        const auto not_pem = dir.write("not.pem", "hello\n").string();
        struct Case {
            std::vector<std::string> args;
            std::string named;  // the file the error must name
        };
        const std::vector<Case> cases{
            {{"--tls-cert", missing, "--tls-key", key}, missing},
            {{"--tls-cert", cert, "--tls-key", missing}, missing},
            {{"--tls-cert", not_pem, "--tls-key", key}, not_pem},
            {{"--tls-cert", cert, "--tls-key", not_pem}, not_pem},
            {{"--tls-cert", cert, "--tls-key", other_key}, other_key},
            {{"--tls-cert", cert}, "--tls-key"},
        };
        for (const auto& c : cases) {
            std::vector<std::string> args{"sandbox", "--port", "0", "--tls"};
            args.insert(args.end(), c.args.begin(), c.args.end());
            CAPTURE(args);
            auto r = run_wacamp(args);
            CAPTURE(r.err);
            CHECK(r.exit_code == 2);
            CHECK(contains(r.err, c.named));
            CHECK_FALSE(contains(r.out, "listening"));
            CHECK_FALSE(contains(r.out + r.err, "PRIVATE KEY"));
        }
    }
    TEST_CASE("the certificate made at start is in a private folder, removed when the sandbox stops") {
        std::filesystem::path folder;
        {
            Sandbox sandbox({}, Scheme::https);
            folder = sandbox.ca_file().parent_path();
            CHECK(folder.is_absolute());
            CHECK(mode_of(folder) == 0700);
            CHECK(mode_of(folder / "key.pem") == 0600);
            CHECK_FALSE(contains(sandbox.stderr_text(), "PRIVATE KEY"));
        }
        CHECK_FALSE(std::filesystem::exists(folder));
    }
}
