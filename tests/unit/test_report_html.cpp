#include <doctest/doctest.h>

#include <algorithm>
#include <string>
#include <string_view>
#include <utility>

#include "report/html.hpp"
#include "report/html_chart.hpp"
#include "report/html_timeline.hpp"
#include "test_report_log.hpp"

using namespace report_test;
using namespace std::string_view_literals;

namespace {

// A failed result for `row` whose user name and error are `name` and `error`.
std::string failed_named(std::int64_t row, const std::string& name, const std::string& error,
                         std::chrono::milliseconds offset) {
    auto r = record(row, Status::failed, Cause::rejected, offset);
    r.user_name = name;
    r.attempts = 1;
    r.http_status = 400;
    r.error = error;
    r.latency_ms = 80;
    return results::to_line(r);
}

// Row 1 sent, 2 rejected (a hostile name), 3 invalid, 4 sent and then in flight again, 5 in
// flight when the run died.
std::string small_log() {
    return header() + attempt(1, 1, 1s) + sent(1, 40, 1040ms) + attempt(2, 1, 2s) +
           failed_named(2, "<script>alert(1)</script>", "HTTP 400: <img src=x onerror=alert(2)>", 2080ms) +
           result(3, Status::invalid, Cause::invalid, 0, "column \"phone\": bad", -1, 2500ms, 0) + attempt(4, 1, 3s) +
           sent(4, 900, 3900ms) + attempt(5, 1, 4s) + attempt(4, 2, 5s);
}

std::string page_of(const LogFile& log, const std::string& text) {
    auto summary = report::summarize(log.write(text));
    REQUIRE(summary.ok());
    auto page = report::format_html(*summary);
    REQUIRE(page.ok());
    return *page;
}

// The row of the failed-and-unknown table for `row`, in flight: named `name`, its request
// number `attempts` made at 09:00:0`second`.
std::string in_flight_row(std::int64_t row, const std::string& name, int attempts, int second) {
    return R"(<tr><td class="num">)" + std::to_string(row) + "</td><td>" + wa_id(row) + "</td><td>" + name +
           R"(</td><td class="nowrap"><span class="key s-unknown"></span>unknown</td><td>–</td><td class="num">–</td>)"
           R"(<td class="num">)" +
           std::to_string(attempts) +
           R"(</td><td class="msg">request in flight when the run stopped: it may or may not have been delivered</td>)"
           R"(<td class="nowrap">Sat 2026-11-21 09:00:0)" +
           std::to_string(second) + " UTC</td></tr>";
}

// The page's failed-and-unknown section for the log `text`, to its end.
std::string not_sent_section(const LogFile& log, const std::string& text) {
    const auto page = page_of(log, text);
    return page.substr(page.find(R"(id="not-sent")"));
}

bool contains(const std::string& text, std::string_view part) {
    return text.find(part) != std::string::npos;
}

std::size_t count_of(const std::string& text, std::string_view part) {
    std::size_t n = 0;
    for (auto at = text.find(part); at != std::string::npos; at = text.find(part, at + 1)) {
        ++n;
    }
    return n;
}

}  // namespace

