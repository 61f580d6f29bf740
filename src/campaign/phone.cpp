#include "campaign/phone.hpp"

#include <fmt/format.h>
#include <mutex>
#include <optional>

#include <phonenumbers/logger.h>
#include <phonenumbers/phonenumber.pb.h>
#include <phonenumbers/phonenumberutil.h>

#include "campaign/phone_rules.hpp"
#include "util/text.hpp"
#include "util/utf8.hpp"

namespace campaign {

namespace {

namespace pn = i18n::phonenumbers;

// libphonenumber is a process-wide singleton that logs to stderr unless given a logger;
// core code never prints, so it gets a silent one, once.
const pn::PhoneNumberUtil& phone_util() {
    static std::once_flag silenced;
    std::call_once(silenced, [] {
        pn::PhoneNumberUtil::GetInstance()->SetLogger(new pn::NullLogger());  // takes ownership
    });
    return *pn::PhoneNumberUtil::GetInstance();
}

// The input as it goes into an error message: at most 40 bytes, cut at a character boundary.
std::string quoted(std::string_view raw) {
    constexpr std::size_t k_max = 40;
    return "\"" + util::clip_utf8(raw, k_max) + "\"";
}

// Length of the separator that starts `s` (ASCII or a few Unicode spaces and dashes that
// spreadsheets like to insert), or 0.
std::size_t separator_length(std::string_view s) {
    switch (s[0]) {
    case ' ':
    case '\t':
    case '-':
    case '.':
    case '(':
    case ')':
    case '[':
    case ']':
    case '/': return 1;
    default: break;
    }
    if (s.substr(0, 2) == "\xC2\xA0") {
        return 2;  // no-break space
    }
    if (s.size() >= 3 && s[0] == '\xE2') {
        const auto b1 = static_cast<unsigned char>(s[1]);
        const auto b2 = static_cast<unsigned char>(s[2]);
        const bool general_punctuation = b1 == 0x80 && ((b2 >= 0x80 && b2 <= 0x95) || b2 == 0xAF);
        const bool minus_sign = b1 == 0x88 && b2 == 0x92;
        if (general_punctuation || minus_sign) {
            return 3;  // U+2000–U+2015 spaces and dashes, U+202F, U+2212
        }
    }
    return 0;
}

struct Digits {
    std::string digits;
    bool international = false;  // written with "+" or "00"
};

// Keeps the digits of `raw`; fails when anything but digits, separators and one leading
// "+" is in it.
util::Result<Digits> extract_digits(std::string_view raw) {
    Digits out;
    bool plus = false;
    for (std::size_t i = 0; i < raw.size();) {
        const char c = raw[i];
        if (c >= '0' && c <= '9') {
            out.digits += c;
            ++i;
        } else if (c == '+' && !plus && out.digits.empty()) {
            plus = true;
            ++i;
        } else if (const std::size_t n = separator_length(raw.substr(i)); n > 0) {
            i += n;
        } else {
            return util::fail(quoted(raw) + " is not a phone number");
        }
    }
    if (out.digits.empty()) {
        if (plus) {
            return util::fail(quoted(raw) + " is not a phone number");
        }
        return util::fail("the phone number is empty");
    }
    if (plus) {
        out.international = true;
    } else if (out.digits.size() > 2 && out.digits.compare(0, 2, "00") == 0) {
        out.international = true;
        out.digits.erase(0, 2);
    }
    return out;
}

// Returns the wa_id of `digits` read in `region` ("ZZ": it starts with a country code),
// or "" when that does not make a valid number. PhoneRules answers almost always; it
// replays libphonenumber's own logic, so libphonenumber is only asked when it cannot.
std::string try_parse(const std::string& digits, const std::string& region) {
    if (const PhoneRules* rules = PhoneRules::shared()) {
        auto answer = region == "ZZ" ? rules->international(digits) : rules->national(digits, region);
        if (answer.verdict != PhoneRules::Verdict::undecided) {
            return std::move(answer.wa_id);
        }
    }
    const auto& util = phone_util();
    pn::PhoneNumber number;
    const std::string text = region == "ZZ" ? "+" + digits : digits;
    if (util.Parse(text, region, &number) != pn::PhoneNumberUtil::NO_PARSING_ERROR || !util.IsValidNumber(number)) {
        return {};
    }
    std::string e164;
    util.Format(number, pn::PhoneNumberUtil::E164, &e164);
    return e164.substr(1);  // drop the "+"
}

// The region a number starting with `digits` belongs to ("+800" for a non-geographic
// code), or "" when no country code fits.
std::string region_of(const std::string& digits) {
    if (const PhoneRules* rules = PhoneRules::shared()) {
        return rules->region_of(digits);
    }
    const auto& util = phone_util();
    pn::PhoneNumber number;
    const auto error = util.Parse("+" + digits, "ZZ", &number);
    if (error == pn::PhoneNumberUtil::INVALID_COUNTRY_CODE_ERROR || !number.has_country_code()) {
        return {};
    }
    std::string region;
    util.GetRegionCodeForCountryCode(number.country_code(), &region);
    return region == "001" ? "+" + std::to_string(number.country_code()) : region;
}

}  // namespace

util::Result<PhoneNormalizer> PhoneNormalizer::create(const std::string& default_country) {
    const std::string region = util::ascii_upper(default_country);
    if (PhoneRules::shared() == nullptr) {
        // Every number would then be judged by a slower path that was never meant to carry a
        // campaign: refuse loudly rather than answer differently.
        return util::fail(
            "libphonenumber's metadata could not be read, so no phone number can be checked "
            "(is libphonenumber8 installed whole?)");
    }
    const int code = region.empty() ? 0 : phone_util().GetCountryCodeForRegion(region);
    if (!region.empty() && code == 0) {
        return util::fail("unknown country \"" + default_country +
                          "\" (expected an ISO 3166 code such as IN, US or GB)");
    }
    return PhoneNormalizer(std::move(region), code == 0 ? std::string() : std::to_string(code));
}

util::Result<std::string> PhoneNormalizer::international_or_local(std::string_view raw, const std::string& digits,
                                                                  const std::string& wa_id) const {
    // Bare digits are the service's own wa_id form, but a local number of the country most of
    // the list is in ("6633774138" in a list of Indian numbers) must not go abroad.
    const std::string local = m_dominant_country.empty() ? std::string() : try_parse(digits, m_dominant_country);
    const std::string fix = "set recipients.default_country, or write the number with +";
    if (!local.empty() && local != wa_id) {
        const std::string as_local = fmt::format("+{} in {} (most of the list's numbers are in {})", local,
                                                 m_dominant_country, m_dominant_country);
        if (wa_id.empty()) {
            return util::fail(fmt::format("{} is not a valid number with a country code, but a local number: {}: {}",
                                          quoted(raw), as_local, fix));
        }
        return util::fail(fmt::format("{} reads two ways: +{} in {}, or as a local number {}: {}", quoted(raw), wa_id,
                                      region_of(wa_id), as_local, fix));
    }
    if (!wa_id.empty()) {
        return wa_id;
    }
    return util::fail(quoted(raw) + " is not a valid number with a country code " +
                      "(and no default country is set for local numbers)");
}

std::string PhoneNormalizer::country_of(std::string_view raw) const {
    auto d = extract_digits(raw);
    if (!d || d->digits.size() > 17) {
        return {};
    }
    const std::string wa_id = try_parse(d->digits, "ZZ");
    return wa_id.empty() ? std::string() : region_of(wa_id);
}

std::string PhoneNormalizer::region_of_number(std::string_view wa_id) const {
    std::optional<std::string> region;
    if (const PhoneRules* rules = PhoneRules::shared()) {
        region = rules->region_of_number(wa_id);
    }
    if (!region) {
        const auto& util = phone_util();
        pn::PhoneNumber number;
        if (util.Parse("+" + std::string(wa_id), "ZZ", &number) != pn::PhoneNumberUtil::NO_PARSING_ERROR) {
            return {};
        }
        region.emplace();
        util.GetRegionCodeForNumber(number, &*region);
    }
    return *region == "ZZ" ? std::string() : std::move(*region);
}

util::Result<std::string> PhoneNormalizer::normalize(std::string_view raw) const {
    TRY_ASSIGN(const Digits d, extract_digits(raw));
    if (d.digits.size() > 17) {
        return util::fail(quoted(raw) + " is too long to be a phone number");
    }
    if (d.international) {
        if (auto wa_id = try_parse(d.digits, "ZZ"); !wa_id.empty()) {
            return wa_id;
        }
        const std::string region = region_of(d.digits);
        if (region.empty()) {
            return util::fail(quoted(raw) + " does not start with a known country code");
        }
        return util::fail(quoted(raw) + " is not a valid number for " + region);
    }
    if (!m_default_country.empty()) {
        if (auto wa_id = try_parse(d.digits, m_default_country); !wa_id.empty()) {
            return wa_id;
        }
    }
    // Digits that already start with a country code, written without the "+". With a default
    // country only its own code is accepted this way ("919812345678" with IN): a mistyped local
    // number must not turn into a valid number of another country ("3907018289" with US would
    // be Italy's +39).
    const std::string wa_id = try_parse(d.digits, "ZZ");
    if (m_default_country.empty()) {
        return international_or_local(raw, d.digits, wa_id);
    }
    if (!wa_id.empty() && wa_id.starts_with(m_country_code)) {
        return wa_id;
    }
    if (!wa_id.empty()) {
        const std::string region = region_of(wa_id);
        return util::fail(quoted(raw) + " is not a valid number for " + m_default_country +
                          " (read with a country code it would be +" + wa_id + " in " + region +
                          ": if that is meant, write it with \"+\")");
    }
    return util::fail(quoted(raw) + " is not a valid number for " + m_default_country);
}

}  // namespace campaign
