// The spend of the sent rows in every report format, from hand-written logs whose results carry
// `price` (and some that carry none, or carry one that must not count).
#include <doctest/doctest.h>

#include <nlohmann/json.hpp>
#include <sstream>

#include "report/csv.hpp"
#include "report/format.hpp"
#include "report/html.hpp"
#include "report/html_chart.hpp"
#include "report/xlsx.hpp"
#include "test_report_log.hpp"

using namespace report_test;

namespace {

constexpr std::string_view k_in = "919812345678";      // India
constexpr std::string_view k_br = "5511987654321";     // Brazil
constexpr std::string_view k_nowhere = "80012345678";  // +800: a number of no country

// A `campaign` record naming a card of `currency` ("": a record without a rate_card, as before prices).
std::string priced_header(const std::string& currency, results::Mode mode = results::Mode::send) {
    std::string line = header(mode);
    if (currency.empty()) {
        return line;
    }
    line.erase(line.rfind('}'));
    return line + R"(,"rate_card":{"path":"/etc/rates.csv","sha256":"ff","currency":")" + currency +
           R"(","effective":"2025-07-01"}})" + "\n";
}

// A template send's result of `row` to `wa_id` with `status`; `price` is written as given (JSON
// text, "" for none), `category` too ("" for none).
std::string priced(std::int64_t row, std::string_view wa_id, std::string_view status, std::string_view category,
                   std::string_view price) {
    std::string line = R"({"event":"result","row":)" + std::to_string(row) + R"(,"wa_id":")" + std::string(wa_id) +
                       R"(","status":")" + std::string(status) + R"(","attempts":1,"template":"spring_sale")";
    if (!category.empty()) {
        line += R"(,"category":")" + std::string(category) + "\"";
    }
    if (!price.empty()) {
        line += R"(,"price":)" + std::string(price);
    }
    return line + R"(,"at":"2026-11-21T09:00:0)" + std::to_string(row % 10) + ".000Z\"}\n";
}

// Three priced sends (two to India, one to Brazil; one of them UTILITY), and four rows that must
// not count: a sent row without a price, a failed row with one, a sent row whose price is a
// string (hostile), a sent row whose price is negative.
std::string spend_log() {
    return priced_header("USD") + priced(1, k_in, "sent", "MARKETING", "0.0107") +
           priced(2, k_br, "sent", "MARKETING", "0.0625") + priced(3, k_in, "sent", "UTILITY", "0.0014") +
           priced(4, k_in, "sent", "MARKETING", "") + priced(5, k_br, "failed", "MARKETING", "0.0625") +
           priced(6, k_in, "sent", "MARKETING", R"("\u001b[31m0.5")") + priced(7, k_br, "sent", "MARKETING", "-3");
}

report::Summary summary_of(const LogFile& log, const std::string& text) {
    auto s = report::summarize(log.write(text));
    REQUIRE(s.ok());
    return *s;
}

std::string csv_of(const std::string& path) {
    auto index = report::index_log(path);
    REQUIRE(index.ok());
    std::ostringstream out;
    REQUIRE(report::write_csv(*index, out).ok());
    return out.str();
}

bool contains(const std::string& text, std::string_view part) {
    return text.find(part) != std::string::npos;
}

// A dry run's log whose end record keeps the plan's cost.
std::string dry_run_log() {
    results::EndRecord end{"completed", {}, at(2s)};
    results::PlanSummary plan;
    plan.kind = "timed";
    plan.messages = 3;
    plan.first = at(1s);
    plan.last = at(2s);
    plan.per_hour = {3};
    plan.cost = results::CostSummary{
        "USD", 1.25, 3, "UTILITY", "/etc/rates\x1b[2J.csv", "2025-07-01", {{"IN", 2, 0.5, 1.0}, {"BR", 1, 0.25, 0.25}}};
    end.plan = plan;
    return header(results::Mode::dry_run) + result(1, Status::dry_run, Cause::none, 0, "", -1, 1s) +
           results::to_line(end);
}

}  // namespace

