#include "campaign/pricing.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "util/text.hpp"

namespace campaign {

namespace {

constexpr std::string_view k_category_names[] = {"MARKETING", "UTILITY", "AUTHENTICATION"};

}  // namespace

PriceBasis price_basis(const Campaign& c) {
    if (c.message.type != MessageType::template_message) {
        return {.free = true,
                .category = PriceCategory::marketing,
                .category_name = {},
                .note = "text messages are free inside the customer-service window, the only time they can be sent"};
    }
    // Not checked (--offline): the pinned category is the one the run will insist on.
    const std::string& given =
        c.message.templated.category.empty() ? c.message.templated.pinned_category : c.message.templated.category;
    if (given.empty()) {
        return {.free = false,
                .category = PriceCategory::marketing,
                .category_name = "MARKETING",
                .note = "category not checked (the template list was not read): priced as MARKETING"};
    }
    const std::string upper = util::ascii_upper(given);
    for (std::size_t i = 0; i < std::size(k_category_names); ++i) {
        if (upper == k_category_names[i]) {
            return {.free = false, .category = static_cast<PriceCategory>(i), .category_name = upper, .note = {}};
        }
    }
    return {.free = false,
            .category = PriceCategory::marketing,
            .category_name = "MARKETING",
            .note = fmt::format("the template's category {} has no price on the card: priced as MARKETING",
                                util::printable(given))};
}

double price_of(const RateCard& card, const PriceBasis& basis, std::string_view region) {
    if (basis.free) {
        return 0;
    }
    return card.prices(region).of(basis.category);
}

util::Result<RowPrices> RowPrices::create(const Campaign& c) {
    TRY_ASSIGN(auto phones, PhoneNormalizer::create(""));
    return RowPrices(c, std::move(phones));
}

RowPrices::RowPrices(const Campaign& c, PhoneNormalizer phones)
    : m_campaign(&c), m_phones(std::move(phones)), m_basis(price_basis(c)) {}

std::string RowPrices::country(std::string_view wa_id) const {
    if (m_basis.free) {
        return {};  // nothing to price: no country needed
    }
    return price_country(m_phones, wa_id);
}

double RowPrices::price_in(std::string_view country) const {
    const auto& card = m_campaign->pricing.card;
    if (m_basis.free || !card) {
        return 0;
    }
    return price_of(*card, m_basis, country == "*" ? "" : country);
}

double RowPrices::price(std::string_view wa_id) const {
    return m_basis.free || !m_campaign->pricing.card ? 0 : price_in(country(wa_id));
}

util::Result<CostTally> CostTally::create(const Campaign& c) {
    TRY_ASSIGN(auto prices, RowPrices::create(c));
    return CostTally(std::move(prices));
}

void CostTally::add(std::string_view wa_id) {
    ++m_messages;
    if (m_prices.basis().free) {
        return;  // nothing to price: no country needed
    }
    std::string region = m_prices.country(wa_id);
    if (auto found = m_counts.find(region); found != m_counts.end()) {
        ++found->second;
    } else {
        m_counts.emplace(std::move(region), 1);
    }
}

CostEstimate CostTally::estimate() const {
    const Pricing& pricing = m_prices.campaign().pricing;
    const PriceBasis& basis = m_prices.basis();
    CostEstimate out;
    out.currency = pricing.currency;
    out.messages = m_messages;
    out.category = basis.category_name;
    out.note = basis.note;
    if (pricing.card) {
        out.rate_card = pricing.card->path();
        if (pricing.card->effective()) {
            out.effective = day_text(*pricing.card->effective());
        }
    }
    if (basis.free || !pricing.card) {
        return out;
    }
    for (const auto& [country, messages] : m_counts) {
        const double price = m_prices.price_in(country);
        const double amount = static_cast<double>(messages) * price;
        out.by_country.push_back({country, messages, price, amount, country == "*" || pricing.card->lists(country)});
        out.total += amount;
    }
    std::stable_sort(out.by_country.begin(), out.by_country.end(),
                     [](const CountryCost& a, const CountryCost& b) { return a.messages > b.messages; });
    return out;
}

double rounded_amount(double amount) {
    return std::round(amount * 1e4) / 1e4;
}

std::string money_text(double amount) {
    const auto cents = static_cast<std::int64_t>(std::llround(amount * 100));
    const std::int64_t units = cents / 100;
    // -0.50: no whole units to carry the sign.
    return fmt::format("{}{}.{:02}", cents < 0 && units == 0 ? "-" : "", util::group_digits(units),
                       cents < 0 ? -(cents % 100) : cents % 100);
}

std::string price_text(double price) {
    std::string text = fmt::format("{:.6f}", price);
    while (text.back() == '0') {
        text.pop_back();
    }
    if (text.back() == '.') {
        text.pop_back();
    }
    return text;
}

std::string price_country(const PhoneNormalizer& phones, std::string_view wa_id) {
    std::string region = phones.region_of_number(wa_id);
    if (region.empty() || !known_country(region)) {
        return "*";  // a non-geographic code ("001"), or none
    }
    return region;
}

std::string describe(const CostEstimate& cost) {
    if (cost.category.empty()) {
        return fmt::format("cost: none: {}\n", cost.note);
    }
    const std::string n = util::group_digits(cost.messages);
    std::string text = fmt::format("cost: about {} {} for {} {} message{} (rate card {}{})\n", money_text(cost.total),
                                   cost.currency, n, cost.category, cost.messages == 1 ? "" : "s", cost.rate_card,
                                   cost.effective ? ", effective " + *cost.effective : std::string(", undated"));
    const std::size_t shown = std::min(cost.by_country.size(), k_cost_countries_shown);
    for (std::size_t i = 0; i < shown; ++i) {
        const auto& c = cost.by_country[i];
        text += fmt::format("  {} {} × {} = {}{}\n", c.country, util::group_digits(c.messages), price_text(c.price),
                            money_text(c.amount), c.listed ? "" : " (the * price)");
    }
    if (cost.by_country.size() > shown) {
        const auto [messages, amount] = total_from(cost.by_country, shown);
        text += fmt::format("  {} others: {} message{} = {}\n", cost.by_country.size() - shown,
                            util::group_digits(messages), messages == 1 ? "" : "s", money_text(amount));
    }
    if (!cost.note.empty()) {
        text += fmt::format("  {}\n", cost.note);
    }
    text += "  an upper bound: failed sends cost nothing; volume tiers and open service windows cost less\n";
    return text;
}

}  // namespace campaign
