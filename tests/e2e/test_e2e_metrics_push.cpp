#include <doctest/doctest.h>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <filesystem>

#include "../support/scripted_server.hpp"
#include "fixtures.hpp"
#include "prometheus.hpp"

using namespace e2e;

namespace {

// One Pushgateway for the whole file, stopped when the tests end; each test pushes a campaign
// of its own name.
const Pushgateway& gateway() {
    static Pushgateway g;
    return g;
}

// `campaign`'s sample of family `name` with `labels` on the Pushgateway now.
std::optional<double> pushed(const std::string& campaign, const std::string& name,
                             std::vector<std::string> labels = {}) {
    labels.push_back("campaign=\"" + campaign + "\"");
    labels.push_back(R"(job="wacamp")");
    return sample(gateway().metrics(), name, labels);
}

// A campaign named `name` (the group it is pushed to) of `count` numbers.
struct Named : CampaignFixture {
    Named(const Sandbox& sandbox, const std::string& name, int count) : CampaignFixture(sandbox, numbers_csv(count)) {
        edit_campaign(*this, "name: e2e\n", "name: " + name + "\n");
    }
};

}  // namespace

// Needs Debian's prometheus-pushgateway; ctest skips the file without it.
TEST_SUITE("e2e: metrics push") {
    TEST_CASE("a run's figures reach the Pushgateway; a failed run replaces them but keeps the last success") {
        if (gateway().port() == 0) {
            MESSAGE("prometheus-pushgateway is not installed: pushes not checked");
            return;
        }
        Sandbox sandbox;
        Named f(sandbox, "push-add", 5);
        auto r = f.wacamp({"run", f.campaign.string(), "--no-progress", "--metrics-push", gateway().url()});
        REQUIRE(r.exit_code == 0);
        CHECK_FALSE(contains(r.err, "could not push"));
        CHECK(pushed("push-add", "wacamp_messages_total", {R"(status="sent")"}) == 5);
        CHECK(pushed("push-add", "wacamp_messages_total", {R"(status="sent")"}) == delivered(sandbox).size());
        CHECK(pushed("push-add", "wacamp_requests_total", {R"(outcome="sent")"}) == 5);
        CHECK(pushed("push-add", "wacamp_in_flight") == 0);
        const auto success = pushed("push-add", "wacamp_last_success_timestamp_seconds");
        REQUIRE(success);

        // Refused credentials: exit 3, not a success.
        f.env["WACAMP_API_KEY"] = "refused-key";
        auto failed = f.wacamp({"run", f.campaign.string(), "--no-progress", "--results",
                                (f.dir.path() / "again.jsonl").string(), "--metrics-push", gateway().url()});
        REQUIRE(failed.exit_code == 3);
        // Push-add replaced the families this run pushed, and left the one it did not.
        CHECK(pushed("push-add", "wacamp_messages_total", {R"(status="sent")"}) == 0);
        // The key is refused by the template-list read before the first send: no send was refused.
        CHECK(pushed("push-add", "wacamp_messages_total", {R"(status="failed")", R"(cause="auth")"}).value_or(0) == 0);
        CHECK(pushed("push-add", "wacamp_last_success_timestamp_seconds") == success);
    }

    TEST_CASE("credentials in the push URL appear nowhere: output, log, metrics file, the gateway") {
        if (gateway().port() == 0) {
            MESSAGE("prometheus-pushgateway is not installed: pushes not checked");
            return;
        }
        const std::string with_user = "http://user:secret-pw@127.0.0.1:" + std::to_string(gateway().port());
        Sandbox sandbox;
        Named f(sandbox, "push-creds", 3);
        const auto prom = f.dir.path() / "wacamp.prom";
        auto r = f.wacamp({"run", f.campaign.string(), "--metrics-push", with_user, "--metrics-file", prom.string()});
        CHECK(r.exit_code == 0);
        CHECK(pushed("push-creds", "wacamp_messages_total", {R"(status="sent")"}) == 3);

        // And when the push fails: the warning names the Pushgateway without them.
        const int nobody = free_port();
        Named down(sandbox, "push-creds-down", 2);
        const auto down_prom = down.dir.path() / "wacamp.prom";
        auto warned = down.wacamp({"run", down.campaign.string(), "--log-format", "json", "--yes", "--metrics-push",
                                   "http://user:secret-pw@127.0.0.1:" + std::to_string(nobody), "--metrics-file",
                                   down_prom.string()});
        CHECK(warned.exit_code == 0);  // a failed push never changes the exit code
        CHECK(contains(warned.err, "could not push metrics to http://127.0.0.1:" + std::to_string(nobody)));

        for (const auto& text : {r.out, r.err, warned.out, warned.err, read_file(f.log), read_file(down.log),
                                 read_file(prom), read_file(down_prom), gateway().metrics()}) {
            CHECK_FALSE_MESSAGE(contains(text, "secret"), text);
            CHECK_FALSE_MESSAGE(contains(text, "user:"), text);
        }
    }

    TEST_CASE("the URL can come from WACAMP_METRICS_PUSH, keeping it off the command line; a dry run ignores it") {
        if (gateway().port() == 0) {
            MESSAGE("prometheus-pushgateway is not installed: pushes not checked");
            return;
        }
        Sandbox sandbox;
        Named f(sandbox, "push-env", 2);
        f.env["WACAMP_METRICS_PUSH"] = gateway().url();
        // A dry run pays it no attention.
        CHECK(f.wacamp({"run", f.campaign.string(), "--dry-run"}).exit_code == 0);
        CHECK_FALSE(pushed("push-env", "wacamp_messages_total", {R"(status="sent")"}));
        REQUIRE(f.wacamp({"run", f.campaign.string()}).exit_code == 0);
        CHECK(pushed("push-env", "wacamp_messages_total", {R"(status="sent")"}) == 2);
    }

    TEST_CASE("a gateway that echoes the credentials in its refusal: the warning shows neither them nor their base64") {
        // Needs no Pushgateway: a scripted one refuses every push, quoting the request's head.
        // Its Authorization header first, as a proxy's error page may quote it, within what is shown.
        test_support::ScriptedServer echo([](const test_support::ReceivedRequest& request) {
            const auto at = request.head.find("Authorization:");
            const std::string header = at == std::string::npos ? "" : request.head.substr(at, 60);
            return test_support::answer(400, "refused: " + header + "\n" + request.head, "text/plain");
        });
        Sandbox sandbox;
        Named f(sandbox, "push-echo", 2);
        const std::string url = "http://pushuser:s3cr3t-pw@127.0.0.1:" + std::to_string(echo.port());
        const auto log_file = f.dir.path() / "wacamp.log";
        auto r =
            f.wacamp({"run", f.campaign.string(), "--yes", "--metrics-push", url, "--log-file", log_file.string()});
        CHECK(r.exit_code == 0);  // a refused push never changes the exit code
        CHECK(echo.requests() >= 1);
        CHECK(contains(r.err, "could not push metrics to http://127.0.0.1:" + std::to_string(echo.port())));
        CHECK(contains(r.err, "Authorization: Basic"));  // the echo was shown, masked
        for (const auto& text : {r.out, r.err, read_file(f.log), read_file(log_file)}) {
            CHECK_FALSE_MESSAGE(contains(text, "s3cr3t-pw"), text);
            CHECK_FALSE_MESSAGE(contains(text, "cHVzaHVzZXI6czNjcjN0LXB3"), text);  // base64 of user:password
            CHECK_FALSE_MESSAGE(contains(text, "czNjcjN0LXB3"), text);              // base64 of the password
        }
    }
    TEST_CASE("a gateway that never answers, as a suspended one would: the run still ends with its own code, warned") {
        // A listening socket nobody accepts from: the kernel completes the handshake and takes
        // the request, and no answer ever comes — a SIGSTOPped Pushgateway. The last push waits
        // at most its timeout (10 s).
        const int listener = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
        REQUIRE(listener >= 0);
        sockaddr_in address{};
        address.sin_family = AF_INET;
        address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
        REQUIRE(::bind(listener, reinterpret_cast<const sockaddr*>(&address), sizeof address) == 0);
        REQUIRE(::listen(listener, 16) == 0);
        socklen_t length = sizeof address;
        REQUIRE(::getsockname(listener, reinterpret_cast<sockaddr*>(&address), &length) == 0);
        const std::string url = "http://127.0.0.1:" + std::to_string(ntohs(address.sin_port));
        Sandbox sandbox;
        Named f(sandbox, "push-stopped", 2);
        auto r = f.wacamp({"run", f.campaign.string(), "--yes", "--no-progress", "--metrics-push", url});
        ::close(listener);
        CAPTURE(r.err);
        CHECK(r.exit_code == 0);
        CHECK(status_counts(f)["sent"] == 2);
        CHECK(contains(r.err, "could not push metrics to " + url));
    }
}