TEST_SUITE("report: the spend of the sent rows") {
    TEST_CASE(
        "sums the price of sent rows by category and by country; rows without one, failed rows and prices "
        "that are not non-negative numbers do not count") {
        LogFile log;
        const auto s = summary_of(log, spend_log());
        CHECK(s.counts[Status::sent] == 6);  // the hostile price did not cost the row its outcome
        const auto& spend = s.spend;
        CHECK(spend.currency == "USD");
        CHECK(spend.messages == 3);
        CHECK(spend.total == doctest::Approx(0.0746));
        CHECK(spend.without_price == 3);  // row 4, and rows 6 and 7 whose prices are unusable
        REQUIRE(spend.by_category.size() == 2);
        CHECK(spend.by_category[0].key == "MARKETING");
        CHECK(spend.by_category[0].messages == 2);
        CHECK(spend.by_category[0].amount == doctest::Approx(0.0732));
        CHECK(spend.by_category[1].key == "UTILITY");
        REQUIRE(spend.by_country.size() == 2);
        CHECK(spend.by_country[0].key == "BR");  // most spent first
        CHECK(spend.by_country[0].amount == doctest::Approx(0.0625));
        CHECK(spend.by_country[1].key == "IN");
        CHECK(spend.by_country[1].messages == 2);
    }

    TEST_CASE("a row without a category counts as MARKETING, as it was priced; a number of no country as *") {
        LogFile log;
        const auto s = summary_of(log, priced_header("USD") + priced(1, k_nowhere, "sent", "", "0.5"));
        REQUIRE(s.spend.by_category.size() == 1);
        CHECK(s.spend.by_category[0].key == "MARKETING");
        REQUIRE(s.spend.by_country.size() == 1);
        CHECK(s.spend.by_country[0].key == "*");
    }

    TEST_CASE("the currency is the latest card's, USD without one; cards of two currencies are said to mix") {
        LogFile log;
        CHECK(summary_of(log, priced_header("") + priced(1, k_in, "sent", "", "1")).spend.currency == "USD");
        const auto one = summary_of(log, priced_header("EUR") + priced(1, k_in, "sent", "", "1"));
        CHECK(one.spend.currency == "EUR");
        CHECK_FALSE(one.spend.mixed_currencies);
        const auto two = summary_of(log, priced_header("EUR") + priced(1, k_in, "sent", "", "1") +
                                             priced_header("USD") + priced(2, k_in, "sent", "", "1"));
        CHECK(two.spend.currency == "USD");
        CHECK(two.spend.mixed_currencies);
        const auto later = summary_of(log, priced_header("") + priced_header("INR") + priced(2, k_in, "sent", "", "1"));
        CHECK(later.spend.currency == "INR");
        CHECK_FALSE(later.spend.mixed_currencies);
    }

    TEST_CASE("a log of countless categories keeps a bounded number of them: the rest count as others") {
        LogFile log;
        std::string text = priced_header("USD");
        for (int i = 1; i <= 40; ++i) {
            text += priced(i, k_in, "sent", "CAT" + std::to_string(i), "1");
        }
        const auto s = summary_of(log, text);
        CHECK(s.spend.messages == 40);
        CHECK(s.spend.by_category.size() == report::Spend::k_max_categories + 1);
        CHECK(s.spend.by_category[0].key == "others");
        CHECK(s.spend.by_category[0].messages == 40 - static_cast<std::int64_t>(report::Spend::k_max_categories));
    }

    TEST_CASE("text: a spend block with the total, by category and by country, the log's texts made printable") {
        LogFile log;
        const auto text =
            report::format_text(summary_of(log, spend_log() + priced(8, k_in, "sent", "UTIL\\u001b[2J", "0")));
        CAPTURE(text);
        CHECK(contains(text,
                       "\nSpend\n  total       about 0.07 USD for 4 sent messages, each at its price when it "
                       "was sent\n"));
        CHECK(contains(text,
                       "  by category MARKETING    2  0.07\n"
                       "              UTILITY      1  0.00\n"
                       "              UTIL\\x1b[2J  1  0.00\n"
                       "  by country  BR           1  0.06\n"
                       "              IN           3  0.01\n"));
        CHECK(contains(text, "  no price    3 sent template messages without a price"));
        CHECK_FALSE(contains(text, "\x1b"));
    }

    TEST_CASE("text: no spend block for a log whose sent rows are text messages") {
        LogFile log;
        const auto text = report::format_text(summary_of(log, header() + sent(1, 40, 1s)));
        CHECK_FALSE(contains(text, "Spend"));
    }

    TEST_CASE("json: a spend object, amounts rounded to 4 decimals; plan null for a log that is not a dry run's") {
        LogFile log;
        const auto j = nlohmann::json::parse(report::format_json(summary_of(log, spend_log())));
        const auto expected = nlohmann::json::parse(R"({"currency": "USD", "total": 0.0746, "messages": 3,
            "without_price": 3, "mixed_currencies": false,
            "by_category": {"MARKETING": {"messages": 2, "amount": 0.0732}, "UTILITY": {"messages": 1, "amount": 0.0014}},
            "by_country": {"BR": {"messages": 1, "amount": 0.0625}, "IN": {"messages": 2, "amount": 0.0121}}})");
        CHECK(j["spend"] == expected);
        CHECK(j["plan"].is_null());
    }

    TEST_CASE("csv: a price column after `at`, the price of sent rows only, empty otherwise") {
        LogFile log;
        const auto csv = csv_of(log.write(spend_log()));
        CAPTURE(csv);
        CHECK(
            csv.starts_with("row,wa_id,user_name,status,attempts,http_status,message_id,cause,error_code,error,at,"
                            "price\n"));
        CHECK(contains(csv, "\n1,919812345678,,sent,1,,,,,,2026-11-21T09:00:01.000Z,0.0107\n"));
        CHECK(contains(csv, "\n3,919812345678,,sent,1,,,,,,2026-11-21T09:00:03.000Z,0.0014\n"));
        CHECK(contains(csv, "\n4,919812345678,,sent,1,,,,,,2026-11-21T09:00:04.000Z,\n"));
        CHECK(contains(csv, "\n5,5511987654321,,failed,1,,,,,,2026-11-21T09:00:05.000Z,\n"));  // not spent
        CHECK(contains(csv, "\n6,919812345678,,sent,1,,,,,,2026-11-21T09:00:06.000Z,\n"));
        CHECK(contains(csv, "\n7,5511987654321,,sent,1,,,,,,2026-11-21T09:00:07.000Z,\n"));
    }

    TEST_CASE("html: a spend section with bars by category and by country, and tables; the log's texts escaped") {
        LogFile log;
        auto page = report::format_html(
            summary_of(log, spend_log() + priced(8, k_in, "sent", "<script>alert(1)</script>", "0.001")));
        REQUIRE(page.ok());
        const std::string& html = *page;
        CHECK(contains(html, R"(<section id="spend"><h2>Spend</h2>)"));
        CHECK(contains(html, "About 0.08 USD for 4 sent messages"));
        CHECK(contains(html, R"(<svg id="spend-category" class="bars")"));
        CHECK(contains(html, R"(<svg id="spend-country" class="bars")"));
        CHECK(contains(html, "<title>BR: 0.06</title>"));
        CHECK(contains(html, "<td>IN</td>"));
        CHECK(contains(html, "&lt;script&gt;"));
        CHECK_FALSE(contains(html, "<script>"));
    }

    TEST_CASE("html: no spend section for a log without sent template rows") {
        LogFile log;
        auto page = report::format_html(summary_of(log, header() + sent(1, 40, 1s)));
        REQUIRE(page.ok());
        CHECK_FALSE(contains(*page, R"(<section id="spend">)"));
    }

    TEST_CASE("xlsx: the workbook is written with a hostile price among the rows") {
        LogFile log;
        const auto path = log.write(spend_log());
        auto index = report::index_log(path);
        REQUIRE(index.ok());
        const auto book = (log.dir / "spend.xlsx").string();
        const auto written = report::write_xlsx(*index, summary_of(log, spend_log()), nullptr, book);
        CHECK(written.ok());
        CHECK(std::filesystem::file_size(book) > 0);
    }
}

