#include "report/spend.hpp"

#include <algorithm>
#include <nlohmann/json.hpp>

#include "campaign/phone.hpp"
#include "campaign/pricing.hpp"
#include "util/utf8.hpp"

namespace report {

namespace {

constexpr std::string_view k_default_currency = "USD";
constexpr std::string_view k_unpriced_category = "MARKETING";  // as a row without a category is priced
constexpr std::string_view k_other_categories = "others";

// A card's currency as the report names it: USD when the record leaves it out.
std::string currency_of(const results::RateCardRef& card) {
    constexpr std::size_t k_currency_bytes = 16;  // "USD"; a longer one is a hand-edited log's
    return card.currency.empty() ? std::string(k_default_currency) : util::clip_utf8(card.currency, k_currency_bytes);
}

void add_to(std::map<std::string, SpendPart, std::less<>>& parts, std::string key, double price) {
    auto found = parts.find(key);
    if (found == parts.end()) {
        found = parts.emplace(key, SpendPart{key}).first;
    }
    ++found->second.messages;
    found->second.amount += price;
}

// The parts, most spent first (then most messages, then by key: the same order every time).
std::vector<SpendPart> ranked(std::map<std::string, SpendPart, std::less<>>& parts) {
    std::vector<SpendPart> out;
    out.reserve(parts.size());
    for (auto& [key, part] : parts) {
        out.push_back(std::move(part));
    }
    std::stable_sort(out.begin(), out.end(), [](const SpendPart& a, const SpendPart& b) {
        return a.amount != b.amount ? a.amount > b.amount : a.messages > b.messages;
    });
    return out;
}

}  // namespace

SpendTally::SpendTally() = default;
SpendTally::~SpendTally() = default;

void SpendTally::see(const results::CampaignHeader& header) {
    if (!header.rate_card) {
        return;  // a run from before prices: its sends carry none
    }
    std::string currency = currency_of(*header.rate_card);
    if (m_first_currency.empty()) {
        m_first_currency = currency;
    } else if (currency != m_first_currency) {
        m_spend.mixed_currencies = true;
    }
    m_spend.currency = std::move(currency);
}

std::optional<double> spent_price(const results::ResultRecord& result) {
    // The parser keeps only finite numbers; a negative one is no price either.
    if (result.status != results::Status::sent || !result.price || !(*result.price >= 0)) {
        return std::nullopt;
    }
    return result.price;
}

void SpendTally::see(const results::ResultRecord& result) {
    const auto spent = spent_price(result);
    if (!spent) {
        if (result.status == results::Status::sent && result.template_name) {
            ++m_spend.without_price;  // text and image messages are free: they carry none
        }
        return;
    }
    const double price = *spent;
    ++m_spend.messages;
    m_spend.total += price;
    std::string category = result.category && !result.category->empty()
                               ? util::clip_utf8(*result.category, Spend::k_category_bytes)
                               : std::string(k_unpriced_category);
    if (m_categories.size() >= Spend::k_max_categories && !m_categories.contains(category)) {
        category = k_other_categories;
    }
    add_to(m_categories, std::move(category), price);
    add_to(m_countries, country_of(result.wa_id), price);
}

std::string SpendTally::country_of(const std::string& wa_id) {
    if (!m_phones_tried) {
        m_phones_tried = true;
        auto phones = campaign::PhoneNormalizer::create("");
        if (phones) {
            m_phones = std::make_unique<campaign::PhoneNormalizer>(std::move(*phones));
        } else {
            m_spend.note = "no country could be told: " + phones.error().message;
        }
    }
    // No number is this long (a hand-edited log): not worth libphonenumber's time.
    constexpr std::size_t k_longest_number = 32;
    return m_phones && wa_id.size() <= k_longest_number ? campaign::price_country(*m_phones, wa_id) : std::string("*");
}

Spend SpendTally::finish(const results::CampaignHeader& first) {
    if (first.rate_card) {
        const std::string currency = currency_of(*first.rate_card);
        if (m_first_currency.empty()) {
            m_spend.currency = currency;  // no later run named a card: the first is the latest
        } else if (currency != m_first_currency) {
            m_spend.mixed_currencies = true;
        }
    }
    m_spend.by_category = ranked(m_categories);
    m_spend.by_country = ranked(m_countries);
    m_categories.clear();
    m_countries.clear();
    return std::move(m_spend);
}

nlohmann::ordered_json cost_json(const results::CostSummary& cost) {
    const auto or_null = [](const std::string& text) {
        return text.empty() ? nlohmann::ordered_json() : nlohmann::ordered_json(text);
    };
    auto by_country = nlohmann::ordered_json::object();
    for (const auto& c : cost.by_country) {
        by_country[c.country] = {{"messages", c.messages}, {"price", c.price}, {"amount", c.amount}};
    }
    return {{"currency", cost.currency},
            {"total", cost.total},
            {"messages", cost.messages},
            {"category", or_null(cost.category)},
            {"rate_card", or_null(cost.rate_card)},
            {"effective", or_null(cost.effective.value_or(""))},
            {"by_country", std::move(by_country)}};
}

}  // namespace report
