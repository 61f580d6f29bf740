#include <doctest/doctest.h>

#include <nlohmann/json.hpp>
#include <sstream>

#include "report/format.hpp"
#include "report/html.hpp"
#include "report/text_cells.hpp"
#include "test_report_log.hpp"
#include "util/text.hpp"
#include "util/zone.hpp"

using namespace report_test;

namespace {

std::string small_log() {
    return header() + attempt(1, 1, 1s) + sent(1, 40, 1040ms) + attempt(2, 1, 2s) +
           result(2, Status::failed, Cause::rejected, 400, "HTTP 400: (#131026) Message undeliverable", 60, 2060ms) +
           result(3, Status::invalid, Cause::invalid, 0, "column \"phone\": bad\nnumber", -1, 2500ms, 0) +
           attempt(4, 1, 3s);
}

report::Summary summary_of(const LogFile& log, const std::string& text) {
    auto s = report::summarize(log.write(text));
    REQUIRE(s.ok());
    return *s;
}

// A log with one row refused by Meta for one recipient (opted out, code 131050).
std::string opted_out_log() {
    auto r = record(1, Status::failed, Cause::opted_out, 1s);
    r.http_status = 400;
    r.error_code = 131050;
    r.error = "HTTP 400: (#131050) opted out";
    return header() + results::to_line(r);
}

bool has_line(const std::string& text, const std::string& line) {
    return ("\n" + text).find("\n" + line + "\n") != std::string::npos;
}

}  // namespace

TEST_SUITE("report::format_text") {
    TEST_CASE("shows the campaign, aligned counts and nonzero statuses only") {
        LogFile log;
        const auto text = report::format_text(summary_of(log, small_log()));
        CHECK(has_line(text, "Campaign      spring"));
        CHECK(has_line(text, "Log           " + log.path));
        CHECK(has_line(text, "Recipients    4 in the log"));
        CHECK(has_line(text, "  sent        1   25.0%"));
        CHECK(has_line(text, "  failed      1   25.0%"));
        CHECK(text.find("skipped") == std::string::npos);
        CHECK(text.find("1 in flight when a run stopped") != std::string::npos);
    }

    TEST_CASE("lists errors as a table with one sample each, on one line") {
        LogFile log;
        const auto text = report::format_text(summary_of(log, small_log()));
        CHECK(has_line(text, "Not sent, by cause"));
        CHECK(has_line(text,
                       "  1  failed   rejected  HTTP 400  HTTP 400: (#131026) Message "
                       "undeliverable"));
        CHECK(has_line(text, "  1  invalid  invalid   -         column \"phone\": bad number"));
    }

    TEST_CASE("shows Meta's error code beside the HTTP status") {
        LogFile log;
        const auto text = report::format_text(summary_of(log, opted_out_log()));
        CHECK(has_line(text, "  1  failed  opted_out  HTTP 400 #131050  HTTP 400: (#131050) opted out"));
    }

    TEST_CASE("shows duration, send rate, requests and latency") {
        LogFile log;
        const auto text = report::format_text(summary_of(log, small_log()));
        CHECK(text.find("  duration    3.0 s  (Sat 2026-11-21 09:00 UTC to Sat 2026-11-21 09:00:03 UTC)") !=
              std::string::npos);
        CHECK(has_line(text, "  send rate   0.50 sent/s  (1 sent in 2.0 s of sending)"));
        CHECK(has_line(text, "  requests    3, 0 rate limited"));
        CHECK(has_line(text,
                       "  latency     p50 40 ms  p95 60 ms  p99 60 ms  max 60 ms  "
                       "(2 responses)"));
    }

    TEST_CASE("ends with the warnings, and no line has trailing blanks") {
        LogFile log;
        const auto text = report::format_text(summary_of(log, small_log() + "{\"event\":"));
        const auto warnings = text.find("\nWarnings (1)\n");
        REQUIRE(warnings != std::string::npos);
        CHECK(text.find("torn last line", warnings) != std::string::npos);
        CHECK(text.find(" \n") == std::string::npos);
    }

    TEST_CASE("says so when the last run did not end") {
        LogFile log;
        const auto text = report::format_text(summary_of(log, small_log()));
        CHECK(text.find("Last run      no end record") != std::string::npos);
    }
}