TEST_SUITE("report: a dry run's log shows the plan's cost") {
    TEST_CASE("text: the estimate as the dry run printed it, the log's texts made printable") {
        LogFile log;
        const auto text = report::format_text(summary_of(log, dry_run_log()));
        CAPTURE(text);
        CHECK(contains(text,
                       "\nEstimated cost (the dry run's plan)\n"
                       "  cost: about 1.25 USD for 3 UTILITY messages (rate card /etc/rates\\x1b[2J.csv, "
                       "effective 2025-07-01)\n"
                       "    IN 2 × 0.5 = 1.00\n"
                       "    BR 1 × 0.25 = 0.25\n"));
        CHECK_FALSE(contains(text, "\x1b"));
    }

    TEST_CASE("json: plan.cost passed through as the dry run's JSON has it") {
        LogFile log;
        const auto j = nlohmann::json::parse(report::format_json(summary_of(log, dry_run_log())));
        CHECK(j["plan"]["kind"] == "timed");
        CHECK(j["plan"]["messages"] == 3);
        CHECK(j["plan"]["cost"] == nlohmann::json::parse(R"({"currency": "USD", "total": 1.25, "messages": 3,
            "category": "UTILITY", "rate_card": "/etc/rates\u001b[2J.csv", "effective": "2025-07-01",
            "by_country": {"IN": {"messages": 2, "price": 0.5, "amount": 1.0},
                           "BR": {"messages": 1, "price": 0.25, "amount": 0.25}}})"));
        CHECK(j["spend"]["messages"] == 0);
    }
}

TEST_SUITE("report::svg_bar_list") {
    TEST_CASE("one bar a line, as long as its value against the largest; labels escaped and clipped") {
        const auto svg = report::svg_bar_list(
            "b", "Spend by country",
            {{"IN", 2.0, "2.00"}, {"BR", 1.0, "1.00"}, {"<b>" + std::string(40, 'x'), 0.0, "0.00"}});
        CAPTURE(svg);
        CHECK(svg.starts_with(R"(<svg id="b" class="bars")"));
        CHECK(svg.ends_with("</svg>"));
        CHECK(contains(svg, R"(<rect class="bar" x="160" y="4.0" width="690.0")"));   // the largest: all the room
        CHECK(contains(svg, R"(<rect class="bar" x="160" y="28.0" width="345.0")"));  // half of it
        CHECK(contains(svg, "<title>BR: 1.00</title>"));
        CHECK(contains(svg, "&lt;b&gt;xxx"));
        CHECK_FALSE(contains(svg, "<b>"));
        CHECK_FALSE(contains(svg, std::string(30, 'x')));  // clipped
    }

    TEST_CASE("no bars: an empty drawing, still a picture") {
        const auto svg = report::svg_bar_list("e", "nothing", {});
        CHECK(contains(svg, R"(viewBox="0 0 960 28")"));
        CHECK_FALSE(contains(svg, "<rect"));
    }
}
