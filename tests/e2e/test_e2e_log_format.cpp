// `--log-format json` on run, resume and delete-contacts: every line on stdout and stderr is
// one JSON object for a log collector; text stays what people read.
#include <doctest/doctest.h>

#include <set>
#include <sstream>

#include "fixtures.hpp"

using namespace e2e;

namespace {

// Each line of `text` parsed ("\r\n" line ends too); a line that is not a JSON object with
// time, level and event fails the test.
std::vector<nlohmann::json> objects(const std::string& text) {
    static const std::set<std::string> levels = {"info", "warning", "error"};
    std::vector<nlohmann::json> out;
    std::istringstream lines(text);
    for (std::string line; std::getline(lines, line);) {
        if (!line.empty() && line.back() == '\r') {
            line.pop_back();
        }
        if (line.empty()) {
            continue;
        }
        auto j = nlohmann::json::parse(line, nullptr, false);
        CHECK_MESSAGE(j.is_object(), line);
        if (!j.is_object()) {
            continue;
        }
        CHECK_MESSAGE((j["time"].is_string() && j["time"].get<std::string>().size() == 24), line);
        CHECK_MESSAGE((j["level"].is_string() && levels.count(j["level"].get<std::string>()) == 1), line);
        CHECK_MESSAGE(j["event"].is_string(), line);
        out.push_back(std::move(j));
    }
    return out;
}

}  // namespace