TEST_SUITE("report: times on the campaign's clock") {
    TEST_CASE("the text report shows its times in the summary's zone with UTC beside") {
        LogFile log;
        auto s = summary_of(log, small_log());
        s.zone = *util::TimeZone::locate("Asia/Kolkata");
        const auto text = report::format_text(s);
        CHECK(text.find("Started       Sat 2026-11-21 14:30 Asia/Kolkata (09:00 UTC) by wacamp") != std::string::npos);
        CHECK(text.find("  duration    3.0 s  (Sat 2026-11-21 14:30 Asia/Kolkata (09:00 UTC) to Sat 2026-11-21 "
                        "14:30:03 Asia/Kolkata (09:00:03 UTC))") != std::string::npos);
    }
    TEST_CASE("the HTML report too; its JSON keeps UTC") {
        LogFile log;
        auto s = summary_of(log, small_log());
        s.zone = *util::TimeZone::locate("America/New_York");
        const auto page = report::format_html(s);
        REQUIRE(page.ok());
        CHECK(page->find("Sat 2026-11-21 04:00 America/New_York (09:00 UTC)") != std::string::npos);
        CHECK(page->find("09:00:00 UTC") == std::string::npos);
        const auto json = nlohmann::json::parse(report::format_json(s));
        CHECK(json.dump().find("2026-11-21T09:00:00.000Z") != std::string::npos);
        CHECK(json.dump().find("New_York") == std::string::npos);
    }
}

TEST_SUITE("report::format_json") {
    TEST_CASE("holds the same figures under stable names") {
        LogFile log;
        const auto j = nlohmann::json::parse(report::format_json(summary_of(log, small_log())));
        CHECK(j["log"] == log.path);
        CHECK(j["campaign"]["name"] == "spring");
        CHECK(j["campaign"]["mode"] == "send");
        CHECK(j["rows"] == 4);
        CHECK(j["counts"]["sent"] == 1);
        CHECK(j["counts"]["unknown"] == 1);
        CHECK(j["counts"]["dry_run"] == 0);
        CHECK(j["in_flight"] == 1);
        CHECK(j["ended"] == false);
        CHECK(j["end_reason"].is_null());
        CHECK(j["duration_s"] == 3.0);
        CHECK(j["sending_s"] == 2.0);
        CHECK(j["send_rate_per_s"] == 0.5);
        CHECK(j["attempts"] == 3);
        CHECK(j["rate_limited"] == 0);
        CHECK(j["latency_ms"]["p50"] == 40);
        CHECK(j["latency_ms"]["max"] == 60);
        CHECK(j["cleanup"].is_null());
        CHECK(j["warning_count"] == 0);
    }

    TEST_CASE("lists error groups with null for a missing cause or HTTP status") {
        LogFile log;
        const auto j = nlohmann::json::parse(report::format_json(summary_of(log, small_log())));
        REQUIRE(j["errors"].size() == 2);
        CHECK(j["errors"][0]["cause"] == "rejected");
        CHECK(j["errors"][0]["http_status"] == 400);
        CHECK(j["errors"][1]["http_status"].is_null());
        CHECK(j["errors"][1]["sample"] == "column \"phone\": bad\nnumber");
        CHECK(j["errors"][0]["error_code"].is_null());
        const auto k = nlohmann::json::parse(report::format_json(summary_of(log, opted_out_log())));
        CHECK(k["errors"][0]["cause"] == "opted_out");
        CHECK(k["errors"][0]["error_code"] == 131050);
    }

    TEST_CASE("has null percentiles and rate when nothing was requested") {
        LogFile log;
        const auto j = nlohmann::json::parse(report::format_json(summary_of(
            log, header(results::Mode::dry_run) + result(1, Status::dry_run, Cause::none, 0, "", -1, 1s, 0))));
        CHECK(j["latency_ms"]["count"] == 0);
        CHECK(j["latency_ms"]["p50"].is_null());
        CHECK(j["send_rate_per_s"].is_null());
        CHECK(j["counts"]["dry_run"] == 1);
    }
}

