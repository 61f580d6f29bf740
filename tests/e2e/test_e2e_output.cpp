// What reaches people: secrets a service echoes back, text that could drive a terminal or a
// spreadsheet, output streams that fail, and why a run ended.

#include <doctest/doctest.h>

#include <csignal>
#include <fmt/format.h>

#include "fixtures.hpp"
#include "scripted_server.hpp"

using namespace e2e;

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
    return fmt::format("raw {} json {} url {} lower {} html {}", secret, json.substr(1, json.size() - 2), upper,
                       lower, html);
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

} // namespace

TEST_SUITE("e2e: output") {
    TEST_CASE("a key or token the service echoes back is masked in the log, every output and every report") {
        // Each secret holds a marker that no encoding changes: if any form of it got through,
        // the marker shows.
        const std::string key = "ak+Secret/Key=\"QX7keymark\"";
        const std::string token = "tok/En+Secret=\"QX7tokmark\"";
        ScriptedServer server([&](const ScriptedRequest& req) -> ScriptedReply {
            if (req.path == "/inbox/users/status-update") {
                return {401, nlohmann::json({{"message", "bad token Bearer " + token + ": " + echoed(token)}}).dump()};
            }
            const auto wa_id = nlohmann::json::parse(req.body).value("wa_id", "");
            if (wa_id == numbers_wa_id(0)) {
                return {400, nlohmann::json({{"success", false}, {"message", "refused " + echoed(key)}}).dump()};
            }
            if (wa_id == numbers_wa_id(1)) {
                return {400, "<html>refused " + echoed(key) + "</html>", "text/html"};
            }
            if (wa_id == numbers_wa_id(2)) {
                return {200, nlohmann::json({{"success", true}, {"data", {{"messageId", "wamid." + key}}}}).dump()};
            }
            if (wa_id == numbers_wa_id(3)) {
                return {200, R"({"success": true, "data": {"messageId": "wamid.ok"}})"};
            }
            return {401, nlohmann::json({{"error", {{"message", "Invalid key " + echoed(key)}, {"code", 190}}}}).dump()};
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
        CHECK(server.requests()["/inbox/users/status-update"] >= 1);
        CHECK(count_events(f, "delete") >= 1);
        CHECK(contains(read_file(f.log), "***"));  // the texts are kept, the secrets masked

        CHECK(leaked("QX7keymark", runs, {f.log}) == "");
        CHECK(leaked("QX7tokmark", runs, {f.log}) == "");
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
}
