#include <doctest/doctest.h>

#include <memory>
#include <string>

#include "campaign/paused_regions.hpp"
#include "campaign/pricing.hpp"

using campaign::CostTally;
using campaign::PriceCategory;
using campaign::RateCard;

namespace {

// A card with IN, BR and US rows (IN with an international authentication price) and `*`.
std::shared_ptr<const RateCard> test_card() {
    auto card = RateCard::parse(
        "# effective: 2026-10-01\n"
        "country,marketing,utility,authentication,authentication_international\n"
        "IN,0.0107,0.0014,0.0014,0.0280\n"
        "BR,0.0625,0.0068,0.0068,\n"
        "US,0.0250,0.0034,0.0135,\n"
        "*,0.0604,0.0077,0.0077,\n",
        "test-rates.csv");
    REQUIRE_MESSAGE(card, (card ? "" : card.error().message));
    return std::make_shared<const RateCard>(std::move(*card));
}

// A template campaign of `category` ("" when not checked) priced with test_card().
campaign::Campaign template_campaign(const std::string& category) {
    campaign::Campaign c;
    c.message.type = campaign::MessageType::template_message;
    c.message.templated.name = "spring_sale";
    c.message.templated.category = category;
    c.pricing.card = test_card();
    c.pricing.rate_card = "test-rates.csv";
    return c;
}

constexpr const char* k_in = "919812345678";
constexpr const char* k_br = "5511912345678";
constexpr const char* k_us = "16502530000";

}  // namespace

TEST_SUITE("campaign::pricing") {
    TEST_CASE("a template's category from the template list, in any case, is the price's") {
        CHECK(campaign::price_basis(template_campaign("UTILITY")).category == PriceCategory::utility);
        const auto auth = campaign::price_basis(template_campaign("authentication"));
        CHECK(auth.category == PriceCategory::authentication);
        CHECK(auth.category_name == "AUTHENTICATION");
        CHECK(auth.note.empty());
        CHECK_FALSE(auth.free);
    }

    TEST_CASE("a template not checked, or of a category the card lacks, is priced as MARKETING, saying so") {
        const auto unchecked = campaign::price_basis(template_campaign(""));
        CHECK(unchecked.category == PriceCategory::marketing);
        CHECK(unchecked.category_name == "MARKETING");
        CHECK(unchecked.note.find("category not checked") != std::string::npos);
        const auto other = campaign::price_basis(template_campaign("SERVICE"));
        CHECK(other.category == PriceCategory::marketing);
        CHECK(other.note == "the template's category SERVICE has no price on the card: priced as MARKETING");
    }

    TEST_CASE("a row's price is its country's, else the `*` row's; authentication at the higher of its columns") {
        const auto card = test_card();
        const auto marketing = campaign::price_basis(template_campaign("MARKETING"));
        CHECK(campaign::price_of(*card, marketing, "IN") == doctest::Approx(0.0107));
        CHECK(campaign::price_of(*card, marketing, "BR") == doctest::Approx(0.0625));
        CHECK(campaign::price_of(*card, marketing, "FR") == doctest::Approx(0.0604));
        CHECK(campaign::price_of(*card, marketing, "") == doctest::Approx(0.0604));
        const auto utility = campaign::price_basis(template_campaign("UTILITY"));
        CHECK(campaign::price_of(*card, utility, "US") == doctest::Approx(0.0034));
        const auto auth = campaign::price_basis(template_campaign("AUTHENTICATION"));
        CHECK(campaign::price_of(*card, auth, "IN") == doctest::Approx(0.0280));
        CHECK(campaign::price_of(*card, auth, "US") == doctest::Approx(0.0135));
    }

    TEST_CASE("text and image messages cost nothing, said plainly") {
        campaign::Campaign c = template_campaign("MARKETING");
        for (auto type : {campaign::MessageType::text, campaign::MessageType::image}) {
            c.message.type = type;
            const auto basis = campaign::price_basis(c);
            CHECK(basis.free);
            CHECK(campaign::price_of(*c.pricing.card, basis, "IN") == 0);
            auto tally = CostTally::create(c);
            REQUIRE(tally);
            tally->add(k_in);
            const auto cost = tally->estimate();
            CHECK(cost.total == 0);
            CHECK(cost.messages == 1);
            CHECK(cost.by_country.empty());
            CHECK(campaign::describe(cost) ==
                  "cost: none: text messages are free inside the customer-service window, the only time they can be "
                  "sent\n");
        }
    }

    TEST_CASE("the estimate counts rows by their number's country, most messages first") {
        const campaign::Campaign c = template_campaign("MARKETING");
        auto tally = CostTally::create(c);
        REQUIRE(tally);
        for (int i = 0; i < 3; ++i) {
            tally->add(k_in);
        }
        tally->add(k_br);
        tally->add(k_br);
        tally->add(k_us);
        const auto cost = tally->estimate();
        CHECK(cost.messages == 6);
        CHECK(cost.category == "MARKETING");
        CHECK(cost.currency == "USD");
        CHECK(cost.rate_card == "test-rates.csv");
        CHECK(cost.effective == "2026-10-01");
        REQUIRE(cost.by_country.size() == 3);
        CHECK(cost.by_country[0].country == "IN");
        CHECK(cost.by_country[0].messages == 3);
        CHECK(cost.by_country[0].amount == doctest::Approx(0.0321));
        CHECK(cost.by_country[1].country == "BR");
        CHECK(cost.by_country[2].country == "US");
        CHECK(cost.total == doctest::Approx(3 * 0.0107 + 2 * 0.0625 + 0.0250));
        CHECK(campaign::describe(cost) ==
              "cost: about 0.18 USD for 6 MARKETING messages (rate card test-rates.csv, effective 2026-10-01)\n"
              "  IN 3 × 0.0107 = 0.03\n"
              "  BR 2 × 0.0625 = 0.13\n"
              "  US 1 × 0.025 = 0.03\n"
              "  an upper bound: failed sends cost nothing; volume tiers and open service windows cost less\n");
    }

    TEST_CASE("past the top five countries the rest are one line, N others") {
        campaign::CostEstimate cost{.currency = "USD",
                                    .total = 0,
                                    .messages = 0,
                                    .category = "UTILITY",
                                    .rate_card = "r.csv",
                                    .effective = std::nullopt,
                                    .by_country = {},
                                    .note = {}};
        const char* countries[] = {"IN", "BR", "MX", "ID", "NG", "DE", "FR"};
        std::int64_t n = 18'200;
        for (const char* country : countries) {
            cost.by_country.push_back({country, n, 0.01, static_cast<double>(n) * 0.01, true});
            cost.messages += n;
            cost.total += static_cast<double>(n) * 0.01;
            n /= 2;
        }
        const std::string text = campaign::describe(cost);
        CHECK(
            text.starts_with("cost: about 361.14 USD for 36,114 UTILITY messages (rate card r.csv, undated)\n"
                             "  IN 18,200 × 0.01 = 182.00\n"));
        CHECK(text.find("  NG 1,137 × 0.01 = 11.37\n  2 others: 852 messages = 8.52\n") != std::string::npos);
    }

    TEST_CASE("numbers of no country take the `*` price, counted as `*`") {
        const campaign::Campaign c = template_campaign("MARKETING");
        auto tally = CostTally::create(c);
        REQUIRE(tally);
        tally->add("80012345678");  // +800: a non-geographic code
        const auto cost = tally->estimate();
        REQUIRE(cost.by_country.size() == 1);
        CHECK(cost.by_country[0].country == "*");
        CHECK(cost.by_country[0].price == doctest::Approx(0.0604));
        CHECK(cost.by_country[0].listed);  // the `*` row is its own
        CHECK(campaign::describe(cost).find("  * 1 × 0.0604 = 0.06\n") != std::string::npos);
    }

    TEST_CASE("amounts are kept to 4 decimals") {
        CHECK(campaign::rounded_amount(194.74000000001) == 194.74);
        CHECK(campaign::rounded_amount(0.03210000000000001) == 0.0321);
        CHECK(campaign::rounded_amount(0.00005) == doctest::Approx(0.0001));
    }
}

