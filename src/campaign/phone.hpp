#pragma once
// Phone numbers as people write them → the WhatsApp `wa_id` (country code first, digits
// only), validated with libphonenumber.

#include <string>
#include <string_view>

#include "util/result.hpp"

namespace campaign {

class PhoneNormalizer {
public:
    // Returns a normaliser for numbers written without a country code in `default_country`
    // (an ISO 3166 region such as "IN"; "" means every number must carry its country code).
    // Fails naming `default_country` when libphonenumber does not know it, and when
    // libphonenumber's metadata cannot be read (no number could be checked).
    static util::Result<PhoneNormalizer> create(const std::string& default_country);

    // Returns the wa_id of `raw` ("+91 98123-45678" → "919812345678"). Spaces, dashes,
    // dots, brackets and slashes are dropped; a leading "+" or "00" marks an international
    // number; any other number is read as a national number of the default country, and
    // else as digits starting with a country code, accepted only when that code is the
    // default country's (a local typo must not become a foreign number). Without a default
    // country such digits must start with a country code. Fails with `"abc" is not a phone
    // number` or `"12345" is not a valid number for IN`.
    // Without a default country but with a dominant one (set_dominant_country), digits that
    // are also a valid national number of the dominant country, giving another wa_id, fail
    // naming both readings and the fix.
    util::Result<std::string> normalize(std::string_view raw) const;

    // Returns the region ("IN", "+800" for a non-geographic code) of `raw` when it carries a
    // country code: written with "+" or "00", or digits valid as such; "" otherwise.
    // What the dominant country of a list is counted from.
    std::string country_of(std::string_view raw) const;

    // Returns the region ("US", "CA", "JM"; "001" for a non-geographic code) of `wa_id`, a
    // number normalize() returned, as libphonenumber's GetRegionCodeForNumber says: among the
    // regions sharing a country code, the one whose numbers it belongs to; "" when none.
    std::string region_of_number(std::string_view wa_id) const;

    // Sets the country most of the list's numbers belong to ("": none), used only without a
    // default country.
    void set_dominant_country(std::string region) { m_dominant_country = std::move(region); }

    const std::string& default_country() const { return m_default_country; }
    // The default country's calling code ("91"), or "" without one.
    const std::string& country_code() const { return m_country_code; }

private:
    PhoneNormalizer(std::string default_country, std::string country_code)
        : m_default_country(std::move(default_country)), m_country_code(std::move(country_code)) {}

    // The reading of bare `digits` (international reading `wa_id`, "" when invalid) without a
    // default country.
    util::Result<std::string> international_or_local(std::string_view raw, const std::string& digits,
                                                     const std::string& wa_id) const;

    std::string m_default_country;
    std::string m_country_code;  // the default country's calling code ("91"), or ""
    std::string m_dominant_country;
};

}  // namespace campaign
