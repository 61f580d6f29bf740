#pragma once
// What a campaign cost, as a report shows it (docs/pricing.md "What reports show"): the spend of
// the sent rows, the sum of the `price` each sent result carries, by category and by country,
// counted as the replay reads the log; and a dry run's estimate as JSON. Memory holds one count
// per category and per country, whatever the rows. Each format shows them (text.cpp, json.cpp,
// html_sections.cpp, xlsx.cpp).

#include <cstdint>
#include <map>
#include <memory>
#include <nlohmann/json_fwd.hpp>
#include <optional>
#include <string>
#include <vector>

#include "results/records.hpp"

namespace campaign {
class PhoneNormalizer;
}  // namespace campaign

namespace report {

// The sent messages of one category or one country, and what they cost.
struct SpendPart {
    std::string key;  // "MARKETING", "IN"; as the log has it (not yet made printable)
    std::int64_t messages = 0;
    double amount = 0;
};

// The estimated spend of the sent rows.
struct Spend {
    static constexpr std::size_t k_max_categories = 16;  // further ones count as "others"
    static constexpr std::size_t k_category_bytes = 64;  // a longer category is clipped

    std::string currency = "USD";   // the latest run's card's (its `campaign` record), else USD
    bool mixed_currencies = false;  // runs named cards of different currencies: the total adds them as they are
    double total = 0;
    std::int64_t messages = 0;           // sent results with a price
    std::int64_t without_price = 0;      // sent template results without one (sent before prices, recovered)
    std::vector<SpendPart> by_category;  // the result's `category`, else MARKETING; most spent first
    std::vector<SpendPart> by_country;   // "*": numbers of no country; most spent first
    std::string note;                    // why every country is "*" (libphonenumber unusable); empty: nothing
};

// Returns what `result` spent: its price when it is `sent` and carries a price that is a
// non-negative number; none otherwise (failed sends cost nothing, whatever their record says).
std::optional<double> spent_price(const results::ResultRecord& result);

// Counts the spend of a log, a record at a time.
class SpendTally {
public:
    SpendTally();
    ~SpendTally();
    SpendTally(const SpendTally&) = delete;
    SpendTally& operator=(const SpendTally&) = delete;

    // A `campaign` record after the log's first (a later run's): the currency of the card it names.
    void see(const results::CampaignHeader& header);
    // A result: counted when it is `sent` and carries a price that is a non-negative number.
    void see(const results::ResultRecord& result);

    // The spend of the records seen, most spent first, the log's first record being `first`.
    Spend finish(const results::CampaignHeader& first);

private:
    std::string country_of(const std::string& wa_id);

    Spend m_spend;
    std::string m_first_currency;  // of the first card a later run named; "" before one
    std::unique_ptr<campaign::PhoneNormalizer> m_phones;
    bool m_phones_tried = false;
    std::map<std::string, SpendPart, std::less<>> m_categories;  // at most k_max_categories + 1
    std::map<std::string, SpendPart, std::less<>> m_countries;   // at most the ISO countries and "*"
};

// Returns a dry run's estimate (`plan.cost` of its `end` record) as the dry run's JSON has it:
// currency, total, messages, category, rate_card, effective (null when none), and by_country
// keyed by country ({messages, price, amount}), most messages first.
nlohmann::ordered_json cost_json(const results::CostSummary& cost);

}  // namespace report