TEST_SUITE("campaign::PausedRegions") {
    TEST_CASE("a MARKETING template (or one not checked) pauses the regions named; Canada shares +1 and goes") {
        for (const std::string category : {"MARKETING", ""}) {
            CAPTURE(category);
            auto c = template_campaign(category);
            auto paused = campaign::PausedRegions::of(c);
            REQUIRE(paused);
            REQUIRE(paused->has_value());
            CHECK((*paused)->paused(k_us));
            CHECK_FALSE((*paused)->paused("14169671111"));  // Toronto
            CHECK_FALSE((*paused)->paused(k_in));
            CHECK((*paused)->why(k_us) ==
                  "Meta delivers no MARKETING template to numbers of US (message.paused_regions)");
        }
    }
    TEST_CASE("other categories, text messages and an empty list pause nothing") {
        CHECK_FALSE(campaign::PausedRegions::of(template_campaign("UTILITY"))->has_value());
        CHECK_FALSE(campaign::PausedRegions::of(template_campaign("AUTHENTICATION"))->has_value());
        auto none = template_campaign("MARKETING");
        none.message.templated.paused_regions.clear();
        CHECK_FALSE(campaign::PausedRegions::of(none)->has_value());
        campaign::Campaign text;
        CHECK_FALSE(campaign::PausedRegions::of(text)->has_value());
    }
    TEST_CASE("any region may be named: India's numbers are told by their region, not only their code") {
        auto c = template_campaign("MARKETING");
        c.message.templated.paused_regions = {"IN", "CA"};
        auto paused = campaign::PausedRegions::of(c);
        REQUIRE(paused);
        REQUIRE(paused->has_value());
        CHECK((*paused)->paused(k_in));
        CHECK((*paused)->paused("14169671111"));
        CHECK_FALSE((*paused)->paused(k_us));
        CHECK_FALSE((*paused)->paused(k_br));
    }
}
