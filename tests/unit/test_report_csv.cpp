#include <doctest/doctest.h>

#include <fstream>
#include <sstream>

#include "report/carried_columns.hpp"
#include "report/csv.hpp"
#include "test_report_log.hpp"
#include "util/sha256.hpp"

using namespace report_test;

namespace {

std::string csv_of(const std::string& path) {
    auto index = report::index_log(path);
    REQUIRE(index.ok());
    std::ostringstream out;
    auto written = report::write_csv(*index, out);
    REQUIRE(written.ok());
    return out.str();
}

const std::string k_header = std::string(report::k_csv_header) + "\n";

}  // namespace

TEST_SUITE("report::csv") {
    TEST_CASE("quotes a field only when RFC 4180 needs it") {
        CHECK(report::csv_field("Asha") == "Asha");
        CHECK(report::csv_field("Rao, Asha") == "\"Rao, Asha\"");
        CHECK(report::csv_field(R"(say "hi")") == R"("say ""hi""")");
        CHECK(report::csv_field("two\nlines") == "\"two\nlines\"");
        CHECK(report::csv_field("") == "");
    }

    TEST_CASE("a cell a spreadsheet would run as a formula is quoted and starts with a quote mark") {
        CHECK(report::csv_field("=HYPERLINK(\"http://x\")") == "\"'=HYPERLINK(\"\"http://x\"\")\"");
        CHECK(report::csv_field("+1 555") == "\"'+1 555\"");
        CHECK(report::csv_field("-2+3") == "\"'-2+3\"");
        CHECK(report::csv_field("@SUM(A1)") == "\"'@SUM(A1)\"");
        CHECK(report::csv_field("\tx") == "\"'\tx\"");
        CHECK(report::csv_field("\rx") == "\"'\rx\"");
        CHECK(report::csv_field("a=b") == "a=b");  // only the first character counts
    }

    TEST_CASE("names from the CSV and errors from the service are neutralised in the report") {
        LogFile log;
        auto r = record(4, Status::failed, Cause::rejected, 1s);
        r.user_name = "=cmd|' /C calc'!A0";
        r.error = "@SUM(1+1)*cmd";
        const auto csv = csv_of(log.write(header() + results::to_line(r)));
        CHECK(csv == k_header +
                         "4,919812345614,\"'=cmd|' /C calc'!A0\",failed,0,,,rejected,,"
                         "\"'@SUM(1+1)*cmd\",2026-11-21T09:00:01.000Z,\n");
    }

    TEST_CASE("names from the CSV and errors from the service reach the cell with their control characters escaped") {
        LogFile log;
        auto r = record(4, Status::failed, Cause::rejected, 1s);
        r.user_name = "Asha\x1b[2J\rX\xe2\x80\xae";  // clear screen, carriage return, U+202E
        r.error = "bad\x07\x1b]0;title\x07 two\nlines";
        const auto csv = csv_of(log.write(header() + results::to_line(r)));
        CHECK(csv == k_header +
                         "4,919812345614,Asha\\x1b[2J\\rX\\u202e,failed,0,,,rejected,,"
                         "\"bad\\x07\\x1b]0;title\\x07 two\nlines\",2026-11-21T09:00:01.000Z,\n");
    }

    TEST_CASE("writes Meta's error code in its own column") {
        LogFile log;
        auto r = record(5, Status::failed, Cause::opted_out, 1s);
        r.http_status = 400;
        r.error_code = 131050;
        r.error = "HTTP 400: (#131050) opted out";
        const auto csv = csv_of(log.write(header() + results::to_line(r)));
        CHECK(csv == k_header +
                         "5,919812345615,,failed,0,400,,opted_out,131050,"
                         "HTTP 400: (#131050) opted out,2026-11-21T09:00:01.000Z,\n");
    }

    TEST_CASE("writes each row's final result, once") {
        LogFile log;
        const auto csv = csv_of(log.write(header() + attempt(1, 1, 1s) +
                                          result(1, Status::failed, Cause::transient, 503, "HTTP 503", 20, 1020ms) +
                                          attempt(1, 2, 2s) + sent(1, 30, 2030ms, 2)));
        CHECK(csv == k_header + "1,919812345611,User 1,sent,2,200,wamid.1,,,,2026-11-21T09:00:02.030Z,\n");
    }

    TEST_CASE("an unsent after the row's result (a hand-edited log) leaves the row as its result says") {
        LogFile log;
        const std::string unsent =
            results::to_line(results::UnsentRecord{1, wa_id(1), 2, 404, "HTTP 404: no such path", at(3s)});
        const auto csv = csv_of(log.write(header() + attempt(1, 1, 1s) +
                                          result(1, Status::failed, Cause::transient, 503, "HTTP 503", 20, 1020ms) +
                                          attempt(1, 2, 2s) + sent(1, 30, 2030ms, 2) + unsent));
        CHECK(csv == k_header + "1,919812345611,User 1,sent,2,200,wamid.1,,,,2026-11-21T09:00:02.030Z,\n");
    }

    TEST_CASE("writes a row whose last record is an attempt as unknown") {
        LogFile log;
        const auto csv = csv_of(log.write(header() + attempt(2, 3, 5s)));
        CHECK(csv == k_header +
                         "2,919812345612,,unknown,3,,,,,request in flight when the run stopped: "
                         "it may or may not have been delivered,2026-11-21T09:00:05.000Z,\n");
    }

    TEST_CASE("quotes names and errors with commas, quotes and line breaks") {
        LogFile log;
        results::ResultRecord r;
        r.row = 3;
        r.user_name = "Rao, \"Asha\"";
        r.status = Status::invalid;
        r.error = "column \"phone\":\nempty";
        r.cause = Cause::invalid;
        r.at = at(1s);
        const auto csv = csv_of(log.write(header() + results::to_line(r)));
        CHECK(csv == k_header +
                         "3,,\"Rao, \"\"Asha\"\"\",invalid,0,,,invalid,,"
                         "\"column \"\"phone\"\":\nempty\",2026-11-21T09:00:01.000Z,\n");
    }

    TEST_CASE("writes rows in the order of their final records") {
        LogFile log;
        const auto csv =
            csv_of(log.write(header() + attempt(1, 1, 1s) + attempt(2, 1, 1s) + sent(2, 10, 2s) + sent(1, 10, 3s)));
        const auto row2 = csv.find("\n2,");
        const auto row1 = csv.find("\n1,");
        REQUIRE(row1 != std::string::npos);
        REQUIRE(row2 != std::string::npos);
        CHECK(row2 < row1);
    }

    TEST_CASE("ignores a torn last line, with a warning") {
        LogFile log;
        auto index =
            report::index_log(log.write(header() + attempt(1, 1, 1s) + sent(1, 10, 2s) + R"({"event":"result","ro)"));
        REQUIRE(index.ok());
        CHECK(index->rows == 1);
        CHECK(index->warning_count == 1);
        REQUIRE(index->warnings.size() == 1);
        CHECK(index->warnings[0].find("torn last line") != std::string::npos);
        std::ostringstream out;
        REQUIRE(report::write_csv(*index, out).ok());
        CHECK(out.str() == k_header + "1,919812345611,User 1,sent,1,200,wamid.1,,,,2026-11-21T09:00:02.000Z,\n");
    }

    TEST_CASE("does not read records appended after the first pass") {
        LogFile log;
        auto index = report::index_log(log.write(header() + attempt(1, 1, 1s)));
        REQUIRE(index.ok());
        std::ofstream(log.path, std::ios::app) << sent(1, 10, 2s);
        std::ostringstream out;
        REQUIRE(report::write_csv(*index, out).ok());
        CHECK(out.str().find(",unknown,") != std::string::npos);
        CHECK(out.str().find(",sent,") == std::string::npos);
    }

    TEST_CASE("fails when the log shrank between the passes") {
        LogFile log;
        auto index = report::index_log(log.write(header() + attempt(1, 1, 1s)));
        REQUIRE(index.ok());
        log.write(header());
        std::ostringstream out;
        auto written = report::write_csv(*index, out);
        REQUIRE_FALSE(written.ok());
        CHECK(written.error().message.find("shrank") != std::string::npos);
    }

    TEST_CASE("after a changed recipient list, the rows of that list alone, as the replay numbers them") {
        LogFile log;
        std::string changed = header();
        changed.replace(changed.find("\"bb\""), 4, "\"cc\"");
        const auto csv = csv_of(log.write(header() + sent(1, 10, 1s) + sent(2, 10, 2s) + changed + sent(1, 10, 3s)));
        CHECK(csv == k_header + "1,919812345611,User 1,sent,1,200,wamid.1,,,,2026-11-21T09:00:03.000Z,\n");
    }

    TEST_CASE("fails when the first line is not a campaign record") {
        LogFile log;
        auto index = report::index_log(log.write(attempt(1, 1, 1s)));
        REQUIRE_FALSE(index.ok());
        CHECK(index.error().message.find("not a wacamp result log") != std::string::npos);
    }
}

TEST_SUITE("report::csv: the per-row index in a temporary file") {
    std::string resumed_log() {
        return header() + attempt(1, 1, 1s) + result(1, Status::failed, Cause::transient, 503, "HTTP 503", 20, 1020ms) +
               attempt(2, 1, 2s) + sent(2, 10, 2010ms) + attempt(3, 1, 3s) + attempt(1, 2, 4s) + sent(1, 10, 4010ms, 2);
    }

    TEST_CASE("the same CSV when every row goes through the file") {
        LogFile log;
        log.write(resumed_log());
        auto index = report::index_log(log.path, tiny_pages());
        REQUIRE(index.ok());
        CHECK(index->rows == 3);
        std::ostringstream out;
        REQUIRE(report::write_csv(*index, out).ok());
        CHECK(out.str() == csv_of(log.path));
        CHECK(out.str() ==
              k_header + "2,919812345612,User 2,sent,1,200,wamid.2,,,,2026-11-21T09:00:02.010Z,\n" +
                  "3,919812345613,,unknown,1,,,,,request in flight when the run stopped: it may or may not have "
                  "been delivered,2026-11-21T09:00:03.000Z,\n" +
                  "1,919812345611,User 1,sent,2,200,wamid.1,,,,2026-11-21T09:00:04.010Z,\n");
    }

    TEST_CASE("fails, naming the log, when the temporary file cannot be made") {
        LogFile log;
        util::DiskArrayOptions options;
        options.temp_dir = (log.dir / "missing").string();
        auto index = report::index_log(log.write(resumed_log()), options);
        REQUIRE_FALSE(index.ok());
        check_names_log(index.error().message, log, "cannot create a temporary file in " + options.temp_dir);
    }

    TEST_CASE("fails when the index cannot be read back in the first pass") {
        LogFile log;
        auto options = tiny_pages();
        options.fail_reads_after_bytes = 1;  // row 1's second attempt reads its page back
        auto index = report::index_log(log.write(resumed_log()), options);
        REQUIRE_FALSE(index.ok());
        check_names_log(index.error().message, log, "cannot read back a temporary file");
    }

    TEST_CASE("fails when the index cannot be read back in the second pass, rather than leave rows out") {
        LogFile log;
        auto options = tiny_pages();
        // Rows 1 and 2 each touched once in a row: the first pass (the replay) reads each back once, to
        // count it; the second pass's first read back fails.
        options.fail_reads_after_bytes = 2 * sizeof(results::RowRecord);
        auto index = report::index_log(log.write(header() + attempt(1, 1, 1s) + attempt(2, 1, 2s)), options);
        REQUIRE(index.ok());
        std::ostringstream out;
        auto written = report::write_csv(*index, out);
        REQUIRE_FALSE(written.ok());
        check_names_log(written.error().message, log, "cannot read back a temporary file");
    }
}

TEST_SUITE("report::csv: for a spreadsheet") {
    // A log whose campaign record names the list at `list` with the SHA-256 it has now.
    std::string header_of_list(const std::string& list) {
        auto hash = util::sha256_file(list);
        REQUIRE(hash.ok());
        results::CampaignHeader h{"spring", "c.yaml", "aa", list, *hash, at(0ms), "0.1.0", results::Mode::send, {}};
        return results::to_line(h);
    }

    std::string csv_with(report::CsvIndex & index, const report::CsvWriteOptions& options) {
        std::ostringstream out;
        REQUIRE(report::write_csv(index, out, options).ok());
        return out.str();
    }

    report::CarriedOptions columns(std::vector<std::string> names) {
        report::CarriedOptions options;
        options.names = std::move(names);
        return options;
    }

    TEST_CASE("--bom: the CSV starts with UTF-8's byte-order mark; without it, with its header") {
        LogFile log;
        auto index = report::index_log(log.write(header() + sent(1, 10, 1s)));
        REQUIRE(index.ok());
        CHECK(csv_with(*index, {report::Bom::yes, nullptr}).rfind("\xEF\xBB\xBFrow,wa_id,", 0) == 0);
        CHECK(csv_of(log.path).rfind("row,wa_id,", 0) == 0);
    }

    TEST_CASE("the list's own columns come last, by row, masked, printable and guarded") {
        LogFile log;
        const std::string list = (log.dir / "r.csv").string();
        std::ofstream(list) << "phone,name,city,order_id\n"
                               "+919812345611,A,Pune,=1+2\n"
                               "+919812345612,B,\"Delhi, \xe2\x80\xae"
                               "x\",key-SECRET-123\n";
        auto index =
            report::index_log(log.write(header_of_list(list) + sent(2, 10, 1s) + sent(1, 10, 2s) + sent(7, 10, 3s)));
        REQUIRE(index.ok());
        auto options = columns({"order_id", "city"});
        options.secrets.add("key-SECRET-123");
        auto carried = report::CarriedColumns::read(list, index->state.latest_header.recipients_sha256, options);
        REQUIRE(carried.ok());
        const auto csv = csv_with(*index, {report::Bom::no, &*carried});
        CHECK(csv ==
              std::string(report::k_csv_header) + ",order_id,city\n" +
                  "2,919812345612,User 2,sent,1,200,wamid.2,,,,2026-11-21T09:00:01.000Z,,***,\"Delhi, \\u202ex\"\n" +
                  "1,919812345611,User 1,sent,1,200,wamid.1,,,,2026-11-21T09:00:02.000Z,,\"'=1+2\",Pune\n" +
                  "7,919812345617,User 7,sent,1,200,wamid.7,,,,2026-11-21T09:00:03.000Z,,,\n");
    }

    TEST_CASE("refuses a list that is not the one the log's rows are of") {
        LogFile log;
        const std::string list = (log.dir / "r.csv").string();
        std::ofstream(list) << "phone,name,city\n+919812345611,A,Pune\n";
        const auto logged = util::sha256_file(list);
        REQUIRE(logged.ok());
        std::ofstream(list) << "phone,name,city\n+919812345699,Z,Agra\n";
        auto carried = report::CarriedColumns::read(list, *logged, columns({"city"}));
        REQUIRE_FALSE(carried.ok());
        CHECK(carried.error().message.find(list + ": not the recipient list the log's rows are of") !=
              std::string::npos);
    }

    TEST_CASE("refuses a missing list, a log without the list's SHA-256, and a column the list lacks") {
        LogFile log;
        const std::string list = (log.dir / "r.csv").string();
        auto missing = report::CarriedColumns::read(list, "bb", columns({"city"}));
        REQUIRE_FALSE(missing.ok());
        CHECK(missing.error().message.find(list) != std::string::npos);

        std::ofstream(list) << "phone,name,city\n+919812345611,A,Pune\n";
        auto no_hash = report::CarriedColumns::read(list, "", columns({"city"}));
        REQUIRE_FALSE(no_hash.ok());
        CHECK(no_hash.error().message.find("does not record the SHA-256") != std::string::npos);

        auto hash = util::sha256_file(list);
        REQUIRE(hash.ok());
        auto unknown = report::CarriedColumns::read(list, *hash, columns({"town"}));
        REQUIRE_FALSE(unknown.ok());
        CHECK(unknown.error().message.find("no column \"town\" (its columns: phone, name, city)") != std::string::npos);
        auto twice = report::CarriedColumns::read(list, *hash, columns({"city", "city"}));
        REQUIRE_FALSE(twice.ok());
    }
}