TEST_SUITE("report::html") {
    TEST_CASE("html_escape writes markup characters as references and controls as spaces") {
        CHECK(report::html_escape(R"(<a href="x">Tom & 'Jerry'</a>)") ==
              "&lt;a href=&quot;x&quot;&gt;Tom &amp; &#39;Jerry&#39;&lt;/a&gt;");
        CHECK(report::html_escape(std::string("a\x1b[31mb\0c", 9)) == "a [31mb c");
        CHECK(report::html_escape("naïve\tline\n") == "naïve\tline\n");
        // C1 controls and bidirectional overrides would reorder the page: shown as escapes.
        CHECK(report::html_escape("Asha\xe2\x80\xae<evil\xc2\x9b\xe2\x81\xa6x") ==
              "Asha\\u202e&lt;evil\\u009b\\u2066x");
        CHECK(report::html_escape("bad \xff byte") == "bad \xef\xbf\xbd byte");
    }

    TEST_CASE("html_escape on hostile text: controls, C1, bidi, stray and cut UTF-8, zero-width characters") {
        const std::pair<std::string_view, std::string_view> k_cases[] = {
            {""sv, ""sv},
            {"plain ASCII, with \\ and \"quotes\""sv, "plain ASCII, with \\ and &quot;quotes&quot;"sv},
            {"nul\x00 soh\x01 esc\x1b[2J bel\x07 bs\x08 vt\x0b ff\x0c us\x1f del\x7f"sv,
             "nul  soh  esc [2J bel  bs  vt  ff  us  del "sv},
            {"tab\tlf\ncr\rcrlf\r\n"sv, "tab\tlf\ncr\rcrlf\r\n"sv},
            {"lone \x80 and \xbf continuation, \xfe\xff, \xf8\x88\x80\x80\x80"sv,
             "lone \xef\xbf\xbd and \xef\xbf\xbd continuation, \xef\xbf\xbd\xef\xbf\xbd, \xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd"sv},
            {"overlong \xc0\xaf \xc1\xbf \xe0\x80\xaf \xe0\x9f\xbf \xf0\x80\x80\xaf \xf0\x8f\xbf\xbf"sv,
             "overlong \xef\xbf\xbd\xef\xbf\xbd \xef\xbf\xbd\xef\xbf\xbd \xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd \xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd \xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd \xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd"sv},
            {"surrogates \xed\xa0\x80 \xed\xbf\xbf, last BMP \xed\x9f\xbf"sv,
             "surrogates \xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd \xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd, last BMP \xed\x9f\xbf"sv},
            {"beyond \xf4\x90\x80\x80 \xf5\x80\x80\x80, last \xf4\x8f\xbf\xbf"sv,
             "beyond \xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd \xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd, last \xf4\x8f\xbf\xbf"sv},
            {"C1 \xc2\x80 \xc2\x85 \xc2\x9b[2J \xc2\x9f, nbsp \xc2\xa0"sv,
             "C1 \\u0080 \\u0085 \\u009b[2J \\u009f, nbsp \xc2\xa0"sv},
            {"bidi \xe2\x80\xaa\xe2\x80\xab\xe2\x80\xac\xe2\x80\xad\xe2\x80\xae \xe2\x81\xa6\xe2\x81\xa7\xe2\x81\xa8\xe2\x81\xa9"sv,
             "bidi \\u202a\\u202b\\u202c\\u202d\\u202e \\u2066\\u2067\\u2068\\u2069"sv},
            {"around \xe2\x80\xa9 \xe2\x80\xaf \xe2\x81\xa5 \xe2\x81\xaa"sv,
             "around \xe2\x80\xa9 \xe2\x80\xaf \xe2\x81\xa5 \xe2\x81\xaa"sv},
            {"zero width \xe2\x80\x8b\xe2\x80\x8c\xe2\x80\x8d lrm \xe2\x80\x8e rlm \xe2\x80\x8f alm \xd8\x9c bom \xef\xbb\xbf"sv,
             "zero width \xe2\x80\x8b\xe2\x80\x8c\xe2\x80\x8d lrm \xe2\x80\x8e rlm \xe2\x80\x8f alm \xd8\x9c bom \xef\xbb\xbf"sv},
            {"text caf\xc3\xa9 \xe0\xa4\xa8\xe0\xa4\xae\xe0\xa4\xb8\xe0\xa5\x8d\xe0\xa4\xa4\xe0\xa5\x87 \xf0\x9f\x98\x80"sv,
             "text caf\xc3\xa9 \xe0\xa4\xa8\xe0\xa4\xae\xe0\xa4\xb8\xe0\xa5\x8d\xe0\xa4\xa4\xe0\xa5\x87 \xf0\x9f\x98\x80"sv},
            {"cut inside \xe2\x82x \xf0\x9f\x98! \xc3"sv,
             "cut inside \xef\xbf\xbd\xef\xbf\xbdx \xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd! \xef\xbf\xbd"sv},
            {"cut at end \xe2\x82"sv, "cut at end \xef\xbf\xbd\xef\xbf\xbd"sv},
            {"cut at end \xf0\x9f\x98"sv, "cut at end \xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd"sv},
            {"cut at end \xc3"sv, "cut at end \xef\xbf\xbd"sv},
            {"<a href=\"x\">Tom & 'Jerry'</a>"sv, "&lt;a href=&quot;x&quot;&gt;Tom &amp; &#39;Jerry&#39;&lt;/a&gt;"sv},
            {"{\"a\":\"x\x7f\xc2\x9b\xe2\x80\xae y\",\"b\":\"caf\xc3\xa9\"}"sv,
             "{&quot;a&quot;:&quot;x \\u009b\\u202e y&quot;,&quot;b&quot;:&quot;caf\xc3\xa9&quot;}"sv},
        };
        for (const auto& [input, escaped] : k_cases) {
            CAPTURE(input);
            CHECK(report::html_escape(input) == escaped);
        }
    }

    TEST_CASE("is one self-contained page: no script, nothing fetched, a policy that forbids both") {
        LogFile log;
        const auto page = page_of(log, small_log());
        CHECK(page.starts_with("<!DOCTYPE html>\n"));
        CHECK(page.ends_with("</html>\n"));
        CHECK(contains(page, R"(content="default-src 'none'; style-src 'unsafe-inline'")"));
        CHECK_FALSE(contains(page, "<script"));
        CHECK_FALSE(contains(page, "src=\""));   // no image, frame or script source of any kind
        CHECK_FALSE(contains(page, "href=\""));  // no stylesheet or font link
        CHECK_FALSE(contains(page, "url("));     // no CSS fetch
        CHECK(count_of(page, "<style>") == 1);
    }

    TEST_CASE("escapes names and errors from the log") {
        LogFile log;
        const auto page = page_of(log, small_log());
        CHECK(contains(page, "&lt;script&gt;alert(1)&lt;/script&gt;"));
        CHECK(contains(page, "HTTP 400: &lt;img src=x onerror=alert(2)&gt;"));
        CHECK_FALSE(contains(page, "<img"));
    }

    TEST_CASE("escapes the campaign name and the log path") {
        LogFile log;
        results::CampaignHeader h{"<b>x</b>", "c.yaml", "aa", "r.csv", "bb", at(0ms), "0.1.0", results::Mode::send, {}};
        const auto page = page_of(log, results::to_line(h));
        CHECK(contains(page, "<title>&lt;b&gt;x&lt;/b&gt; — wacamp report</title>"));
        CHECK_FALSE(contains(page, "<b>"));
    }

    TEST_CASE("has the figures, the status bar, both charts and the tables") {
        LogFile log;
        const auto page = page_of(log, small_log());
        for (auto id : {R"(id="campaign")", R"(id="figures")", R"(id="status-bar")", R"(id="chart-rate")",
                        R"(id="chart-latency")", R"(id="errors")", R"(id="slowest")", R"(id="not-sent")"}) {
            CAPTURE(id);
            CHECK(contains(page, id));
        }
        CHECK(contains(page, R"(<div class="label">Sent</div><div class="value">1</div>)"));
        CHECK(contains(page, "p99 900 ms"));
        CHECK(count_of(page, "<svg") == 3);
        CHECK(count_of(page, "</svg>") == 3);
    }

    TEST_CASE("lists failed and unknown rows with their latest record") {
        LogFile log;
        const auto page = page_of(log, small_log());
        const auto section = page.substr(page.find(R"(id="not-sent")"));
        CHECK(contains(section, "Failed and unknown recipients (3)"));
        CHECK(contains(section, wa_id(2)));
        CHECK(contains(section, wa_id(5)));
        CHECK(contains(section, "request in flight when the run stopped"));
        // Row 4 was sent, then a second attempt was in flight: unknown, named from its result.
        CHECK(contains(section, wa_id(4)));
        CHECK(contains(section, "User 4"));
    }

    TEST_CASE("a retry answered unsent leaves the row as its earlier result left it, not in flight") {
        LogFile log;
        const std::string unsent =
            results::to_line(results::UnsentRecord{1, wa_id(1), 2, 404, "HTTP 404: no such path", at(2100ms)});
        const auto page =
            page_of(log, header() + attempt(1, 1, 1s) +
                             result(1, Status::failed, Cause::transient, 500, "HTTP 500: try later", 90, 1090ms) +
                             attempt(1, 2, 2s) + unsent);
        const auto section = page.substr(page.find(R"(id="not-sent")"));
        CHECK(contains(section, "Failed and unknown recipients (1)"));
        CHECK(contains(section, "HTTP 500: try later"));
        CHECK_FALSE(contains(section, "request in flight when the run stopped"));
    }

    TEST_CASE("an unsent after the row's result (a hand-edited log) leaves the row as its result says") {
        LogFile log;
        const std::string unsent =
            results::to_line(results::UnsentRecord{1, wa_id(1), 1, 404, "HTTP 404: no such path", at(2s)});
        const auto page = page_of(
            log, header() + attempt(1, 1, 1s) +
                     result(1, Status::failed, Cause::transient, 500, "HTTP 500: try later", 90, 1090ms) + unsent);
        const auto section = page.substr(page.find(R"(id="not-sent")"));
        CHECK(contains(section, "Failed and unknown recipients (1)"));
        CHECK(contains(section, "HTTP 500: try later"));
    }

    TEST_CASE("a row attempted, answered unsent and attempted again is in flight from its latest attempt") {
        LogFile log;
        const auto unsent = [](std::int64_t row, int n, std::chrono::milliseconds offset) {
            return results::to_line(
                results::UnsentRecord{row, wa_id(row), n, 404, "HTTP 404: no such path", at(offset)});
        };
        // Row 1 failed first; row 2 had no result before.
        const auto section = not_sent_section(
            log, header() + result(1, Status::failed, Cause::transient, 500, "HTTP 500: try later", 90, 1s) +
                     attempt(1, 2, 2s) + attempt(2, 1, 2100ms) + unsent(1, 2, 2200ms) + unsent(2, 1, 2300ms) +
                     attempt(1, 3, 3s) + attempt(2, 2, 3100ms));
        CHECK(contains(section, "Failed and unknown recipients (2)"));
        CHECK(contains(section, in_flight_row(1, "User 1", 3, 3)));
        CHECK(contains(section, in_flight_row(2, "", 2, 3)));
        // A retry answered unsent while the first request is still in flight leaves that one shown.
        const auto retried =
            not_sent_section(log, header() + attempt(1, 1, 1s) + attempt(1, 2, 2s) + unsent(1, 2, 2200ms));
        CHECK(contains(retried, "Failed and unknown recipients (1)"));
        CHECK(contains(retried, in_flight_row(1, "", 1, 1)));
    }

    TEST_CASE("an attempt without a result shows the request in flight, named from the row's earlier result") {
        LogFile log;
        const auto section = not_sent_section(
            log, header() + attempt(1, 1, 1s) + attempt(2, 1, 1100ms) +
                     result(2, Status::failed, Cause::transient, 503, "HTTP 503", 40, 1200ms) + attempt(2, 2, 2s));
        CHECK(contains(section, in_flight_row(1, "", 1, 1)));
        CHECK(contains(section, in_flight_row(2, "User 2", 2, 2)));
    }

    TEST_CASE("lists the first 100 failed rows and counts the rest") {
        LogFile log;
        std::string text = header();
        for (int row = 1; row <= 105; ++row) {
            text += result(row, Status::failed, Cause::rejected, 400, "HTTP 400", 10, 1s);
        }
        const auto page = page_of(log, text);
        CHECK(contains(page, "Failed and unknown recipients (105)"));
        CHECK(contains(page, "… and 5 more;"));
        CHECK(contains(page, wa_id(100)));
        CHECK_FALSE(contains(page, wa_id(101)));
    }

    TEST_CASE("shows the ten slowest rows once each, slowest first") {
        LogFile log;
        std::string text = header();
        for (int row = 1; row <= 12; ++row) {
            text += sent(row, 100 + row, std::chrono::seconds(row));
        }
        text += sent(1, 5000, 20s);  // row 1 again, now the slowest
        auto summary = report::summarize(log.write(text));
        REQUIRE(summary.ok());
        auto details = report::collect_html_details(*summary);
        REQUIRE(details.ok());
        REQUIRE(details->slowest.size() == 10);
        CHECK(details->slowest[0].row == 1);
        CHECK(*details->slowest[0].latency_ms == 5000);
        CHECK(details->slowest[1].row == 12);
        CHECK(details->slowest[9].row == 4);
        const auto rows =
            std::count_if(details->slowest.begin(), details->slowest.end(), [](const auto& r) { return r.row == 1; });
        CHECK(rows == 1);
    }

    TEST_CASE("a dry run's log has figures and no charts") {
        LogFile log;
        const auto page =
            page_of(log, header(results::Mode::dry_run) + result(1, Status::dry_run, Cause::none, 0, "", -1, 1s, 0) +
                             result(2, Status::invalid, Cause::invalid, 0, "bad number", -1, 1s, 0));
        CHECK(contains(page, R"(<span class="badge">dry run</span>)"));
        CHECK(contains(page, R"(<div class="label">Would send</div><div class="value">1</div>)"));
        CHECK(contains(page, "a dry run sends nothing"));
        CHECK_FALSE(contains(page, "chart-rate"));
        CHECK_FALSE(contains(page, R"(id="not-sent")"));
    }

    TEST_CASE("a log with only its campaign record still makes a page") {
        LogFile log;
        const auto page = page_of(log, header());
        CHECK(contains(page, R"(<div class="label">Recipients</div><div class="value">0</div>)"));
        CHECK(contains(page, "no end record"));
        CHECK(contains(page, R"(id="status-bar")"));
        CHECK_FALSE(contains(page, "chart-rate"));
        CHECK(page.ends_with("</html>\n"));
    }

    TEST_CASE("a campaign of weeks keeps the time series within its bucket limit") {
        LogFile log;
        std::string text = header();
        for (int day = 0; day < 30; ++day) {
            const auto offset = std::chrono::milliseconds(std::chrono::hours(24) * day);
            text += sent(day + 1, 50, offset + 1s);
        }
        auto summary = report::summarize(log.write(text));
        REQUIRE(summary.ok());
        auto details = report::collect_html_details(*summary);
        REQUIRE(details.ok());
        CHECK(details->timeline.buckets().size() <= report::Timeline::k_max_buckets);
        CHECK(details->timeline.width() == std::chrono::hours(2));
        std::int64_t sent_total = 0;
        for (const auto& b : details->timeline.buckets()) {
            sent_total += b.sent;
        }
        CHECK(sent_total == 30);
    }
}