TEST_SUITE("e2e: log_format") {
    TEST_CASE("json: every line is an object; progress, then one summary whose counts match the log") {
        Sandbox sandbox({"--reject-number", numbers_wa_id(1)});
        CampaignFixture f(sandbox, numbers_csv(4) + "12345,Bad number,u-x\n");
        auto r = f.wacamp({"run", f.campaign.string(), "--log-format", "json"});
        CAPTURE(r.out);
        CAPTURE(r.err);
        CHECK(r.exit_code == 1);  // one rejected
        const auto out = objects(r.out);
        const auto err = objects(r.err);
        REQUIRE(out.size() == 1);
        const auto& summary = out[0];
        CHECK(summary["event"] == "summary");
        CHECK(summary["level"] == "warning");
        CHECK(summary["exit_code"] == 1);
        auto counts = status_counts(f);
        CHECK(summary["sent"] == counts["sent"]);
        CHECK(summary["failed"] == counts["failed"]);
        CHECK(summary["invalid"] == counts["invalid"]);
        CHECK(summary["sent"] == 3);
        CHECK(summary["failed"] == 1);
        CHECK(summary["invalid"] == 1);
        CHECK(summary["results"] == f.log.string());
        // The failed row is undeliverable (131026): only --retry-failed would send it again.
        CHECK(summary["resume_command"].is_null());
        CHECK(summary["retry_failed_command"] == "wacamp resume " + f.log.string() + " --retry-failed");
        CHECK(summary["causes"]["undeliverable"] == 1);
        CHECK(summary["duration_ms"].is_number_integer());
        // Progress is an object, never a live line: the first comes as sending starts.
        const auto progress = of_event(err, "progress");
        REQUIRE_FALSE(progress.empty());
        CHECK(progress[0]["remaining"].is_number());
        CHECK(progress[0]["in_flight"].is_number());
        CHECK(progress[0]["paused"] == false);
        CHECK_FALSE(contains(r.err, "\r"));
        CHECK_FALSE(contains(r.err, "\x1b"));
    }

    TEST_CASE("json with --no-progress: no progress objects, still the summary") {
        Sandbox sandbox;
        CampaignFixture f(sandbox, numbers_csv(3));
        auto r = f.wacamp({"run", f.campaign.string(), "--log-format", "json", "--no-progress"});
        CAPTURE(r.err);
        CHECK(r.exit_code == 0);
        CHECK(of_event(objects(r.err), "progress").empty());
        const auto out = objects(r.out);
        REQUIRE(out.size() == 1);
        CHECK(out[0]["event"] == "summary");
        CHECK(out[0]["level"] == "info");
        CHECK(out[0]["sent"] == 3);
        CHECK(out[0]["resume_command"].is_null());
    }

    TEST_CASE("json: a bad campaign file is one error object with FILE:LINE and exit 2") {
        Sandbox sandbox;
        CampaignFixture f(sandbox, numbers_csv(2), "rate: {per_sec: 5}\n");
        auto r = f.wacamp({"run", f.campaign.string(), "--log-format", "json"});
        CHECK(r.exit_code == 2);
        CHECK(r.out.empty());
        const auto err = objects(r.err);
        REQUIRE(err.size() == 1);
        CHECK(err[0]["event"] == "error");
        CHECK(err[0]["level"] == "error");
        CHECK(err[0]["exit_code"] == 2);
        const std::string message = err[0]["message"];
        CHECK(contains(message, "campaign.yaml:"));
        CHECK(contains(message, "per_sec"));
        CHECK(sandbox.journal().empty());
    }

    TEST_CASE("json: refused credentials end in an error-level summary, and the key appears nowhere") {
        const std::string key = "wk-JSONLOG-4b1d9e7c2a5f8e3d6c0b9a8f7e6d5c4b";
        const std::string wrong_key = "wk-WRONG-JSONLOG-1a2b3c4d5e6f7a8b9c0d1e2f3a4b";
        Sandbox sandbox({"--api-key", key});
        CampaignFixture f(sandbox, numbers_csv(3));
        f.env["WACAMP_API_KEY"] = wrong_key;
        auto r = f.wacamp({"run", f.campaign.string(), "--log-format", "json"});
        CAPTURE(r.out);
        CHECK(r.exit_code == 3);
        const auto out = objects(r.out);
        objects(r.err);
        REQUIRE(out.size() == 1);
        CHECK(out[0]["reason"] == "auth");
        CHECK(out[0]["level"] == "error");
        CHECK(out[0]["exit_code"] == 3);
        CHECK(out[0]["fix_first"].is_string());
        CHECK(out[0]["resume_command"] == "wacamp resume " + f.log.string());
        CHECK_FALSE(leaks(wrong_key, {r.out, r.err}));
    }

    TEST_CASE("json: a row whose message would hold the key is refused, the key shown nowhere, JSON-escaped or not") {
        // A key with a quote and a backslash, which JSON escapes; a CSV column puts it in the
        // message (a campaign file that holds it is refused: see the campaign-file tests). The
        // row would carry the key to its recipient: it is invalid, never sent or previewed.
        const std::string key = "wk-\"QUOTED\\back-5e8d";
        const std::string csv = R"(phone,name,user_id,code
+)" + numbers_wa_id(0) + R"(,Person 0,u-0,"wk-""QUOTED\back-5e8d"
+)" + numbers_wa_id(1) + R"(,Person 1,u-1,plain
)";
        Sandbox sandbox;
        CampaignFixture f(sandbox, csv, "", "message:\n  type: text\n  text: 'Hi {{name}} {{code}}'\n");
        f.env["WACAMP_API_KEY"] = key;
        for (const std::string format : {"json", "text"}) {
            auto r = f.wacamp({"run", f.campaign.string(), "--dry-run", "--log-format", format});
            CAPTURE(r.out);
            CHECK(r.exit_code == 0);
            CHECK(contains(r.out, "row 1: the message would hold the value of a secret"));
            CHECK_FALSE(contains(r.out + r.err, "QUOTED"));
        }
        const auto out = objects(f.wacamp({"run", f.campaign.string(), "--dry-run", "--log-format", "json"}).out);
        REQUIRE(out.size() == 1);
        CHECK(out[0]["event"] == "dry_run");
        CHECK(out[0]["would_send"] == 1);
        CHECK(out[0]["invalid"] == 1);
        REQUIRE(out[0]["samples"].size() == 1);
        CHECK(out[0]["samples"][0]["body"]["message"]["text"] == "Hi Person 1 plain");
        const std::string dry_log = read_file(f.dir.path() / "results" / "e2e.dry-run.jsonl");
        CHECK(contains(dry_log, "the message would hold the value of a secret"));
        CHECK_FALSE(contains(dry_log, "QUOTED"));
    }

    TEST_CASE("a secret in a CSV cell never reaches the result log, as a name, a message or a reason") {
        // Row 1 is named with the key (sent as it is: the service issued it); row 2's phone
        // cell holds it, so its reason quotes it.
        const std::string csv =
            "phone,name,user_id\n+" + numbers_wa_id(0) + "," + k_api_key + ",u-0\n" + k_api_key + ",Person 1,u-1\n";
        Sandbox sandbox;
        CampaignFixture f(sandbox, csv);
        auto r = f.wacamp({"run", f.campaign.string()});
        CHECK(r.exit_code == 0);  // an invalid row is not a failure (docs/commands.md: exit codes)
        const std::string log = read_file(f.log);
        CHECK(contains(log, R"("user_name":"***")"));
        CHECK(contains(log, R"(\"***\" is not a phone number)"));
        CHECK_FALSE(leaks(k_api_key, {r.out, r.err, log}));
        auto report = f.wacamp({"report", f.log.string(), "--format", "json"});
        CHECK_FALSE(leaks(k_api_key, {report.out, report.err}));
    }

    TEST_CASE("json: resume and delete-contacts speak it too") {
        Sandbox sandbox;
        CampaignFixture f(sandbox, numbers_csv(3), "cleanup: {delete_contacts: true, batch_size: 10}\n");
        auto first = f.wacamp({"run", f.campaign.string(), "--limit", "2", "--log-format", "json"});
        CHECK(first.exit_code == 0);
        REQUIRE(objects(first.out).size() == 1);
        CHECK(objects(first.out)[0]["reason"] == "limit");

        auto resumed = f.wacamp({"resume", f.log.string(), "--log-format", "json"});
        CAPTURE(resumed.err);
        CHECK(resumed.exit_code == 0);
        const auto notices = of_event(objects(resumed.err), "notice");
        REQUIRE_FALSE(notices.empty());
        CHECK(contains(notices[0]["message"].get<std::string>(), "the log holds 2 sent"));
        const auto summary = objects(resumed.out);
        REQUIRE(summary.size() == 1);
        CHECK(summary[0]["sent"] == 3);
        CHECK(summary[0]["cleanup"]["ids_deleted"] == 3);

        auto again = f.wacamp({"delete-contacts", f.log.string(), "--log-format", "json"});
        CHECK(again.exit_code == 0);
        CHECK(again.err.empty());
        const auto deleted = objects(again.out);
        REQUIRE(deleted.size() == 1);
        CHECK(deleted[0]["event"] == "summary");
        CHECK(deleted[0]["ids_deleted"] == 0);
        CHECK(deleted[0]["finish_command"].is_null());
    }

    TEST_CASE("text is what it always was: --log-format text prints no JSON") {
        Sandbox sandbox;
        CampaignFixture f(sandbox, numbers_csv(3));
        auto r = f.wacamp({"run", f.campaign.string(), "--log-format", "text", "--limit", "2"});
        CHECK(r.exit_code == 0);
        CHECK(r.out.rfind("e2e: stopped at --limit in ", 0) == 0);
        CHECK(contains(
            r.out, "\n  sent 2 · failed 0 · unknown 0 · invalid 0 · skipped 0 · remaining 1 (not yet attempted)\n"));
        auto rest = f.wacamp({"run", f.campaign.string()});
        CHECK(rest.err.rfind("wacamp: continuing from ", 0) == 0);
        CHECK_FALSE(contains(r.out + r.err + rest.out + rest.err, "{\"time\""));
    }

    TEST_CASE("json on a terminal: without --yes it refuses (exit 2); with --yes no live line is drawn") {
        Sandbox sandbox;
        CampaignFixture f(sandbox, numbers_csv(3));
        auto refused = on_terminal(f, {"run", f.campaign.string(), "--log-format", "json"});
        CAPTURE(refused.out);
        CHECK(refused.exit_code == 2);
        const auto error = objects(refused.out);
        REQUIRE(error.size() == 1);
        CHECK(error[0]["event"] == "error");
        CHECK(contains(error[0]["message"].get<std::string>(), "--yes"));
        CHECK(sandbox.journal().empty());

        auto sent = on_terminal(f, {"run", f.campaign.string(), "--log-format", "json", "--yes"});
        CAPTURE(sent.out);
        CHECK(sent.exit_code == 0);
        CHECK_FALSE(contains(sent.out, "\x1b["));
        const auto all = objects(sent.out);
        CHECK_FALSE(of_event(all, "progress").empty());
        CHECK(of_event(all, "summary").size() == 1);
        CHECK(delivered(sandbox).size() == 3);
    }
}
