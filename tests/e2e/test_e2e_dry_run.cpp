#include <doctest/doctest.h>
#include <fmt/format.h>

#include "fixtures.hpp"

using namespace e2e;

TEST_SUITE("e2e: dry run and validate") {
    TEST_CASE("every sample campaign validates and dry-runs as shipped") {
        TempDir out;
        Sandbox sandbox({"--api-key", "sample-key"});  // a template campaign's check reads its template list
        const auto folder = std::filesystem::path(WACAMP_SOURCE_DIR) / "campaigns";
        int seen = 0;
        for (const auto& entry : std::filesystem::directory_iterator(folder)) {
            if (entry.path().extension() != ".yaml") {
                continue;
            }
            ++seen;
            CAPTURE(entry.path());
            const EnvOverrides env = {{"WACAMP_BASE_URL", sandbox.url()},
                                      {"WACAMP_API_KEY", "sample-key"},
                                      {"WACAMP_ACCESS_TOKEN", "sample-token"}};
            auto validated = run_wacamp({"validate", entry.path().string()}, env);
            CAPTURE(validated.out);
            CAPTURE(validated.err);
            CHECK(validated.exit_code == 0);
            const auto results = (out.path() / entry.path().stem()).string() + ".jsonl";
            auto dry = run_wacamp({"run", "--dry-run", entry.path().string(), "--results", results}, env);
            CAPTURE(dry.err);
            CHECK(dry.exit_code == 0);
            CHECK(contains(dry.out, "would send"));
            if (entry.path().stem() == "sample-do-not-contact") {
                // Its list holds two of the sample numbers, one written locally: both skipped.
                CHECK(contains(validated.out, "would hold back 2 now: suppressed 2"));
                CHECK(contains(dry.out, "would send 6 · invalid 0 · skipped 2 (suppressed 2)"));
            }
        }
        CHECK(seen >= 6);
    }
    TEST_CASE("--dry-run renders every row, writes its own log and makes no network call") {
        Sandbox sandbox;
        std::string csv = numbers_csv(5) + "12345,Bad,u9\n";
        CampaignFixture f(sandbox, csv);
        f.env["WACAMP_API_KEY"] = k_unset;  // a dry run needs no secret
        auto r = f.wacamp({"run", f.campaign.string(), "--dry-run"});
        CHECK(r.exit_code == 0);
        CHECK(sandbox.journal().empty());
        CHECK(r.out.find("\"text\":\"Hi Person 0\"") != std::string::npos);
        CHECK(r.out.find("would send 5") != std::string::npos);
        auto dry_log = f.dir.path() / "results" / "e2e.dry-run.jsonl";
        auto records = read_jsonl(dry_log);
        REQUIRE(records.size() == 8);  // header, 6 rows, end
        CHECK(records[0]["mode"] == "dry_run");
        CHECK(records[1]["status"] == "dry_run");
        CHECK(records[6]["status"] == "invalid");
        CHECK_FALSE(std::filesystem::exists(f.log));
        // Dry runs start afresh each time.
        REQUIRE(f.wacamp({"run", f.campaign.string(), "--dry-run"}).exit_code == 0);
        CHECK(read_jsonl(dry_log).size() == 8);
    }
    TEST_CASE("validate lists every bad row with file and line, and exits 0 when rows can go") {
        Sandbox sandbox;
        std::string csv =
            "phone,name,user_id\n"
            "+919812300001,Asha,u1\n"
            "12345,Short,u2\n"
            "\"+91 98123 00003\",\"Multi\nline\",u3\n"
            "+919812300004,,u4\n"
            "+919812300005,Bad\xff\xfeName,u5\n";
        CampaignFixture f(sandbox, csv);
        auto r = f.wacamp({"validate", f.campaign.string()});
        CHECK(r.out.find("recipients.csv:7: row 5: column \"name\"") != std::string::npos);
        CHECK(r.out.find("row 5: row 5") == std::string::npos);
        CHECK(r.exit_code == 0);
        CHECK(r.out.find("recipients.csv:3: row 2:") != std::string::npos);
        CHECK(r.out.find("recipients.csv:6: row 4:") != std::string::npos);
        CHECK(r.out.find("5 rows: 2 to send, 3 invalid") != std::string::npos);
        CHECK(sandbox.journal().empty());
        CHECK_FALSE(std::filesystem::exists(f.log));
    }
    TEST_CASE(
        "without default_country, local numbers are not read as foreign: the list is refused, saying what to set") {
        Sandbox sandbox;
        CampaignFixture f(sandbox, seven_formats_csv(8009));
        edit_campaign(f, "  default_country: IN\n", "");
        auto v = f.wacamp({"validate", f.campaign.string()});
        CAPTURE(v.err);
        CHECK(v.exit_code == 2);
        // The fourth row, written "0…", has only a local reading; the fifth, two.
        CHECK(contains(v.out,
                       "recipients.csv:5: row 4: column \"phone\": \"08222500003\" is not a valid number with "
                       "a country code, but a local number: +918222500003 in IN"));
        CHECK(contains(v.out,
                       "recipients.csv:13: row 12: column \"phone\": \"8222500011\" reads two ways: "
                       "+8222500011 in KR, or as a local number +918222500011 in IN"));
        CHECK(contains(v.out, "set recipients.default_country, or write the number with +"));
        CHECK(contains(v.err, "are invalid, more than abort.max_invalid_share (5.0%) allows: nothing is sent"));
        CHECK(contains(v.err, "The most common reasons:\n  "));
        CHECK(contains(v.err, "set recipients.default_country: IN"));
        CHECK(contains(v.err, "would be refused: too many invalid rows"));

        auto dry = f.wacamp({"run", "--dry-run", f.campaign.string()});
        CHECK(dry.exit_code == 2);
        CHECK(contains(dry.err, "set recipients.default_country: IN"));
        CHECK_FALSE(std::filesystem::exists(f.dir.path() / "results" / "e2e.dry-run.jsonl"));
        CHECK(sandbox.journal().empty());
    }
    TEST_CASE("with default_country: IN every number of the seven formats is read as Indian") {
        Sandbox sandbox;
        CampaignFixture f(sandbox, seven_formats_csv(8009));
        auto v = f.wacamp({"validate", f.campaign.string()});
        CHECK(v.exit_code == 0);
        CHECK(contains(v.out, "8009 rows: 8009 to send, 0 invalid, 0 duplicates"));
        auto dry = f.wacamp({"run", "--dry-run", f.campaign.string()});
        REQUIRE(dry.exit_code == 0);
        long long checked = 0;
        for (const auto& rec : read_jsonl(f.dir.path() / "results" / "e2e.dry-run.jsonl")) {
            if (rec.value("event", "") == "result") {
                CHECK(rec["wa_id"] == seven_formats_wa_id(rec["row"].get<int>() - 1));
                ++checked;
            }
        }
        CHECK(checked == 8009);
    }
    TEST_CASE("a raised abort.max_invalid_share lets a list with many invalid rows through") {
        Sandbox sandbox;
        std::string csv = numbers_csv(20);
        for (int i = 0; i < 11; ++i) {
            csv += fmt::format("12345{},Bad,u{}\n", i, i);
        }
        CampaignFixture f(sandbox, csv);
        auto refused = f.wacamp({"validate", f.campaign.string()});
        CHECK(refused.exit_code == 2);
        CHECK(contains(refused.err, "11 of 31 rows of"));
        CHECK(contains(refused.err, "11 × column \"phone\": \"…\" is not a valid number for IN"));
        edit_campaign(f, "results:", "abort: {max_invalid_share: 0.5}\nresults:");
        auto v = f.wacamp({"validate", f.campaign.string()});
        CHECK(v.exit_code == 0);
        CHECK(contains(v.out, "31 rows: 20 to send, 11 invalid"));
        auto dry = f.wacamp({"run", "--dry-run", f.campaign.string()});
        CHECK(dry.exit_code == 0);
        CHECK(contains(dry.out, "would send 20"));
    }
    TEST_CASE("validate reports campaign-file problems with their line and exits 2") {
        Sandbox sandbox;
        CampaignFixture f(sandbox, numbers_csv(2), "retry: {max_attempts: 0, initial_backoff: soon}\n");
        auto r = f.wacamp({"validate", f.campaign.string()});
        CHECK(r.exit_code == 2);
        CHECK(r.err.find("campaign.yaml:") != std::string::npos);
        CHECK(r.err.find("max_attempts") != std::string::npos);
        CHECK(r.err.find("initial_backoff") != std::string::npos);
    }
}
