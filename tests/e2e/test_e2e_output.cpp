// What reaches people: secrets a service echoes back, text that could drive a terminal or a
// spreadsheet, output streams that fail, and why a run ended.

#include <doctest/doctest.h>

#include <fcntl.h>
#include <fmt/format.h>
#include <sys/wait.h>
#include <unistd.h>
#include <atomic>
#include <csignal>

#include "../support/scripted_server.hpp"
#include "fixtures.hpp"

using namespace e2e;
using test_support::answer;
using test_support::path_of;
using test_support::ReceivedRequest;
using test_support::Reply;
using test_support::ScriptedServer;

namespace {

// Every form the service may echo `secret` in: as it is, JSON-escaped, percent-encoded in
// upper- and lower-case hex, HTML-escaped.
std::string echoed(const std::string& secret) {
    const std::string json = nlohmann::json(secret).dump();
    std::string upper, lower, html;
    for (unsigned char c : secret) {
        const bool plain = std::isalnum(c) != 0 || c == '-' || c == '_' || c == '.' || c == '~';
        upper += plain ? std::string(1, static_cast<char>(c)) : fmt::format("%{:02X}", c);
        lower += plain ? std::string(1, static_cast<char>(c)) : fmt::format("%{:02x}", c);
        html += c == '"' ? std::string("&quot;") : std::string(1, static_cast<char>(c));
    }
    return fmt::format("raw {} json {} url {} lower {} html {}", secret, json.substr(1, json.size() - 2), upper, lower,
                       html);
}

// Whether `marker` appears anywhere in the results of `runs` or in `files`.
std::string leaked(const std::string& marker, const std::vector<ProcessResult>& runs,
                   const std::vector<std::filesystem::path>& files) {
    std::string where;
    for (size_t i = 0; i < runs.size(); ++i) {
        where += contains(runs[i].out, marker) ? fmt::format("stdout of run {}; ", i) : "";
        where += contains(runs[i].err, marker) ? fmt::format("stderr of run {}; ", i) : "";
    }
    for (const auto& file : files) {
        where += contains(read_file(file), marker) ? file.filename().string() + "; " : "";
    }
    return where;
}

// Runs `wacamp ARGS…` with stdout and stderr both a pipe whose reader has gone (as after
// `2>&1 | head -1` once head has its line); returns the exit code (128 + signal if killed).
int run_with_reader_gone(const CampaignFixture& f, const std::vector<std::string>& args) {
    int fds[2];
    REQUIRE(pipe2(fds, O_CLOEXEC) == 0);
    close(fds[0]);
    const int in = open("/dev/null", O_RDONLY | O_CLOEXEC);
    std::vector<std::string> argv{WACAMP_BINARY};
    argv.insert(argv.end(), args.begin(), args.end());
    const pid_t pid = spawn_process(argv, f.env, in, fds[1], fds[1]);
    close(fds[1]);
    close(in);
    int status = 0;
    waitpid(pid, &status, 0);
    return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

// The objects of a JSON Lines text; lines that are not JSON are skipped.
std::vector<nlohmann::json> objects_of(const std::string& text) {
    std::vector<nlohmann::json> out;
    size_t start = 0;
    while (start < text.size()) {
        auto end = text.find('\n', start);
        end = end == std::string::npos ? text.size() : end;
        auto j = nlohmann::json::parse(text.substr(start, end - start), nullptr, false);
        if (j.is_object()) {
            out.push_back(std::move(j));
        }
        start = end + 1;
    }
    return out;
}

// The lines of `text` that start with "wacamp: error: ".
std::vector<std::string> error_lines(const std::string& text) {
    std::vector<std::string> out;
    size_t start = 0;
    while (start < text.size()) {
        auto end = text.find('\n', start);
        end = end == std::string::npos ? text.size() : end;
        if (text.compare(start, 15, "wacamp: error: ") == 0) {
            out.push_back(text.substr(start, end - start));
        }
        start = end + 1;
    }
    return out;
}

}  // namespace

TEST_SUITE("e2e: output") {
    TEST_CASE("a key or token the service echoes back is masked in the log, every output and every report") {
        // Each secret holds a marker that no encoding changes: if any form of it got through,
        // the marker shows.
        const std::string key = "ak+Secret/Key=\"QX7keymark\"";
        const std::string token = "tok/En+Secret=\"QX7tokmark\"";
        std::atomic<int> status_updates{0};
        ScriptedServer server([&](const ReceivedRequest& req) -> Reply {
            if (path_of(req) == "/inbox/users/status-update") {
                ++status_updates;
                return answer(401,
                              nlohmann::json({{"message", "bad token Bearer " + token + ": " + echoed(token)}}).dump());
            }
            // The template list read before the first send is answered: a refusal of it would stop
            // the run before any send.
            if (path_of(req) == "/whatsapp-automation/wa/templates") {
                return answer(200, R"({"success": true, "data": []})");
            }
            const auto body = nlohmann::json::parse(req.body, nullptr, false);
            const auto wa_id = body.is_object() ? body.value("wa_id", "") : "";
            if (wa_id == numbers_wa_id(0)) {
                return answer(400, nlohmann::json({{"success", false}, {"message", "refused " + echoed(key)}}).dump());
            }
            if (wa_id == numbers_wa_id(1)) {
                return answer(400, "<html>refused " + echoed(key) + "</html>", "text/html");
            }
            if (wa_id == numbers_wa_id(2)) {
                return answer(200,
                              nlohmann::json({{"success", true}, {"data", {{"messageId", "wamid." + key}}}}).dump());
            }
            if (wa_id == numbers_wa_id(3)) {
                return answer(200, R"({"success": true, "data": {"messageId": "wamid.ok"}})");
            }
            return answer(
                401, nlohmann::json({{"error", {{"message", "Invalid key " + echoed(key)}, {"code", 190}}}}).dump());
        });
        Sandbox unused;
        CampaignFixture f(unused, numbers_csv(8),
                          "rate: {per_second: 100, concurrency: 1}\ncleanup: {delete_contacts: true}\n");
        f.env["WACAMP_BASE_URL"] = server.url();
        f.env["WACAMP_API_KEY"] = key;
        f.env["WACAMP_ACCESS_TOKEN"] = token;

        std::vector<ProcessResult> runs;
        runs.push_back(f.wacamp({"run", f.campaign.string(), "--no-progress"}));
        CHECK(runs.back().exit_code == 3);  // the 401 stops the campaign
        runs.push_back(f.wacamp({"resume", f.log.string(), "--no-progress", "--log-format", "json"}));
        CHECK(runs.back().exit_code == 3);
        runs.push_back(f.wacamp({"delete-contacts", f.log.string()}));
        CHECK(runs.back().exit_code == 3);
        for (const char* format : {"text", "csv", "json", "html"}) {
            runs.push_back(f.wacamp({"report", f.log.string(), "--format", format}));
            CHECK(runs.back().exit_code == 0);
        }
        CHECK(status_updates >= 1);
        CHECK(count_events(f, "delete") >= 1);
        CHECK(contains(read_file(f.log), "***"));  // the texts are kept, the secrets masked

        CHECK(leaked("QX7keymark", runs, {f.log}) == "");
        CHECK(leaked("QX7tokmark", runs, {f.log}) == "");
    }

    TEST_CASE("a run whose output pipe was closed goes on to its end record and its usual exit code") {
        Sandbox sandbox;
        for (const char* format : {"text", "json"}) {
            CAPTURE(format);
            CampaignFixture f(sandbox, numbers_csv(6), "rate: {per_second: 200, concurrency: 2}\n");
            REQUIRE(f.wacamp({"run", f.campaign.string(), "--limit", "2"}).exit_code == 0);
            // The continuing run has a notice to print before it sends, and a summary after.
            CHECK(run_with_reader_gone(f, {"run", f.campaign.string(), "--log-format", format, "--yes"}) == 0);
            auto records = f.records();
            REQUIRE(!records.empty());
            CHECK(records.back()["event"] == "end");
            CHECK(records.back()["reason"] == "completed");
            CHECK(count_events(f, "end") == 2);
            CHECK(status_counts(f)["sent"] == 6);
        }
    }

    TEST_CASE("SIGHUP stops the run like SIGTERM: in-flight requests recorded, end line, exit 3") {
        Sandbox sandbox({"--latency", "100"});
        CampaignFixture f(sandbox, numbers_csv(60), "rate: {per_second: 20, concurrency: 2}\n");
        Background run({"run", f.campaign.string(), "--no-progress"}, f.env);
        wait_for_delivered(sandbox, 5);
        run.signal(SIGHUP);
        CHECK(run.wait() == 3);
        auto records = f.records();
        REQUIRE(!records.empty());
        CHECK(records.back()["event"] == "end");
        CHECK(records.back()["reason"] == "interrupted");
        CHECK(status_counts(f)["unknown"] == 0);
        CHECK(f.wacamp({"resume", f.log.string()}).exit_code == 0);
        CHECK(once_each(delivered(sandbox), 60) == "");
    }

    TEST_CASE("a run stopped by refused credentials says why on stderr, in one line or one error object") {
        Sandbox sandbox({"--api-key", "another-key-123"});
        CampaignFixture f(sandbox, numbers_csv(3));
        auto text = f.wacamp({"run", f.campaign.string()});
        CHECK(text.exit_code == 3);
        auto lines = error_lines(text.err);
        REQUIRE(lines.size() == 1);
        CHECK(contains(lines[0], "stopped early: "));
        CHECK(contains(lines[0], "(auth)"));
        CHECK(contains(lines[0], "wacamp resume "));

        auto json = f.wacamp({"resume", f.log.string(), "--log-format", "json"});
        CHECK(json.exit_code == 3);
        int errors = 0;
        for (const auto& o : objects_of(json.err)) {
            if (o.value("event", "") == "error") {
                ++errors;
                CHECK(o["exit_code"] == 3);
                CHECK(contains(o.value("message", ""), "(auth)"));
            }
        }
        CHECK(errors == 1);
    }

    TEST_CASE("a run that ends with failed recipients says so on stderr") {
        Sandbox sandbox({"--reject-number", numbers_wa_id(1)});
        CampaignFixture f(sandbox, numbers_csv(3));
        auto r = f.wacamp({"run", f.campaign.string()});
        CHECK(r.exit_code == 1);
        auto lines = error_lines(r.err);
        REQUIRE(lines.size() == 1);
        CHECK(contains(lines[0], "1 recipient(s) failed (undeliverable 1), 0 unknown"));
        CHECK(contains(lines[0], "to try them again: wacamp resume " + f.log.string() + " --retry-failed"));
    }

    TEST_CASE("escape sequences from the service are shown escaped, never sent to the terminal") {
        const std::string evil =
            "\x1b]0;evil\x07\x1b[2J\xc2\x9b"
            "31m\x7f\xe2\x80\xae";
        ScriptedServer server([&](const ReceivedRequest& req) -> Reply {
            if (path_of(req) == "/whatsapp-automation/wa/templates") {
                nlohmann::json record = {
                    {"status", "APPROVED" + evil},
                    {"updatedAt", "2026-01-01"},
                    {"configuration", {{"name", "offer" + evil}, {"category", "x"}, {"language", "en"}}}};
                return answer(200, nlohmann::json({{"success", true}, {"data", {record}}}).dump());
            }
            return answer(401, nlohmann::json({{"success", false}, {"message", "denied " + evil}}).dump());
        });
        Sandbox unused;
        CampaignFixture f(unused, numbers_csv(2));
        f.env["WACAMP_BASE_URL"] = server.url();
        const auto clean = [](const std::string& text) {
            return !contains(text, "\x1b") && !contains(text, "\x07") && !contains(text, "\xc2\x9b") &&
                   !contains(text, "\x7f") && !contains(text, "\xe2\x80\xae");
        };
        auto run = f.wacamp({"run", f.campaign.string()});
        CHECK(run.exit_code == 3);
        CHECK(contains(run.out, "why: "));
        CHECK(contains(run.out, "\\x1b]0;evil\\x07"));
        CHECK(clean(run.out));
        CHECK(clean(run.err));
        auto templates = f.wacamp({"templates", "--base-url", server.url()});
        CHECK(templates.exit_code == 0);
        CHECK(contains(templates.out, "offer\\x1b]0;evil"));
        CHECK(clean(templates.out));
        CHECK(clean(templates.err));
        // --json too: still JSON, and what the service sent, escaped where a terminal would act.
        auto raw = f.wacamp({"templates", "--base-url", server.url(), "--json"});
        CHECK(raw.exit_code == 0);
        CHECK(clean(raw.out));
        CHECK(contains(raw.out, R"(\u009b31m\u007f\u202e)"));
        const auto parsed = nlohmann::json::parse(raw.out.substr(0, raw.out.find('\n')));  // one record a line
        CHECK(parsed["configuration"]["name"] == "offer" + evil);
        // And a run's JSON lines.
        auto json_run = f.wacamp({"run", f.campaign.string(), "--log-format", "json"});
        CHECK(clean(json_run.out));
        CHECK(clean(json_run.err));
    }

    TEST_CASE("a template list that echoes the key in its strings leaves it nowhere: log, output, report") {
        // The template's category, and the error a send answers with, hold the key: both reach
        // the result log's records, which are masked before they are written.
        ScriptedServer server([&](const ReceivedRequest& req) -> Reply {
            const std::string path = path_of(req);
            if (path == "/whatsapp-automation/wa/templates") {
                nlohmann::json record = {{"_id", "66a1b2c3d4e5f60718293a4b"},
                                         {"status", "APPROVED"},
                                         {"updatedAt", "2026-01-01"},
                                         {"configuration",
                                          {{"name", "thanks"},
                                           {"category", "UTILITY " + k_api_key},
                                           {"language", "en"},
                                           {"header", ""},
                                           {"textHeader", ""},
                                           {"body", "Thank you."},
                                           {"footer", ""}}}};
                return answer(200, nlohmann::json({{"success", true}, {"data", {record}}}).dump());
            }
            if (path == "/whatsapp-automation/wa/send-template" && contains(req.body, numbers_wa_id(1))) {
                return answer(400, nlohmann::json({{"success", false}, {"message", "bad key " + k_api_key}}).dump());
            }
            return answer(200, R"({"success":true,"data":{"messageId":"wamid.HBgM1"}})");
        });
        CampaignFixture f(server.url(), numbers_csv(2), "", "message:\n  type: template\n  template: thanks\n");
        const std::vector<std::string> runs[] = {{"run", f.campaign.string(), "--dry-run"},
                                                 {"run", f.campaign.string(), "--no-progress"},
                                                 {"report", f.log.string()},
                                                 {"report", f.log.string(), "--format", "json"}};
        std::vector<std::string> texts;
        for (const auto& args : runs) {
            auto r = f.wacamp(args);
            CAPTURE(args[1]);
            CAPTURE(r.err);
            CHECK(r.exit_code != 2);
            texts.push_back(r.out);
            texts.push_back(r.err);
        }
        texts.push_back(read_file(f.log));
        texts.push_back(read_file(f.dir.path() / "results" / "e2e.dry-run.jsonl"));
        REQUIRE(contains(texts[texts.size() - 2], R"("category":"UTILITY ***")"));
        CHECK(result_of(f, 1)["status"] == "sent");
        CHECK(result_of(f, 2)["status"] == "failed");
        CHECK_FALSE(leaks(k_api_key, texts));
    }

    TEST_CASE("templates counts the requests it made: an answer of success false is not retried") {
        std::atomic<int> listings{0};
        ScriptedServer server([&](const ReceivedRequest& req) -> Reply {
            listings += path_of(req) == "/whatsapp-automation/wa/templates" ? 1 : 0;
            return answer(200, R"({"success": false, "message": "no access to templates"})");
        });
        auto r = run_wacamp({"templates", "--base-url", server.url()}, {{"WACAMP_API_KEY", k_api_key}});
        CHECK(r.exit_code == 1);
        CHECK(contains(r.err, "(1 attempt)"));
        CHECK(contains(r.err, "no access to templates"));
        CHECK(listings == 1);
    }
}
