#include <doctest/doctest.h>

#include "harness.hpp"

using e2e::run_wacamp;

namespace {

const std::string k_key = "sandbox-key";

bool mentions(const e2e::ProcessResult& r, const std::string& text) {
    return r.out.find(text) != std::string::npos || r.err.find(text) != std::string::npos;
}

}  // namespace

TEST_SUITE("e2e: templates") {
    TEST_CASE("lists the sandbox's templates as a table") {
        e2e::Sandbox sandbox;
        auto r = run_wacamp({"templates", "--base-url", sandbox.url()}, {{"WACAMP_API_KEY", k_key}});
        CHECK(r.exit_code == 0);
        CHECK(r.out.find("NAME") == 0);
        CHECK(r.out.find("appointment_update") != std::string::npos);
        CHECK(r.out.find("APPROVED") != std::string::npos);
        auto journal = sandbox.journal();
        REQUIRE(journal.size() == 1);
        CHECK(journal[0]["method"] == "GET");
        CHECK(journal[0]["path"] == "/whatsapp-automation/wa/templates");
    }
    TEST_CASE("a wrong path in --base-url is a wrong endpoint: exit 3, naming the URL without the key") {
        e2e::Sandbox sandbox;
        auto r = run_wacamp({"templates", "--base-url", sandbox.url() + "/api/v1"}, {{"WACAMP_API_KEY", k_key}});
        CHECK(r.exit_code == 3);
        CHECK(mentions(r, "GET " + sandbox.url() +
                              "/api/v1/whatsapp-automation/wa/templates?apiKey=*** answered "
                              "HTTP 404"));
        CHECK_FALSE(mentions(r, k_key));
        CHECK(sandbox.journal().size() == 1);  // not retried
    }
    TEST_CASE("--status filters and --json prints the service's records") {
        e2e::Sandbox sandbox;
        auto approved =
            run_wacamp({"templates", "--base-url", sandbox.url(), "--status", "APPROVED"}, {{"WACAMP_API_KEY", k_key}});
        CHECK(approved.exit_code == 0);
        CHECK(approved.out.find("PENDING") == std::string::npos);
        CHECK(approved.out.find("APPROVED") != std::string::npos);

        auto json = run_wacamp({"templates", "--base-url", sandbox.url(), "--json"}, {{"WACAMP_API_KEY", k_key}});
        CHECK(json.exit_code == 0);
        auto records = nlohmann::json::parse(json.out);
        REQUIRE(records.is_array());
        REQUIRE(records.size() >= 1);
        CHECK(records[0].contains("configuration"));
        CHECK(records[0].contains("_id"));
    }
    TEST_CASE("a wrong key exits 3, says the credentials were refused, and never shows the key") {
        e2e::Sandbox sandbox;
        const std::string wrong = "wrong-key-d41d8cd98f00";
        auto r = run_wacamp({"templates", "--base-url", sandbox.url()}, {{"WACAMP_API_KEY", wrong}});
        CHECK(r.exit_code == 3);
        CHECK(r.err.find("refused the credentials") != std::string::npos);
        CHECK_FALSE(mentions(r, wrong));
        CHECK_FALSE(e2e::read_file(sandbox.journal_path()).find(wrong) != std::string::npos);
    }
    TEST_CASE("--base-url over plain http to a host that is not loopback is refused, nothing sent") {
        auto r = run_wacamp({"templates", "--base-url", "http://api.example.com"}, {{"WACAMP_API_KEY", k_key}});
        CHECK(r.exit_code == 2);
        CHECK(r.err.find("plain http:// would send the API key unencrypted") != std::string::npos);
        CHECK(r.err.find("--allow-insecure-http") != std::string::npos);
    }
    TEST_CASE("--base-url with a password is refused without showing it") {
        const std::string password = "hunter2-e3b0c44298fc";
        auto r = run_wacamp({"templates", "--base-url", "https://admin:" + password + "@127.0.0.1:1"},
                            {{"WACAMP_API_KEY", k_key}});
        CHECK(r.exit_code == 2);
        CHECK(r.err.find("must not hold a user name or password") != std::string::npos);
        CHECK_FALSE(mentions(r, password));
    }
    TEST_CASE("an unreachable service exits 1 after the retries") {
        int port = 0;
        {
            e2e::Sandbox gone;  // learn a port that was free, then free it again
            port = gone.port();
        }
        auto r = run_wacamp({"templates", "--base-url", "http://127.0.0.1:" + std::to_string(port)},
                            {{"WACAMP_API_KEY", k_key}});
        CHECK(r.exit_code == 1);
        CHECK(r.err.find("3 attempts") != std::string::npos);
        CHECK_FALSE(mentions(r, k_key));
    }
    TEST_CASE("bad invocations exit 2 and send nothing") {
        e2e::Sandbox sandbox;
        CHECK(run_wacamp({"templates"}).exit_code == 2);
        auto no_key = run_wacamp({"templates", "--base-url", sandbox.url()}, {{"WACAMP_API_KEY", e2e::k_unset}});
        CHECK(no_key.exit_code == 2);
        CHECK(no_key.err.find("WACAMP_API_KEY") != std::string::npos);
        CHECK(run_wacamp({"templates", "--base-url", sandbox.url(), "--campaign", "x.yaml"}).exit_code == 2);
        CHECK(sandbox.journal().empty());
    }
}

TEST_SUITE("e2e: help") {
    TEST_CASE("--help describes every command of the contract") {
        auto r = run_wacamp({"--help"});
        CHECK(r.exit_code == 0);
        for (const char* command : {"run", "resume", "validate", "templates", "delete-contacts", "report", "sandbox"}) {
            CAPTURE(command);
            CHECK(r.out.find(command) != std::string::npos);
            auto sub = run_wacamp({command, "--help"});
            CHECK(sub.exit_code == 0);
            CHECK(sub.out.find("Usage") != std::string::npos);
        }
    }
    TEST_CASE("an unknown command or option exits 2") {
        CHECK(run_wacamp({"frobnicate"}).exit_code == 2);
        CHECK(run_wacamp({"report", "x.jsonl", "--format", "pdf"}).exit_code == 2);
        CHECK(run_wacamp({}).exit_code == 2);
    }
}
