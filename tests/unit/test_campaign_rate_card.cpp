#include <doctest/doctest.h>
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <chrono>
#include <string>

#include "campaign/rate_card.hpp"
#include "campaign_file_fixture.hpp"

using campaign::PriceCategory;
using campaign::RateCard;
using namespace std::chrono_literals;

namespace {

const std::string k_header = "country,marketing,utility,authentication,authentication_international\n";

// The problems of the card `text` (named "rates.csv"), one a line; "" when it reads.
std::string problems_of(const std::string& text) {
    auto card = RateCard::parse(text, "rates.csv");
    return card ? std::string() : card.error().message;
}

util::TimePoint day(std::chrono::year_month_day ymd) {
    return std::chrono::sys_days(ymd) + 13h;
}

}  // namespace

TEST_SUITE("campaign::RateCard") {
    TEST_CASE("a country's own row, else the `*` row; codes and columns in any case and order") {
        auto card = RateCard::parse(
            "# Meta's list prices\n"
            "# effective: 2026-10-01\n"
            "\n"
            "Utility,COUNTRY,marketing,Authentication\n"
            "0.0014,in,0.0118,0.0014\n"
            "0.0040,*,0.0250,0.0135\n",
            "rates.csv");
        REQUIRE_MESSAGE(card, (card ? "" : card.error().message));
        CHECK(card->path() == "rates.csv");
        CHECK(card->countries() == 1);
        CHECK(card->lists("IN"));
        CHECK_FALSE(card->lists("BR"));
        CHECK(card->prices("IN").marketing == doctest::Approx(0.0118));
        CHECK(card->prices("IN").utility == doctest::Approx(0.0014));
        CHECK(card->prices("BR").marketing == doctest::Approx(0.0250));
        CHECK(card->prices("").authentication == doctest::Approx(0.0135));
        REQUIRE(card->effective());
        CHECK(campaign::day_text(*card->effective()) == "2026-10-01");
    }

    TEST_CASE("authentication is priced at the higher of its two columns; an empty international price is none") {
        auto card = RateCard::parse(k_header +
                                        "IN,0.0118,0.0014,0.0014,0.0280\n"
                                        "ID,0.0411,0.0200,0.0300,\n"
                                        "*,0.0250,0.0040,0.0135,0.0100\n",
                                    "rates.csv");
        REQUIRE_MESSAGE(card, (card ? "" : card.error().message));
        CHECK(card->prices("IN").of(PriceCategory::authentication) == doctest::Approx(0.0280));
        CHECK_FALSE(card->prices("ID").authentication_international.has_value());
        CHECK(card->prices("ID").of(PriceCategory::authentication) == doctest::Approx(0.0300));
        CHECK(card->prices("US").of(PriceCategory::authentication) == doctest::Approx(0.0135));  // 0.0135 > 0.0100
        CHECK(card->prices("IN").of(PriceCategory::marketing) == doctest::Approx(0.0118));
        CHECK(card->prices("IN").of(PriceCategory::utility) == doctest::Approx(0.0014));
    }

    TEST_CASE("comments and blank lines anywhere; a byte-order mark and CRLF are read") {
        auto card = RateCard::parse(
            "\xEF\xBB\xBF# top\r\ncountry,marketing,utility,authentication\r\n# between\r\n"
            "\r\n  *, 0.1, 0.2, 0.3 \r\n# effective: 2025-07-01\r\n",
            "rates.csv");
        REQUIRE_MESSAGE(card, (card ? "" : card.error().message));
        CHECK(card->prices("FR").authentication == doctest::Approx(0.3));
        CHECK(campaign::day_text(*card->effective()) == "2025-07-01");
    }

    TEST_CASE("an undated card reads; its date is none") {
        auto card = RateCard::parse("country,marketing,utility,authentication\n*,0.1,0.1,0.1\n", "rates.csv");
        REQUIRE(card);
        CHECK_FALSE(card->effective().has_value());
    }

    TEST_CASE("every problem is named with the card's file and line") {
        const std::string problems = problems_of(
            "# effective: 2026-13-01\n"                   // 1
            "country,marketing,utility,authentication\n"  // 2
            "IN,0.0118,0.0014\n"                          // 3
            "XX,0.1,0.1,0.1\n"                            // 4
            "BR,-0.06,0.0068,0.0068\n"                    // 5
            "MX,0.0436,abc,0.0085\n"                      // 6
            "DE,0.1365,0.0550,0.0550\n"                   // 7
            "de,0.1365,0.0550,0.0550\n"                   // 8
            "GB,0.0529,,0.0358\n"                         // 9
            "FR,1.2.3,0.03,0.03\n"                        // 10
            "# effective: 2026-10-01\n");                 // 11
        CHECK_MESSAGE(
            problems.find("rates.csv:1: `# effective: 2026-13-01`: expected a date as YYYY-MM-DD") != std::string::npos,
            problems);
        CHECK_MESSAGE(problems.find("rates.csv:3: 3 fields, but the header has 4 columns") != std::string::npos,
                      problems);
        CHECK_MESSAGE(
            problems.find("rates.csv:4: country \"XX\" is not an ISO 3166-1 alpha-2 code") != std::string::npos,
            problems);
        CHECK_MESSAGE(problems.find("rates.csv:5: marketing: \"-0.06\" is not a price") != std::string::npos, problems);
        CHECK_MESSAGE(problems.find("rates.csv:6: utility: \"abc\" is not a price") != std::string::npos, problems);
        CHECK_MESSAGE(
            problems.find("rates.csv:8: country \"DE\" is listed twice (first on line 7)") != std::string::npos,
            problems);
        CHECK_MESSAGE(problems.find("rates.csv:9: utility: \"\" is not a price") != std::string::npos, problems);
        CHECK_MESSAGE(problems.find("rates.csv:10: marketing: \"1.2.3\" is not a price") != std::string::npos,
                      problems);
        CHECK_MESSAGE(
            problems.find("rates.csv:11: a second `# effective:` date (the first is on line 1)") != std::string::npos,
            problems);
        CHECK_MESSAGE(problems.find("rates.csv:2: no `*` row") != std::string::npos, problems);
    }

    TEST_CASE("a missing, unknown or repeated column, or no header at all, is named on the header's line") {
        CHECK(problems_of("country,marketing,utility\n*,1,1\n") == "rates.csv:1: no column \"authentication\"");
        const std::string unknown = problems_of("# c\ncountry,marketing,utility,authentification\n*,1,1,1\n");
        CHECK_MESSAGE(unknown.find("rates.csv:2: unknown column \"authentification\"") != std::string::npos, unknown);
        CHECK_MESSAGE(unknown.find("rates.csv:2: no column \"authentication\"") != std::string::npos, unknown);
        CHECK(problems_of("country,marketing,utility,authentication,Marketing\n*,1,1,1,1\n") ==
              "rates.csv:1: column \"marketing\" appears twice");
        CHECK(problems_of("# only comments\n") ==
              "rates.csv:1: no header: expected country,marketing,utility,authentication");
    }

    TEST_CASE("a second `*` row is a repeated country") {
        CHECK(problems_of("country,marketing,utility,authentication\n*,1,1,1\n*,2,2,2\n") ==
              "rates.csv:3: country \"*\" is listed twice (first on line 2)");
    }

    TEST_CASE("a file that is not there cannot be read, and says so with its path") {
        auto card = RateCard::read("/nonexistent/rates.csv");
        REQUIRE_FALSE(card);
        CHECK(card.error().message == "/nonexistent/rates.csv: cannot read: not a file");
    }

    TEST_CASE("ISO 3166-1 codes are known, with Kosovo's XK; others are not") {
        CHECK(campaign::known_country("IN"));
        CHECK(campaign::known_country("XK"));
        CHECK(campaign::known_country("AQ"));
        CHECK_FALSE(campaign::known_country("XX"));
        CHECK_FALSE(campaign::known_country("in"));
        CHECK_FALSE(campaign::known_country("*"));
    }

    TEST_CASE(
        "a card dated more than 180 days before now is warned of, naming its date and the key; a newer one is not") {
        auto card = RateCard::parse("# effective: 2026-04-01\ncountry,marketing,utility,authentication\n*,1,1,1\n",
                                    "rates.csv");
        REQUIRE(card);
        using std::chrono::year;
        CHECK_FALSE(campaign::stale_card_warning(*card, day(year(2026) / 9 / 28), "pricing.rate_card"));  // 180 days
        const auto stale = campaign::stale_card_warning(*card, day(year(2026) / 9 / 29), "pricing.rate_card");
        REQUIRE(stale);
        CHECK(*stale ==
              "the rate card rates.csv is dated 2026-04-01, more than 180 days ago: Meta changes its prices every "
              "quarter; set pricing.rate_card to a card of its current prices");
        auto undated = RateCard::parse("country,marketing,utility,authentication\n*,1,1,1\n", "rates.csv");
        REQUIRE(undated);
        const auto no_date = campaign::stale_card_warning(*undated, day(year(2026) / 1 / 1), "pricing.rate_card");
        REQUIRE(no_date);
        CHECK(no_date->find("has no `# effective: YYYY-MM-DD` date") != std::string::npos);
    }

    TEST_CASE("the card installed with wacamp is found without configuration, and reads") {
        std::vector<std::string> tried;
        const auto path = campaign::default_rate_card_path(tried);
        REQUIRE_MESSAGE(path, fmt::format("{}", fmt::join(tried, ", ")));
        auto card = RateCard::read(*path);
        REQUIRE_MESSAGE(card, (card ? "" : card.error().message));
        CHECK(card->effective().has_value());
        CHECK(card->countries() > 100);
        CHECK(card->lists("KE"));
        // The markets of one country each and North America are rows of their own, not the `*` row's.
        for (const char* country : {"US", "CA", "IN", "BR", "GB", "DE", "ID", "MX", "AE", "SA", "NG", "ZW"}) {
            CHECK_MESSAGE(card->lists(country), country);
        }
    }
}

