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
    util::Result<std::string> normalize(std::string_view raw) const;

    const std::string& default_country() const { return m_default_country; }

private:
    PhoneNormalizer(std::string default_country, std::string country_code)
        : m_default_country(std::move(default_country)), m_country_code(std::move(country_code)) {}

    std::string m_default_country;
    std::string m_country_code;  // the default country's calling code ("91"), or ""
};

}  // namespace campaign
