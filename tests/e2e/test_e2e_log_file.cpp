// --log-file on run, resume and delete-contacts: what stderr shows, and the summary, appended
// to a file in the --log-format, secrets masked; a file that cannot be opened sends nothing.
#include <doctest/doctest.h>

#include <sys/stat.h>

#include <sstream>

#include "fixtures.hpp"

using namespace e2e;

TEST_SUITE("e2e: log_file") {
    TEST_CASE("json: run and resume append their diagnostics, progress and summaries to one file") {
        Sandbox sandbox({"--reject-number", numbers_wa_id(3)});
        CampaignFixture f(sandbox, numbers_csv(4));
        const auto file = f.dir.path() / "wacamp.log";
        auto first =
            f.wacamp({"run", f.campaign.string(), "--limit", "2", "--log-format", "json", "--log-file", file.string()});
        CAPTURE(first.err);
        CHECK(first.exit_code == 0);  // stopped at the limit, none failed
        auto again = f.wacamp({"resume", f.log.string(), "--log-format", "json", "--log-file", file.string()});
        CAPTURE(again.err);
        CHECK(again.exit_code == 1);  // one rejected
        const auto lines = read_jsonl(file);
        CAPTURE(read_file(file));
        const auto summaries = of_event(lines, "summary");
        REQUIRE(summaries.size() == 2);
        CHECK(summaries[0]["reason"] != "completed");
        CHECK(summaries[1]["sent"] == 3);
        CHECK(summaries[1]["failed"] == 1);
        CHECK(summaries[1]["campaign"] == "e2e");
        CHECK_FALSE(of_event(lines, "progress").empty());
        CHECK_FALSE(of_event(lines, "notice").empty());  // "continuing from …"
        const auto errors = of_event(lines, "error");
        REQUIRE_FALSE(errors.empty());
        CHECK(errors.back()["exit_code"] == 1);
        // Every line of the file is an object, and it holds what stderr held, and more.
        const auto text = read_file(file);
        CHECK(lines.size() == static_cast<size_t>(std::count(text.begin(), text.end(), '\n')));
        CHECK_FALSE(leaks(k_access_token, {text}));
    }
    TEST_CASE("text: the file reads as the terminal would, summary included") {
        Sandbox sandbox;
        CampaignFixture f(sandbox, numbers_csv(3) + "12345,Bad number,u-x\n");
        const auto file = f.dir.path() / "wacamp.log";
        auto r = f.wacamp({"run", f.campaign.string(), "--log-file", file.string()});
        CAPTURE(r.err);
        CHECK(r.exit_code == 0);
        const auto text = read_file(file);
        CAPTURE(text);
        CHECK(contains(text, "e2e: completed"));
        CHECK(contains(text, "sent 3"));
        CHECK(contains(r.out, "e2e: completed"));  // stdout unchanged
        CHECK_FALSE(contains(text, "{\"time\""));
    }
    TEST_CASE("delete-contacts appends its summary too") {
        Sandbox sandbox;
        CampaignFixture f(sandbox, numbers_csv(2), "cleanup: {delete_contacts: true, batch_size: 10}\n");
        REQUIRE(f.wacamp({"run", f.campaign.string(), "--no-progress"}).exit_code == 0);
        const auto file = f.dir.path() / "cleanup.log";
        auto r = f.wacamp({"delete-contacts", f.log.string(), "--log-format", "json", "--log-file", file.string()});
        CAPTURE(r.err);
        CHECK(r.exit_code == 0);
        const auto lines = read_jsonl(file);
        CAPTURE(read_file(file));
        REQUIRE_FALSE(lines.empty());
        CHECK(lines.back()["level"] == "info");
        CHECK(r.out.find(lines.back()["event"].get<std::string>()) != std::string::npos);
    }
    TEST_CASE("a log file in a folder that does not exist: exit 2, named, nothing sent, no result log") {
        Sandbox sandbox;
        CampaignFixture f(sandbox, numbers_csv(2));
        const auto file = f.dir.path() / "no-such-folder" / "wacamp.log";
        auto r = f.wacamp({"run", f.campaign.string(), "--yes", "--log-file", file.string()});
        CHECK(r.exit_code == 2);
        CHECK(contains(r.err, file.string()));
        CHECK(contains(r.err, "does not exist"));
        CHECK(send_requests(sandbox) == 0);
        CHECK_FALSE(std::filesystem::exists(f.log));
        CHECK_FALSE(std::filesystem::exists(file.parent_path()));
    }
    TEST_CASE(
        "a log file that is the campaign file, its CSV or its result log: exit 2, the file untouched, nothing sent") {
        Sandbox sandbox;
        CampaignFixture f(sandbox, numbers_csv(2));
        for (const auto& target : {f.campaign, f.csv}) {
            CAPTURE(target);
            const auto before = read_file(target);
            auto r = f.wacamp({"run", f.campaign.string(), "--yes", "--log-file", target.string()});
            CHECK(r.exit_code == 2);
            CHECK(contains(r.err, "a log must not be written into it"));
            CHECK(read_file(target) == before);
        }
        // The result log does not exist yet: the log file would have made it, and must not leave
        // an empty file there (the next run would refuse it as a log rotated away).
        std::filesystem::create_directories(f.log.parent_path());
        auto r = f.wacamp({"run", f.campaign.string(), "--yes", "--log-file", f.log.string()});
        CHECK(r.exit_code == 2);
        CAPTURE(r.err);
        CHECK(contains(r.err, "the result log"));
        CHECK_FALSE(std::filesystem::exists(f.log));
        CHECK(send_requests(sandbox) == 0);
        // Once it exists, resume refuses it as a log file too.
        REQUIRE(f.wacamp({"run", f.campaign.string(), "--no-progress"}).exit_code == 0);
        const auto log_before = read_file(f.log);
        auto again = f.wacamp({"resume", f.log.string(), "--log-file", f.log.string()});
        CHECK(again.exit_code == 2);
        CHECK(read_file(f.log) == log_before);
    }
    TEST_CASE("a log file whose rotation names are the result log is refused: rotation would move the log away") {
        Sandbox sandbox;
        CampaignFixture f(sandbox, numbers_csv(2));
        std::filesystem::create_directories(f.log.parent_path());
        // spdlog rotates L.jsonl to L.1.jsonl … L.5.jsonl.
        const auto results = f.dir.path() / "results" / "L.3.jsonl";
        const auto log_file = f.dir.path() / "results" / "L.jsonl";
        auto r = f.wacamp(
            {"run", f.campaign.string(), "--yes", "--results", results.string(), "--log-file", log_file.string()});
        CAPTURE(r.err);
        CHECK(r.exit_code == 2);
        CHECK(contains(r.err, "--log-file " + log_file.string() + " is rotated to " + results.string()));
        CHECK_FALSE(std::filesystem::exists(results));
        CHECK(send_requests(sandbox) == 0);
        // A log that exists already (a resume) is refused the same way, and left as it was.
        REQUIRE(f.wacamp({"run", f.campaign.string(), "--no-progress"}).exit_code == 0);
        const auto rotated_name = f.dir.path() / "results" / "e2e.jsonl";
        REQUIRE(rotated_name == f.log);
        const auto before = read_file(f.log);
        const auto other = f.dir.path() / "results" / "e2e";  // no extension: e2e.1, … e2e.5
        std::filesystem::rename(f.log, other.string() + ".1");
        auto again = f.wacamp({"resume", other.string() + ".1", "--log-file", other.string()});
        CAPTURE(again.err);
        CHECK(again.exit_code == 2);
        CHECK(read_file(other.string() + ".1") == before);
        // --help names the rotated files as spdlog makes them.
        CHECK(contains(f.wacamp({"run", "--help"}).out, "NAME.1.log"));
    }
    TEST_CASE("--metrics-file that is the result log, the campaign file or the log file: exit 2, untouched") {
        Sandbox sandbox;
        CampaignFixture f(sandbox, numbers_csv(2));
        std::filesystem::create_directories(f.log.parent_path());
        const auto prom = f.dir.path() / "results" / "out.prom";
        auto r = f.wacamp(
            {"run", f.campaign.string(), "--yes", "--results", prom.string(), "--metrics-file", prom.string()});
        CAPTURE(r.err);
        CHECK(r.exit_code == 2);
        CHECK(contains(r.err, "--metrics-file " + prom.string() + " is the result log"));
        CHECK_FALSE(std::filesystem::exists(prom));
        const auto before = read_file(f.campaign);
        auto c = f.wacamp({"run", f.campaign.string(), "--yes", "--metrics-file", f.campaign.string()});
        CHECK(c.exit_code == 2);
        CHECK(read_file(f.campaign) == before);
        const auto log_file = f.dir.path() / "wacamp.prom";
        auto l = f.wacamp({"run", f.campaign.string(), "--yes", "--log-file", log_file.string(), "--metrics-file",
                           log_file.string()});
        CAPTURE(l.err);
        CHECK(l.exit_code == 2);
        CHECK(contains(l.err, "the --log-file"));
        CHECK(send_requests(sandbox) == 0);
    }
    TEST_CASE("a symlink to the campaign's CSV as the log file is refused: the CSV is untouched") {
        Sandbox sandbox;
        CampaignFixture f(sandbox, numbers_csv(2));
        const auto link = f.dir.path() / "innocent.log";
        std::filesystem::create_symlink(f.csv, link);
        const auto before = read_file(f.csv);
        auto r = f.wacamp({"run", f.campaign.string(), "--yes", "--log-file", link.string()});
        CHECK(r.exit_code == 2);
        CHECK(contains(r.err, "the recipient CSV"));
        CHECK(read_file(f.csv) == before);
        CHECK(send_requests(sandbox) == 0);
    }
    TEST_CASE("a FIFO as the log file is refused at once instead of waiting for a reader") {
        Sandbox sandbox;
        CampaignFixture f(sandbox, numbers_csv(1));
        const auto fifo = f.dir.path() / "log.fifo";
        REQUIRE(::mkfifo(fifo.c_str(), 0600) == 0);
        auto r = f.wacamp({"run", f.campaign.string(), "--yes", "--log-file", fifo.string()});
        CHECK(r.exit_code == 2);
        CHECK(contains(r.err, "is not a regular file"));
        CHECK(send_requests(sandbox) == 0);
    }
}
