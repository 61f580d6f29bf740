#pragma once
// What a campaign's rows would cost: a row's price (the card's price for its number's country
// and the template's category), and the estimate of a plan, counted country by country as the
// rows are read (docs/pricing.md). Memory holds one count per country, whatever the rows.

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "campaign/campaign.hpp"
#include "campaign/phone.hpp"
#include "campaign/rate_card.hpp"

namespace campaign {

// What a campaign's rows are priced at.
struct PriceBasis {
    bool free = false;  // a text or image message: free inside the customer-service window, the only time it can go
    PriceCategory category = PriceCategory::marketing;
    std::string category_name;  // as the estimate names it: "MARKETING", "UTILITY", "AUTHENTICATION"; "" when free
    std::string note;           // what to say of the category; empty: nothing
};

// Returns what the rows of `c` are priced at: free for text and image messages; for a template,
// the category the template list gave it (message.templated.category), else MARKETING, saying
// that the category was not checked, or that the card has no price for it.
PriceBasis price_basis(const Campaign& c);

// Returns the price of one row whose number's region is `region` ("IN"; "" or a non-geographic
// "001" take the card's `*` row): 0 when `basis` is free.
double price_of(const RateCard& card, const PriceBasis& basis, std::string_view region);

// Returns the country a message to `wa_id` (a number normalize() returned) is priced by: its
// region as `phones` tells it ("IN"), or "*" for a number of no country (a non-geographic code
// such as +800, or a number libphonenumber cannot place).
std::string price_country(const PhoneNormalizer& phones, std::string_view wa_id);

// The price of each row of a campaign, by its number's country.
class RowPrices {
public:
    // For campaign `c`, whose card (c.pricing.card) was read when it sends templates. Fails when
    // libphonenumber's metadata cannot be read.
    static util::Result<RowPrices> create(const Campaign& c);

    // Returns the country a number is priced by: its region ("IN"), or "*" for numbers of no
    // country (a non-geographic code); "" when the campaign's messages are free (not looked up).
    std::string country(std::string_view wa_id) const;

    // Returns the price of one message to `wa_id` (0 when free, or when no card was read).
    double price(std::string_view wa_id) const;

    // Returns the price of one message to a number of `country` (as country() names it).
    double price_in(std::string_view country) const;

    const PriceBasis& basis() const { return m_basis; }
    const Campaign& campaign() const { return *m_campaign; }

private:
    RowPrices(const Campaign& c, PhoneNormalizer phones);

    const Campaign* m_campaign;
    PhoneNormalizer m_phones;
    PriceBasis m_basis;
};

// One country's part of an estimate.
struct CountryCost {
    std::string country;  // ISO 3166-1 alpha-2; "*" for numbers of no country
    std::int64_t messages = 0;
    double price = 0;    // of one message
    double amount = 0;   // messages × price
    bool listed = true;  // the card has a row of the country's own (else `price` is the `*` row's)
};

// The estimated cost of the rows that would be sent.
struct CostEstimate {
    std::string currency;  // pricing.currency
    double total = 0;
    std::int64_t messages = 0;
    std::string category;                  // PriceBasis::category_name; "" for text and image messages
    std::string rate_card;                 // the card's path; "" when none was read (text and image messages)
    std::optional<std::string> effective;  // the card's date, YYYY-MM-DD
    std::vector<CountryCost> by_country;   // most messages first, then by country code
    std::string note;                      // PriceBasis::note
};

// The estimate of a campaign, built a row at a time.
class CostTally {
public:
    // For campaign `c`, whose card (c.pricing.card) was read when it sends templates. Fails when
    // libphonenumber's metadata cannot be read.
    static util::Result<CostTally> create(const Campaign& c);

    // Counts one row to send, to the number `wa_id` (as normalised).
    void add(std::string_view wa_id);

    // The estimate of the rows added so far.
    CostEstimate estimate() const;

private:
    explicit CostTally(RowPrices prices) : m_prices(std::move(prices)) {}

    RowPrices m_prices;
    std::map<std::string, std::int64_t, std::less<>> m_counts;  // by country: at most ~250
    std::int64_t m_messages = 0;
};

// Returns `amount` rounded to 4 decimals, as plan.cost keeps amounts.
double rounded_amount(double amount);

// Returns an amount of money for people: two decimals, thousands grouped ("1,234.50").
std::string money_text(double amount);

// Returns a price as a card writes it: at most 6 decimals, trailing zeros dropped ("0.0107").
std::string price_text(double price);

// The most countries describe() names before "N others".
inline constexpr std::size_t k_cost_countries_shown = 5;

// The messages and the amount of `parts[from…]` together: the "N others" line after the parts
// shown. `Part` has `messages` and `amount` (CountryCost, a report's spend by country).
template <typename Part>
std::pair<std::int64_t, double> total_from(const std::vector<Part>& parts, std::size_t from) {
    std::pair<std::int64_t, double> total{0, 0.0};
    for (std::size_t i = from; i < parts.size(); ++i) {
        total.first += parts[i].messages;
        total.second += parts[i].amount;
    }
    return total;
}

// Returns the estimate for people, lines starting with "cost: " or two spaces:
// "cost: about 194.74 USD for 18,200 MARKETING messages (rate card …, effective 2026-10-01)", then
// "  IN 18,200 × 0.0107 = 194.74" for the k_cost_countries_shown countries with the most
// messages (" (the * price)" after a country the card does not list) and "  N others: …".
std::string describe(const CostEstimate& cost);

}  // namespace campaign