using namespace campaign_file_test;

TEST_SUITE("campaign::load_campaign pricing") {
    TEST_CASE("a template campaign takes the installed card; a text campaign reads none") {
        Folder folder;
        auto text = folder.load(k_minimal);
        REQUIRE(text);
        CHECK(text->pricing.card == nullptr);
        CHECK(text->pricing.rate_card.empty());
        auto templated =
            folder.load(minimal_with("  type: text\n  text: \"Hi {{name}}\"\n", "  type: template\n  template: t\n"));
        REQUIRE_MESSAGE(templated, (templated ? "" : templated.error().message));
        REQUIRE(templated->pricing.card != nullptr);
        CHECK(templated->pricing.default_card);
        CHECK(templated->pricing.currency == "USD");
        CHECK(templated->pricing.card->lists("KE"));
    }

    TEST_CASE("pricing.rate_card names a card beside the campaign file; its currency is a label") {
        Folder folder;
        folder.put("rates.csv", "country,marketing,utility,authentication\n*,0.5,0.25,0.125\n");
        auto c = folder.load(k_minimal + "pricing:\n  rate_card: rates.csv\n  currency: EUR\n");
        REQUIRE_MESSAGE(c, (c ? "" : c.error().message));
        REQUIRE(c->pricing.card != nullptr);
        CHECK_FALSE(c->pricing.default_card);
        CHECK(c->pricing.rate_card == folder.str("rates.csv"));
        CHECK(c->pricing.currency == "EUR");
        CHECK(c->pricing.card->prices("IN").marketing == doctest::Approx(0.5));
    }

    TEST_CASE("a bad card is a problem of the campaign file, on the key's line, naming the card's own line") {
        Folder folder;
        folder.put("rates.csv", "country,marketing,utility,authentication\nIN,x,1,1\n");
        const std::string problems = folder.problems(k_minimal + "pricing:\n  rate_card: rates.csv\n  currncy: EUR\n");
        CHECK_PROBLEM(problems,
                      "12: pricing.rate_card: " + folder.str("rates.csv") +
                          ":2: marketing: \"x\" is not a price (expected a non-negative decimal like 0.0107)");
        CHECK_PROBLEM(problems, "12: pricing.rate_card: " + folder.str("rates.csv") +
                                    ":1: no `*` row: the price of every country not listed is needed");
        CHECK_MESSAGE(problems.find("13: unknown key \"pricing.currncy\"") != std::string::npos, problems);
        const std::string missing = folder.problems(k_minimal + "pricing:\n  rate_card: nowhere.csv\n");
        CHECK_PROBLEM(missing, "12: pricing.rate_card: " + folder.str("nowhere.csv") + ": cannot read: not a file");
    }
}