TEST_SUITE("report::summarize") {
    TEST_CASE("names the first failed or unknown rows by row number, by their final state") {
        LogFile log;
        auto s = report::summarize(log.write(small_log()));
        REQUIRE(s.ok());
        CHECK(s->not_sent_rows == std::vector<std::int64_t>{2, 4, 5});
    }
}

TEST_SUITE("report::Timeline") {
    TEST_CASE("picks the smallest round bucket width that needs at most k_max_buckets") {
        const auto t0 = at(0ms);
        CHECK(report::Timeline(t0, t0 + 10s).width() == 1s);
        CHECK(report::Timeline(t0, t0 + 10s).buckets().size() == 11);
        CHECK(report::Timeline(t0, t0 + 20min).width() == 5s);
        CHECK(report::Timeline(t0, t0).buckets().size() == 1);
        for (auto span : {1h, 24h, 24h * 365, 24h * 365 * 20}) {
            CAPTURE(span.count());
            CHECK(report::Timeline(t0, t0 + span).buckets().size() <= report::Timeline::k_max_buckets);
        }
    }

    TEST_CASE("counts outcomes in their bucket; times outside the span in the nearest one") {
        const auto t0 = at(0ms);
        report::Timeline timeline(t0, t0 + 3s);
        CHECK(timeline.empty());
        timeline.add(t0 + 1500ms, report::Outcome::sent);
        timeline.add(t0 + 1999ms, report::Outcome::not_sent);
        timeline.add(t0 - 5s, report::Outcome::sent);
        timeline.add(t0 + 1h, report::Outcome::sent);
        CHECK_FALSE(timeline.empty());
        const auto& b = timeline.buckets();
        REQUIRE(b.size() == 4);
        CHECK(b[0].sent == 1);
        CHECK(b[1].sent == 1);
        CHECK(b[1].not_sent == 1);
        CHECK(b[3].sent == 1);
    }

    TEST_CASE("a bucket's latency percentiles are within 8 % and never above its max") {
        const auto t0 = at(0ms);
        report::Timeline timeline(t0, t0 + 1s);
        for (int ms : {10, 20, 30, 40, 1000}) {
            timeline.add_latency(t0, ms);
        }
        const auto& bucket = timeline.buckets()[0];
        const auto p50 = *report::Timeline::percentile(bucket, 50);
        CHECK(p50 <= 30);
        CHECK(p50 >= 30 * 0.92);
        CHECK(report::Timeline::percentile(bucket, 100) == 1000);
        CHECK_FALSE(report::Timeline::percentile(timeline.buckets()[1], 50).has_value());
        report::Timeline one(t0, t0);
        one.add_latency(t0, 1234);
        const auto p = *report::Timeline::percentile(one.buckets()[0], 50);
        CHECK(p <= 1234);
        CHECK(p >= 1234 * 0.92);
    }
}

