#pragma once
// The rate card: what Meta charges for one delivered template message, by the recipient's
// country and the template's category, read once from a CSV (docs/pricing.md).

#include <chrono>
#include <cstddef>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "util/clock.hpp"
#include "util/result.hpp"

namespace campaign {

// The categories a card prices.
enum class PriceCategory { marketing, utility, authentication };

// One row of a card: the prices of one country (or of every country not listed, `*`).
struct CountryPrices {
    double marketing = 0;
    double utility = 0;
    double authentication = 0;
    std::optional<double> authentication_international;

    // Returns the price of `category`: for authentication the higher of `authentication` and
    // `authentication_international` when the row has both (who pays which is Meta's to decide).
    double of(PriceCategory category) const;
};

class RateCard {
public:
    // Reads the card at `path`. Fails with every problem found, one a line, each as
    // "PATH:LINE: …" (a missing `*` row or column names the header's line): a file that cannot
    // be read, a header without country, marketing, utility or authentication, an unknown or
    // repeated column, a row with another number of fields, an unknown or repeated country, a
    // price that is not a non-negative decimal, a bad `# effective:` date.
    static util::Result<RateCard> read(const std::string& path);

    // The same for the card's `text`, named `path` in messages.
    static util::Result<RateCard> parse(std::string_view text, const std::string& path);

    // Returns the prices of `country` (an ISO 3166-1 alpha-2 code, upper case): its own row,
    // else the `*` row.
    const CountryPrices& prices(std::string_view country) const;

    // Whether `country` has a row of its own.
    bool lists(std::string_view country) const;

    const std::string& path() const { return m_path; }
    // The day of the card's `# effective: YYYY-MM-DD` comment; nullopt: the card has none.
    const std::optional<std::chrono::sys_days>& effective() const { return m_effective; }
    // Countries with a row of their own.
    std::size_t countries() const { return m_countries.size(); }

private:
    std::string m_path;
    std::optional<std::chrono::sys_days> m_effective;
    std::map<std::string, CountryPrices, std::less<>> m_countries;
    CountryPrices m_rest;  // the `*` row
};

// Returns whether `code` is an ISO 3166-1 alpha-2 country code (upper case), or XK (Kosovo,
// user-assigned but used by libphonenumber and Meta).
bool known_country(std::string_view code);

// Returns "YYYY-MM-DD".
std::string day_text(std::chrono::sys_days day);

// Returns where the card installed with wacamp is: `share/wacamp/rate-card.csv` under the prefix
// of the running binary (/proc/self/exe's ../share/wacamp/), else the source tree's card (a build
// that is not installed), the first that exists; nullopt when neither does. `tried` receives the
// paths looked at, for the message.
std::optional<std::string> default_rate_card_path(std::vector<std::string>& tried);

// The age past which a card is said to be old.
inline constexpr std::chrono::days k_stale_card_age{180};

// Returns the warning to give once when `card` is dated more than k_stale_card_age before `now`
// (or not dated at all), naming its date and `key` ("pricing.rate_card") to set; nothing when it
// is recent.
std::optional<std::string> stale_card_warning(const RateCard& card, util::TimePoint now, std::string_view key);

}  // namespace campaign
