#include <doctest/doctest.h>

#include "fixtures.hpp"

using namespace e2e;

TEST_SUITE("e2e: report") {
    TEST_CASE("summarises a real campaign's log as text, JSON and CSV") {
        Sandbox sandbox({"--reject-number", numbers_wa_id(3)});
        CampaignFixture f(sandbox, numbers_csv(6) + "12345,Bad,u9\n");
        REQUIRE(f.wacamp({"run", f.campaign.string()}).exit_code == 1);

        auto text = run_wacamp({"report", f.log.string()});
        CHECK(text.exit_code == 0);
        CHECK(text.out.find("e2e") != std::string::npos);
        CHECK(text.out.find("131026") != std::string::npos);

        auto json = run_wacamp({"report", f.log.string(), "--format", "json"});
        REQUIRE(json.exit_code == 0);
        auto j = nlohmann::json::parse(json.out);
        CHECK(j["counts"]["sent"] == 5);
        CHECK(j["counts"]["failed"] == 1);
        CHECK(j["counts"]["invalid"] == 1);
        CHECK(j["latency_ms"]["count"] == 6);

        auto out_file = f.dir.path() / "report.csv";
        auto csv = run_wacamp({"report", f.log.string(), "--format", "csv", "--output", out_file.string()});
        CHECK(csv.exit_code == 0);
        auto content = read_file(out_file);
        CHECK(content.rfind("row,wa_id,user_name,status,attempts,http_status,message_id,cause,error_code,error,at\n",
                            0) == 0);
        CHECK(std::count(content.begin(), content.end(), '\n') == 8);  // header + 7 rows
        CHECK(content.find(",undeliverable,131026,") != std::string::npos);
    }
    TEST_CASE("a unusable log or one that is not a result log exits 2") {
        TempDir dir;
        CHECK(run_wacamp({"report", (dir.path() / "nope.jsonl").string()}).exit_code == 2);
        auto bogus = dir.write("bogus.jsonl", "hello\n");
        auto r = run_wacamp({"report", bogus.string()});
        CHECK(r.exit_code == 2);
        CHECK(r.err.find("bogus.jsonl") != std::string::npos);
    }

    TEST_CASE("a temporary file that cannot be made fails every format with exit 2, and no report") {
        TempDir dir;
        auto log = dir.write(
            "log.jsonl",
            R"({"event":"campaign","name":"e2e","campaign_file":"/c.yaml","campaign_sha256":"aa","recipients_file":)"
            R"("/r.csv","recipients_sha256":"bb","started_at":"2026-11-21T09:00:00.000Z","version":"0.1.0",)"
            R"("mode":"send"})"
            "\n"
            R"({"event":"attempt","row":1,"wa_id":"919812345611","attempt":1,"at":"2026-11-21T09:00:01.000Z"})"
            "\n");
        // A directory no file can be made in, even by root (TMPDIR is used as it is, never /tmp instead).
        const std::string unusable = "/proc";
        for (const std::string format : {"text", "csv", "json", "html"}) {
            CAPTURE(format);
            const auto output = dir.path() / ("report." + format);
            auto r = run_wacamp({"report", log.string(), "--format", format, "--output", output.string()},
                                {{"TMPDIR", unusable}});
            CHECK(r.exit_code == 2);
            CHECK(r.err.find("cannot report on " + log.string()) != std::string::npos);
            CHECK(r.err.find("cannot create a temporary file in " + unusable) != std::string::npos);
            CHECK_FALSE(std::filesystem::exists(output));
            CHECK(run_wacamp({"report", log.string(), "--format", format}).exit_code == 0);
        }
    }

    TEST_CASE("--output is replaced only by a complete report: one cut short leaves the earlier file as it was") {
        Sandbox sandbox;
        CampaignFixture f(sandbox, numbers_csv(20));
        REQUIRE(f.wacamp({"run", f.campaign.string()}).exit_code == 0);
        if (!std::filesystem::exists("/usr/bin/prlimit")) {
            MESSAGE("wacamp-test-skipped: prlimit (util-linux) is not installed");
            return;
        }
        for (const std::string format : {"csv", "text", "html"}) {
            CAPTURE(format);
            const auto output = f.dir.write("earlier." + format, "the earlier report\n");
            // A file size limit below the report's size: the write fails part-way (EFBIG).
            auto cut = run_program({"/usr/bin/prlimit", "--fsize=300", wacamp_path(), "report", f.log.string(),
                                    "--format", format, "--output", output.string()});
            CHECK(cut.exit_code == 2);
            CHECK(cut.err.find("cannot write " + output.string()) != std::string::npos);
            CHECK(read_file(output) == "the earlier report\n");
            // Nothing else was left in the folder, and a complete report replaces the file.
            for (const auto& entry : std::filesystem::directory_iterator(f.dir.path())) {
                CHECK(entry.path().filename().string().rfind(".wacamp-report-", 0) == std::string::npos);
            }
            REQUIRE(run_wacamp({"report", f.log.string(), "--format", format, "--output", output.string()}).exit_code ==
                    0);
            CHECK(read_file(output).size() > 300);
            // With the permissions a file made in place has (the umask's), not mkstemp's 0600.
            const auto made = f.dir.write("made-in-place", "");
            CHECK(std::filesystem::status(output).permissions() == std::filesystem::status(made).permissions());
        }
    }

    TEST_CASE("--output through a symlink replaces the file it names and keeps the link") {
        Sandbox sandbox;
        CampaignFixture f(sandbox, numbers_csv(3));
        REQUIRE(f.wacamp({"run", f.campaign.string()}).exit_code == 0);
        const auto target = f.dir.write("target.csv", "old\n");
        const auto link = f.dir.path() / "link.csv";
        std::filesystem::create_symlink(target, link);
        REQUIRE(run_wacamp({"report", f.log.string(), "--format", "csv", "--output", link.string()}).exit_code == 0);
        CHECK(std::filesystem::is_symlink(link));
        CHECK(read_file(target).rfind("row,wa_id", 0) == 0);
    }
}