TEST_SUITE("report::svg_chart") {
    TEST_CASE("draws stacked bars, a legend and labelled axes") {
        report::Chart chart{.id = "c",
                            .title = "t",
                            .unit = "/s",
                            .kind = report::ChartKind::stacked_bars,
                            .bucket_width = 1s,
                            .series = {{"sent", "c-sent", {3.0, 0.0, 7.0}}, {"failed", "c-failed", {1.0, 0.0, 0.0}}}};
        const auto svg = report::svg_chart(chart);
        CHECK(svg.starts_with(R"(<svg id="c" class="chart")"));
        CHECK(svg.ends_with("</svg>"));
        CHECK(count_of(svg, "Z") == 3);  // three bars drawn; zero values are not
        CHECK(contains(svg, ">sent</text>"));
        CHECK(contains(svg, ">8/s</text>"));  // y from 0 to a round top above 7
        CHECK(contains(svg, ">2s</text>"));
    }

    TEST_CASE("breaks lines at buckets with no value and marks isolated points") {
        report::Chart chart{.id = "l",
                            .title = "t",
                            .unit = " ms",
                            .kind = report::ChartKind::lines,
                            .bucket_width = 1s,
                            .series = {{"p50", "c-p50", {10.0, 20.0, std::nullopt, 30.0}}}};
        const auto svg = report::svg_chart(chart);
        CHECK(count_of(svg, "M") == 2);  // two runs of points
        CHECK(count_of(svg, "<circle") == 3);
    }

    TEST_CASE("an empty chart still has its axes") {
        report::Chart chart;
        chart.id = "e";
        const auto svg = report::svg_chart(chart);
        CHECK(contains(svg, R"(class="axis-line")"));
        CHECK_FALSE(contains(svg, "<path"));
    }
}
