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
    TEST_CASE("validate --rows lists every bad row with file and line, and exits 0 when rows can go") {
        Sandbox sandbox;
        std::string csv =
            "phone,name,user_id\n"
            "+919812300001,Asha,u1\n"
            "12345,Short,u2\n"
            "\"+91 98123 00003\",\"Multi\nline\",u3\n"
            "+919812300004,,u4\n"
            "+919812300005,Bad\xff\xfeName,u5\n";
        CampaignFixture f(sandbox, csv);
        auto r = f.wacamp({"validate", f.campaign.string(), "--rows"});
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
        auto v = f.wacamp({"validate", f.campaign.string(), "--rows"});
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

    TEST_CASE("validate groups the rows' problems by reason, a count and the first rows each; --rows lists each row") {
        Sandbox sandbox;
        std::string csv = numbers_csv(12);
        for (int i = 0; i < 9; ++i) {
            csv += fmt::format("12345{},Bad {},u{}\n", i, i, i);  // rows 13 to 21
        }
        csv += "+919812300001,Again,u1\n+919812300002,Again,u2\n";  // rows 22 and 23: duplicates
        csv += "+919812300099,,u3\n";                               // row 24: no name
        CampaignFixture f(sandbox, csv);
        auto v = f.wacamp({"validate", f.campaign.string()});
        CAPTURE(v.err);
        CHECK(v.exit_code == 0);
        CHECK(contains(v.out, "24 rows: 12 to send, 10 invalid, 2 duplicates\n"));
        CHECK(contains(v.out,
                       "recipients.csv: rows not to be sent, by reason (validate --rows lists each row):\n"
                       "  9 × column \"phone\": \"…\" is not a valid number for IN (rows 13, 14, 15, 16, 17 "
                       "and 4 more)\n"
                       "  1 × column \"name\" is empty (row 24)\n"
                       "  2 × skipped: duplicate of an earlier row (rows 22, 23)\n"));
        CHECK_FALSE(contains(v.out, "row 13:"));  // no line a row
        CHECK(contains(v.out, "plan: 12 messages"));

        auto every = f.wacamp({"validate", f.campaign.string(), "--rows"});
        CHECK(every.exit_code == 0);
        for (int row = 13; row <= 21; ++row) {
            CHECK(contains(every.out, fmt::format("recipients.csv:{}: row {}: column \"phone\": \"12345{}\" is not",
                                                  row + 1, row, row - 13)));
        }
        CHECK(contains(every.out, "recipients.csv:23: row 22: skipped: duplicate of row 2\n"));
        CHECK(contains(every.out, "recipients.csv:25: row 24: column \"name\" is empty\n"));
        CHECK(contains(every.out, "  9 × column \"phone\""));  // the reasons still follow
        CHECK(sandbox.journal().empty());
    }

    TEST_CASE("validate --log-format json: one object with the counts, the reasons and the plan; --rows one a row") {
        Sandbox sandbox;
        std::string csv = numbers_csv(3) + "12345,Bad,u9\n+919812300000,Again,u1\n";
        CampaignFixture f(sandbox, csv);
        auto v = f.wacamp({"validate", f.campaign.string(), "--log-format", "json"});
        CAPTURE(v.err);
        CHECK(v.exit_code == 0);
        const auto lines = json_lines(v.out);
        REQUIRE(lines.size() == 1);
        const auto& summary = lines[0];
        CHECK(summary["event"] == "validate");
        CHECK(summary["campaign"] == "e2e");
        CHECK(summary["rows"] == 5);
        CHECK(summary["to_send"] == 3);
        CHECK(summary["invalid"] == 1);
        CHECK(summary["duplicates"] == 1);
        CHECK(summary["exit_code"] == 0);
        REQUIRE(summary["reasons"].size() == 2);
        CHECK(summary["reasons"][0] ==
              nlohmann::json{{"status", "invalid"},
                             {"reason", "column \"phone\": \"…\" is not a valid number for IN"},
                             {"count", 1},
                             {"rows", {4}}});
        CHECK(summary["reasons"][1] ==
              nlohmann::json{
                  {"status", "skipped"}, {"reason", "duplicate of an earlier row"}, {"count", 1}, {"rows", {5}}});
        CHECK(summary["plan"]["messages"] == 3);

        auto rows = f.wacamp({"validate", f.campaign.string(), "--log-format", "json", "--rows"});
        const auto row_lines = json_lines(rows.out);
        REQUIRE(row_lines.size() == 3);
        const auto& first = row_lines[0];
        CHECK(first["event"] == "row");
        CHECK(first["row"] == 4);
        CHECK(first["line"] == 5);
        CHECK(first["status"] == "invalid");
        CHECK(first["reason"] == "column \"phone\": \"12345\" is not a valid number for IN");
        CHECK(row_lines[1]["status"] == "skipped");
        CHECK(row_lines[2]["event"] == "validate");

        // A campaign file with a problem: one error object on stderr, nothing on stdout.
        edit_campaign(f, "  timeout: 5s\n", "  timout: 5s\n");
        auto bad = f.wacamp({"validate", f.campaign.string(), "--log-format", "json"});
        CHECK(bad.exit_code == 2);
        CHECK(bad.out.empty());
        const auto error = json_lines(bad.err).back();
        CHECK(error["exit_code"] == 2);
        CHECK(contains(error["message"].get<std::string>(), "campaign.yaml:6: unknown key \"service.timout\""));
    }

    TEST_CASE(
        "every problem of a campaign file is reported at once, each with its line, by validate, run and the dry "
        "run alike") {
        Sandbox sandbox;
        std::string csv = "phone,name,user_id,photo,discount,order_id\n";
        for (int i = 0; i < 3; ++i) {
            csv += fmt::format("+{},Person {},u-{},p{}.jpg,{}%,A-{}\n", numbers_wa_id(i), i, i, i, 10 + i, i);
        }
        // Three problems: a misspelled key (line 17), a placeholder naming no column and a third
        // value for a template that takes two (both line 15).
        CampaignFixture f(sandbox, csv, "rate: {per_secnd: 5}\n",
                          "message:\n"
                          "  type: template\n"
                          "  template: spring_sale\n"
                          "  header: {image: \"https://cdn.example.com/offers/{{photo}}\"}\n"
                          "  body: [\"{{name}}\", \"{{discount}}\", \"{{ordr_id}}\"]\n");
        for (const std::vector<std::string>& args : {std::vector<std::string>{"validate", f.campaign.string()},
                                                     std::vector<std::string>{"run", f.campaign.string(), "--dry-run"},
                                                     std::vector<std::string>{"run", f.campaign.string(), "--yes"}}) {
            CAPTURE(args[1 + (args.size() > 2 ? 1 : 0)]);
            auto r = f.wacamp(args);
            CAPTURE(r.err);
            CHECK(r.exit_code == 2);
            CHECK(contains(r.err, "campaign.yaml:17: unknown key \"rate.per_secnd\" (did you mean \"per_second\"?)\n"));
            CHECK(contains(r.err,
                           "campaign.yaml:15: message.body[2]: placeholder {{ordr_id}} names no column (did "
                           "you mean \"order_id\"?)"));
            CHECK(contains(r.err,
                           "campaign.yaml:15: template \"spring_sale\" (en)'s body takes 2 variables ({{1}}, "
                           "{{2}}); message.body gives 3 values"));
            CHECK(contains(r.err, "campaign.yaml is not usable; nothing was sent\n"));
        }
        for (const auto& request : sandbox.journal()) {
            CHECK(request.value("path", "") == "/whatsapp-automation/wa/templates");  // read, nothing sent
        }
        CHECK_FALSE(std::filesystem::exists(f.log));
        CHECK_FALSE(std::filesystem::exists(f.dir.path() / "results" / "e2e.dry-run.jsonl"));
    }
}