TEST_SUITE("report::text_cells") {
    TEST_CASE("groups digits by thousands") {
        CHECK(report::group_digits(0) == "0");
        CHECK(report::group_digits(999) == "999");
        CHECK(report::group_digits(1'234'567) == "1,234,567");
        CHECK(report::group_digits(-1'000) == "-1,000");
    }

    TEST_CASE("keeps a value on one line") {
        CHECK(util::printable("a\nb\tc", util::LineBreaks::space) == "a b c");
    }
}

TEST_SUITE("report: the `others` error group") {
    TEST_CASE("text, json and html say `others` in place of its HTTP status and code") {
        LogFile log;
        auto s = summary_of(log, opted_out_log());
        REQUIRE(s.errors.size() == 1);
        auto& g = s.errors[0];
        g.others = true;
        g.http_status.reset();
        g.error_code.reset();
        CHECK(has_line(report::format_text(s), "  1  failed  opted_out  others  HTTP 400: (#131050) opted out"));
        const auto j = nlohmann::json::parse(report::format_json(s));
        CHECK(j["errors"][0]["others"] == true);
        CHECK(j["errors"][0]["http_status"].is_null());
        CHECK(j["errors"][0]["error_code"].is_null());
        const auto page = report::format_html(s);
        REQUIRE(page.ok());
        CHECK(page->find(R"(<td class="num">others</td>)") != std::string::npos);
        const auto plain = nlohmann::json::parse(report::format_json(summary_of(log, opted_out_log())));
        CHECK(plain["errors"][0]["others"] == false);
    }
}

TEST_SUITE("report: retried requests and rows without a user_id, in every format") {
    std::string retried_log() {
        return header() + attempt(1, 1, 1s) + result(1, Status::failed, Cause::transient, 503, "HTTP 503", 20, 1020ms) +
               attempt(1, 2, 2s) + result(1, Status::failed, Cause::transient, 0, "timed out", -1, 7s, 2) +
               attempt(1, 3, 8s) + result(1, Status::failed, Cause::transient, 502, "HTTP 502", 20, 8020ms, 3) +
               attempt(1, 4, 9s) + sent(1, 10, 9010ms, 4);
    }

    TEST_CASE("text: a retried line by kind under the requests") {
        LogFile log;
        const auto text = report::format_text(summary_of(log, retried_log()));
        CHECK(has_line(text, "  retried     3 requests — 5xx 2, no answer 1"));
    }

    TEST_CASE("text: no retried line when nothing was tried again") {
        LogFile log;
        CHECK(report::format_text(summary_of(log, small_log())).find("retried") == std::string::npos);
    }

    TEST_CASE("json and html: the retried requests by kind") {
        LogFile log;
        const auto s = summary_of(log, retried_log());
        const auto j = nlohmann::json::parse(report::format_json(s));
        CHECK(j["retried"] == 3);
        CHECK(j["retried_by_kind"] ==
              nlohmann::json::parse(R"([{"kind":"5xx","count":2},{"kind":"no answer","count":1}])"));
        auto html = report::format_html(s);
        REQUIRE(html.ok());
        CHECK(html->find("3 requests — 5xx 2, no answer 1") != std::string::npos);
    }

    TEST_CASE("rows the deletion step cannot name: counted and named in text, json and html") {
        LogFile log;
        auto s = summary_of(log, small_log());
        s.user_ids_counted = true;
        s.without_user_id = 7;
        s.without_user_id_rows = {2, 4, 9, 11, 12};
        const auto text = report::format_text(s);
        CHECK(
            has_line(text,
                     "  no user_id  7 rows to delete have an empty user_id (rows 2, 4, 9, 11, 12, …): their "
                     "contacts cannot be deleted; fill in recipients.columns.user_id and run wacamp delete-contacts"));
        const auto j = nlohmann::json::parse(report::format_json(s));
        CHECK(j["without_user_id"] == nlohmann::json::parse(R"({"count":7,"rows":[2,4,9,11,12]})"));
        auto html = report::format_html(s);
        REQUIRE(html.ok());
        CHECK(html->find("7 rows to delete have an empty user_id (rows 2, 4, 9, 11, 12, …)") != std::string::npos);
    }

    TEST_CASE("json: without_user_id is null when not counted") {
        LogFile log;
        const auto j = nlohmann::json::parse(report::format_json(summary_of(log, small_log())));
        CHECK(j["without_user_id"].is_null());
    }
}
