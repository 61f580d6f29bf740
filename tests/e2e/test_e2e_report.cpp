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
        CHECK(content.rfind(
                  "row,wa_id,user_name,status,attempts,http_status,message_id,cause,error_code,error,at,price\n", 0) ==
              0);
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

    // A list with columns of its own beyond the campaign's: a Hindi name, a city with a comma, an
    // order id a spreadsheet would run as a formula.
    std::string list_with_own_columns() {
        return "phone,name,user_id,city,order_id\n"
               "+" +
               numbers_wa_id(0) +
               ",\xe0\xa4\xb0\xe0\xa4\xbe\xe0\xa4\x9c,u-0,Pune,\"=HYPERLINK(\"\"http://x\"\")\"\n"
               "+" +
               numbers_wa_id(1) + ",Person 1,u-1,\"Delhi, NCR\",A-17\n";
    }

    TEST_CASE("--format csv --bom --columns: a byte-order mark, the list's columns at the end, formulas guarded") {
        Sandbox sandbox;
        CampaignFixture f(sandbox, list_with_own_columns());
        REQUIRE(f.wacamp({"run", f.campaign.string()}).exit_code == 0);
        auto r = f.wacamp({"report", f.log.string(), "--format", "csv", "--bom", "--columns", "city,order_id"});
        REQUIRE(r.exit_code == 0);
        CHECK(r.out.rfind("\xEF\xBB\xBFrow,wa_id,user_name,status,attempts,http_status,message_id,cause,error_code,"
                          "error,at,price,city,order_id\n",
                          0) == 0);
        CHECK(r.out.find("1," + numbers_wa_id(0) + ",\xe0\xa4\xb0\xe0\xa4\xbe\xe0\xa4\x9c,sent,") != std::string::npos);
        CHECK(r.out.find(",Pune,\"'=HYPERLINK(\"\"http://x\"\")\"\n") != std::string::npos);
        CHECK(r.out.find(",\"Delhi, NCR\",A-17\n") != std::string::npos);
        // Without --bom, the header comes first, as scripts expect.
        auto plain = f.wacamp({"report", f.log.string(), "--format", "csv"});
        CHECK(plain.out.rfind("row,wa_id,", 0) == 0);
    }

    TEST_CASE("--columns refuses (exit 2) a list changed since the log, a missing one, or an unknown column") {
        Sandbox sandbox;
        CampaignFixture f(sandbox, list_with_own_columns());
        REQUIRE(f.wacamp({"run", f.campaign.string()}).exit_code == 0);
        const auto output = f.dir.path() / "report.csv";
        const std::vector<std::string> report = {"report",   f.log.string(),  "--format", "csv",
                                                 "--output", output.string(), "--columns"};
        auto with = [&](const std::string& columns) {
            auto args = report;
            args.push_back(columns);
            return f.wacamp(args);
        };
        auto unknown = with("town");
        CHECK(unknown.exit_code == 2);
        CHECK(unknown.err.find("no column \"town\"") != std::string::npos);

        // The same rows in another order: row 1 would get row 2's city.
        const std::string swapped = "phone,name,user_id,city,order_id\n+" + numbers_wa_id(1) +
                                    ",Person 1,u-1,\"Delhi, NCR\",A-17\n+" + numbers_wa_id(0) + ",X,u-0,Pune,B-1\n";
        f.dir.write("recipients.csv", swapped);
        auto changed = with("city");
        CHECK(changed.exit_code == 2);
        CHECK(changed.err.find("not the recipient list the log's rows are of") != std::string::npos);
        CHECK_FALSE(std::filesystem::exists(output));

        std::filesystem::remove(f.csv);
        auto missing = with("city");
        CHECK(missing.exit_code == 2);
        CHECK(missing.err.find(f.csv.string()) != std::string::npos);
        CHECK_FALSE(std::filesystem::exists(output));
        // Without --columns the list is not needed.
        CHECK(f.wacamp({"report", f.log.string(), "--format", "csv"}).exit_code == 0);
    }

    TEST_CASE("flags that do not fit the format exit 2") {
        Sandbox sandbox;
        CampaignFixture f(sandbox, numbers_csv(1));
        REQUIRE(f.wacamp({"run", f.campaign.string()}).exit_code == 0);
        auto no_output = f.wacamp({"report", f.log.string(), "--format", "xlsx"});
        CHECK(no_output.exit_code == 2);
        CHECK(no_output.err.find("--output FILE") != std::string::npos);
        CHECK(f.wacamp({"report", f.log.string(), "--bom"}).exit_code == 2);
        CHECK(f.wacamp({"report", f.log.string(), "--format", "json", "--columns", "name"}).exit_code == 2);
    }

    TEST_CASE("--format xlsx: ids as text, numbers as numbers, a frozen header with a filter, the summary sheet") {
        if (!std::filesystem::exists("/usr/bin/unzip")) {
            MESSAGE("wacamp-test-skipped: unzip is not installed (scripts/setup.sh installs it)");
            return;
        }
        Sandbox sandbox;
        CampaignFixture f(sandbox, list_with_own_columns() + "12345,Bad,u9,Agra,C-3\n");
        REQUIRE(f.wacamp({"run", f.campaign.string()}).exit_code == 0);
        const auto book = f.dir.path() / "report.xlsx";
        auto r = f.wacamp(
            {"report", f.log.string(), "--format", "xlsx", "--output", book.string(), "--columns", "order_id"});
        REQUIRE_MESSAGE(r.exit_code == 0, r.err);
        auto part = [&](const std::string& name) {
            auto unzipped = run_program({"/usr/bin/unzip", "-p", book.string(), name});
            REQUIRE(unzipped.exit_code == 0);
            return unzipped.out;
        };
        const auto workbook = part("xl/workbook.xml");
        CHECK(workbook.find("name=\"Recipients\"") != std::string::npos);
        CHECK(workbook.find("name=\"Summary\"") != std::string::npos);
        const auto rows = part("xl/worksheets/sheet1.xml");
        CHECK(rows.find("state=\"frozen\"") != std::string::npos);
        CHECK(rows.find("ySplit=\"1\"") != std::string::npos);
        CHECK(rows.find("<autoFilter ref=\"A1:M4\"/>") != std::string::npos);  // 13 columns, 3 rows
        // The wa_id a text cell (never 9.19812E+11), the row and attempts numbers.
        CHECK(rows.find("<t>" + numbers_wa_id(0) + "</t>") != std::string::npos);
        CHECK(rows.find("<v>" + numbers_wa_id(0) + "</v>") == std::string::npos);
        CHECK(rows.find("<v>1</v>") != std::string::npos);
        CHECK(rows.find("<t>order_id</t>") != std::string::npos);
        CHECK(rows.find("<t>=HYPERLINK(\"http://x\")</t>") != std::string::npos);  // a string, never a formula
        CHECK(rows.find("<f>") == std::string::npos);
        const auto summary = part("xl/worksheets/sheet2.xml");
        CHECK(summary.find("<t>Recipients by status</t>") != std::string::npos);
        CHECK(summary.find("<t>invalid</t>") != std::string::npos);
        CHECK(summary.find("<t>Not sent, by cause</t>") != std::string::npos);
        // Nothing left beside it.
        for (const auto& entry : std::filesystem::directory_iterator(f.dir.path())) {
            CHECK(entry.path().filename().string().rfind(".wacamp-report-", 0) == std::string::npos);
        }
    }

    TEST_CASE("rows the deletion step cannot name for an empty user_id are counted and named") {
        Sandbox sandbox;
        const std::string csv = "phone,name,user_id\n+" + numbers_wa_id(0) + ",A,u-0\n+" + numbers_wa_id(1) + ",B,\n+" +
                                numbers_wa_id(2) + ",C,u-2\n";
        CampaignFixture f(sandbox, csv, "cleanup: {delete_contacts: true}\n");
        REQUIRE(f.wacamp({"run", f.campaign.string()}).exit_code == 0);
        auto text = f.wacamp({"report", f.log.string()});
        REQUIRE(text.exit_code == 0);
        CHECK(text.out.find("  no user_id  1 row to delete has an empty user_id (row 2): their contacts cannot be "
                            "deleted") != std::string::npos);
        auto json = f.wacamp({"report", f.log.string(), "--format", "json"});
        REQUIRE(json.exit_code == 0);
        CHECK(nlohmann::json::parse(json.out)["without_user_id"] == nlohmann::json::parse(R"({"count":1,"rows":[2]})"));
    }

    TEST_CASE("a log whose sends carry prices: the spend in every format; what must not count does not") {
        TempDir dir;
        const auto result = [](int row, const std::string& wa_id, const std::string& status, const std::string& tail) {
            return R"({"event":"result","row":)" + std::to_string(row) + R"(,"wa_id":")" + wa_id + R"(","status":")" +
                   status + R"(","attempts":1,"template":"spring_sale","category":"MARKETING")" + tail +
                   R"(,"at":"2026-11-21T09:00:0)" + std::to_string(row) + ".000Z\"}\n";
        };
        auto log = dir.write(
            "log.jsonl",
            R"({"event":"campaign","name":"e2e","campaign_file":"/c.yaml","campaign_sha256":"aa","recipients_file":)"
            R"("/r.csv","recipients_sha256":"bb","started_at":"2026-11-21T09:00:00.000Z","version":"0.1.0",)"
            R"("mode":"send","rate_card":{"path":"/rates.csv","sha256":"cc","currency":"USD","effective":"2025-07-01"}})"
            "\n" +
                result(1, "919812345611", "sent", R"(,"price":0.25)") +
                result(2, "919812345612", "sent", R"(,"price":0.25)") +
                result(3, "5511912345678", "sent", R"(,"price":1.5)") +
                result(4, "5511912345679", "failed", R"(,"price":1.5,"cause":"rejected","error":"no")") +
                result(5, "919812345615", "sent", R"(,"price":"\u001b]0;free\u0007")") +
                result(6, "919812345616", "sent", ""));
        auto text = run_wacamp({"report", log.string()});
        CAPTURE(text.out);
        REQUIRE(text.exit_code == 0);
        CHECK(contains(text.out, "\nSpend\n  total       about 2.00 USD for 3 sent messages"));
        CHECK(contains(text.out, "  by category MARKETING  3  2.00\n"));
        CHECK(contains(text.out, "  by country  BR         1  1.50\n              IN         2  0.50\n"));
        CHECK(contains(text.out, "  no price    2 sent template messages without a price"));
        CHECK_FALSE(contains(text.out, "\x1b"));

        auto json = run_wacamp({"report", log.string(), "--format", "json"});
        REQUIRE(json.exit_code == 0);
        const auto spend = nlohmann::json::parse(json.out)["spend"];
        CHECK(spend["total"] == 2.0);
        CHECK(spend["messages"] == 3);
        CHECK(spend["by_country"]["IN"] == nlohmann::json::parse(R"({"messages": 2, "amount": 0.5})"));
        CHECK(spend["by_category"]["MARKETING"]["amount"] == 2.0);

        auto csv = run_wacamp({"report", log.string(), "--format", "csv"});
        REQUIRE(csv.exit_code == 0);
        CHECK(contains(csv.out, ",error,at,price\n"));
        CHECK(contains(csv.out, ",2026-11-21T09:00:03.000Z,1.5\n"));
        CHECK(contains(csv.out, ",2026-11-21T09:00:04.000Z,\n"));  // failed: nothing spent
        CHECK(contains(csv.out, ",2026-11-21T09:00:05.000Z,\n"));

        auto html = run_wacamp({"report", log.string(), "--format", "html"});
        REQUIRE(html.exit_code == 0);
        CHECK(contains(html.out, R"(<section id="spend">)"));
        CHECK(contains(html.out, R"(<svg id="spend-country" class="bars")"));
        CHECK_FALSE(contains(html.out, "<script"));

        if (!std::filesystem::exists("/usr/bin/unzip")) {
            MESSAGE("wacamp-test-skipped: unzip is not installed (scripts/setup.sh installs it)");
            return;
        }
        const auto book = dir.path() / "spend.xlsx";
        auto xlsx = run_wacamp({"report", log.string(), "--format", "xlsx", "--output", book.string()});
        REQUIRE_MESSAGE(xlsx.exit_code == 0, xlsx.err);
        auto rows = run_program({"/usr/bin/unzip", "-p", book.string(), "xl/worksheets/sheet1.xml"});
        CHECK(contains(rows.out, "<t>price</t>"));
        CHECK(contains(rows.out, "<v>1.5</v>"));  // a number, not text
        auto summary = run_program({"/usr/bin/unzip", "-p", book.string(), "xl/worksheets/sheet2.xml"});
        CHECK(contains(summary.out, "<t>Spend (each sent message at its price when it was sent)</t>"));
    }
}
