#include <doctest/doctest.h>

#include <cstdint>
#include <list>
#include <random>
#include <set>
#include <string>

#include <phonenumbers/phonenumberutil.h>

#include "campaign/phone.hpp"
#include "campaign/phone_rules.hpp"

using campaign::PhoneNormalizer;

namespace {

std::string wa_id(const std::string& country, const std::string& raw) {
    auto normalizer = PhoneNormalizer::create(country);
    REQUIRE(normalizer.ok());
    auto result = normalizer->normalize(raw);
    CAPTURE(raw);
    REQUIRE_MESSAGE(result.ok(), (result.ok() ? "" : result.error().message));
    return *result;
}

std::string error(const std::string& country, const std::string& raw) {
    auto normalizer = PhoneNormalizer::create(country);
    REQUIRE(normalizer.ok());
    auto result = normalizer->normalize(raw);
    REQUIRE_FALSE(result.ok());
    return result.error().message;
}

}  // namespace

TEST_SUITE("campaign::PhoneNormalizer") {
    TEST_CASE("India: national, international, 00 and trunk-prefixed forms") {
        CHECK(wa_id("IN", "98123 45678") == "919812345678");
        CHECK(wa_id("IN", "+91 98123-45678") == "919812345678");
        CHECK(wa_id("IN", "0091 (98123) 45678") == "919812345678");
        CHECK(wa_id("IN", "098123.45678") == "919812345678");
        CHECK(wa_id("IN", "919812345678") == "919812345678");
    }
    TEST_CASE("United States") {
        CHECK(wa_id("US", "(201) 555-0123") == "12015550123");
        CHECK(wa_id("US", "1-201-555-0123") == "12015550123");
        CHECK(wa_id("IN", "+1 201.555.0123") == "12015550123");
    }
    TEST_CASE("United Kingdom, with the (0) people write") {
        CHECK(wa_id("GB", "07400 123456") == "447400123456");
        CHECK(wa_id("IN", "+44 (0)7400 123456") == "447400123456");
        CHECK(wa_id("GB", "447400123456") == "447400123456");
        CHECK(wa_id("", "447400123456") == "447400123456");
    }
    TEST_CASE("Germany") {
        CHECK(wa_id("DE", "030 1234567") == "49301234567");
        CHECK(wa_id("DE", "0151 23456789") == "4915123456789");
        CHECK(wa_id("", "+49 151 23456789") == "4915123456789");
    }
    TEST_CASE("Brazil") {
        CHECK(wa_id("BR", "(11) 96123-4567") == "5511961234567");
        CHECK(wa_id("", "+55 11 96123 4567") == "5511961234567");
    }
    TEST_CASE("Nigeria") {
        CHECK(wa_id("NG", "0802 123 4567") == "2348021234567");
        CHECK(wa_id("US", "00234 802 123 4567") == "2348021234567");
    }
    TEST_CASE("Indonesia") {
        CHECK(wa_id("ID", "0812-3456-7890") == "6281234567890");
        CHECK(wa_id("", "+62 812 3456 7890") == "6281234567890");
    }
    TEST_CASE("United Arab Emirates") {
        CHECK(wa_id("AE", "050 123 4567") == "971501234567");
        CHECK(wa_id("IN", "+971 50 123 4567") == "971501234567");
    }
    TEST_CASE("Unicode spaces and dashes from spreadsheets are separators") {
        CHECK(wa_id("IN",
                    "98123\xC2\xA0"
                    "45678") == "919812345678");
        CHECK(wa_id("IN",
                    "98123\xE2\x80\x93"
                    "45678") == "919812345678");
    }
    TEST_CASE("a number that is too short is not valid for the default country") {
        CHECK(error("IN", "12345") == "\"12345\" is not a valid number for IN");
    }
    TEST_CASE("an invalid international number names its country") {
        CHECK(error("IN", "+91 12345") == "\"+91 12345\" is not a valid number for IN");
        CHECK(error("IN", "+44 1234") == "\"+44 1234\" is not a valid number for GB");
    }
    TEST_CASE("a bare number read with a country code must be in the default country") {
        // A local typo must not become a foreign number that would be messaged.
        CHECK(error("US", "3907018289") ==
              "\"3907018289\" is not a valid number for US (read with a country code it would "
              "be +3907018289 in IT: if that is meant, write it with \"+\")");
        CHECK(error("US", "4978454612")
                  .starts_with("\"4978454612\" is not a valid number for US "
                               "(read with a country code it would be +4978454612 in DE"));
        CHECK(error("IN", "447400123456").starts_with("\"447400123456\" is not a valid number for IN"));
        // The default country's own code, written without "+", still works; so do "+" and "00".
        CHECK(wa_id("IN", "919812345678") == "919812345678");
        CHECK(wa_id("US", "+39 070 182 89") == "3907018289");
        CHECK(wa_id("US", "0049 7845 4612") == "4978454612");
    }
    TEST_CASE("no random local-looking number becomes a foreign one") {
        std::mt19937 random(20261124);
        std::uniform_int_distribution<int> digit(0, 9);
        std::uniform_int_distribution<int> first(1, 9);  // "00" would mark an international number
        int accepted = 0;
        for (int i = 0; i < 20'000; ++i) {
            std::string digits(10, '0');
            for (char& c : digits) {
                c = static_cast<char>('0' + digit(random));
            }
            digits[0] = static_cast<char>('0' + first(random));
            auto result = PhoneNormalizer::create("US")->normalize(digits);
            if (result.ok()) {
                ++accepted;
                CHECK_MESSAGE(result->starts_with("1"), digits << " became +" << *result);
            }
        }
        CHECK(accepted > 0);
    }
    TEST_CASE("an unknown country code is an error") {
        CHECK(error("IN", "+999 1234567") == "\"+999 1234567\" does not start with a known country code");
    }
    TEST_CASE("what is not a phone number says so") {
        CHECK(error("IN", "abc") == "\"abc\" is not a phone number");
        CHECK(error("IN", "9.19812E+11") == "\"9.19812E+11\" is not a phone number");
        CHECK(error("IN", "98123 45678 ext 1") == "\"98123 45678 ext 1\" is not a phone number");
        CHECK(error("IN", "91+98123") == "\"91+98123\" is not a phone number");
        CHECK(error("IN", "+") == "\"+\" is not a phone number");
    }
    TEST_CASE("an empty or blank number is empty") {
        CHECK(error("IN", "") == "the phone number is empty");
        CHECK(error("IN", "  - ") == "the phone number is empty");
    }
    TEST_CASE("without a default country a local number is refused") {
        CHECK(error("", "98123 45678") ==
              "\"98123 45678\" is not a valid number with a country code (and no default "
              "country is set for local numbers)");
        CHECK(wa_id("", "919812345678") == "919812345678");
    }
    TEST_CASE("the default country is checked and case-insensitive") {
        auto bad = PhoneNormalizer::create("XX");
        REQUIRE_FALSE(bad.ok());
        CHECK(bad.error().message == "unknown country \"XX\" (expected an ISO 3166 code such as IN, US or GB)");
        auto lower = PhoneNormalizer::create("in");
        REQUIRE(lower.ok());
        CHECK(lower->default_country() == "IN");
    }
    TEST_CASE("long input is cut in messages") {
        const std::string raw(60, 'x');
        CHECK(error("IN", raw) == "\"" + std::string(40, 'x') + "…\" is not a phone number");
    }
    TEST_CASE("without a default country, bare digits are read as a wa_id, even an Indian number's") {
        CHECK(wa_id("", "6633774138") == "6633774138");  // +66 33774138, Thailand
        CHECK(wa_id("", "6581727372") == "6581727372");  // +65 8172 7372, Singapore
    }
    TEST_CASE("bare digits that are also a local number of the list's dominant country are refused, naming both") {
        auto normalizer = PhoneNormalizer::create("");
        REQUIRE(normalizer.ok());
        normalizer->set_dominant_country("IN");
        auto thai = normalizer->normalize("66337 74138");
        REQUIRE_FALSE(thai.ok());
        CHECK(thai.error().message ==
              "\"66337 74138\" reads two ways: +6633774138 in TH, or as a local number +916633774138 in IN (most "
              "of the list's numbers are in IN): set recipients.default_country, or write the number with +");
        auto korean = normalizer->normalize("8222544417");
        REQUIRE_FALSE(korean.ok());
        CHECK(korean.error().message.find("+8222544417 in KR, or as a local number +918222544417 in IN") !=
              std::string::npos);
        auto local_only = normalizer->normalize("098123 45678");
        REQUIRE_FALSE(local_only.ok());
        CHECK(local_only.error().message ==
              "\"098123 45678\" is not a valid number with a country code, but a local number: +919812345678 in IN "
              "(most of the list's numbers are in IN): set recipients.default_country, or write the number with +");
    }
    TEST_CASE("a dominant country leaves numbers with a country code as they are") {
        auto normalizer = PhoneNormalizer::create("");
        REQUIRE(normalizer.ok());
        normalizer->set_dominant_country("IN");
        CHECK(*normalizer->normalize("+66 33774138") == "6633774138");
        CHECK(*normalizer->normalize("0065 8172 7372") == "6581727372");
        CHECK(*normalizer->normalize("919812345678") == "919812345678");  // the same number either way
        CHECK(*normalizer->normalize("447400123456") == "447400123456");  // no Indian reading
    }
    TEST_CASE("a default country outranks the dominant one") {
        auto normalizer = PhoneNormalizer::create("IN");
        REQUIRE(normalizer.ok());
        normalizer->set_dominant_country("TH");
        CHECK(*normalizer->normalize("6633774138") == "916633774138");
    }
    TEST_CASE("country_of names the country of numbers that carry a country code") {
        auto normalizer = PhoneNormalizer::create("");
        REQUIRE(normalizer.ok());
        CHECK(normalizer->country_of("+91 98123 45678") == "IN");
        CHECK(normalizer->country_of("0091 98123 45678") == "IN");
        CHECK(normalizer->country_of("919812345678") == "IN");
        CHECK(normalizer->country_of("+44 7400 123456") == "GB");
        CHECK(normalizer->country_of("098123 45678").empty());
        CHECK(normalizer->country_of("abc").empty());
    }
}

// PhoneRules replays libphonenumber's parsing and validation without ICU; these cases hold
// it to libphonenumber's own answers.
namespace {

namespace pn = i18n::phonenumbers;

std::string library_answer(const std::string& text, const std::string& region) {
    const auto& util = *pn::PhoneNumberUtil::GetInstance();
    pn::PhoneNumber number;
    if (util.Parse(text, region, &number) != pn::PhoneNumberUtil::NO_PARSING_ERROR || !util.IsValidNumber(number)) {
        return {};
    }
    std::string e164;
    util.Format(number, pn::PhoneNumberUtil::E164, &e164);
    return e164.substr(1);
}

std::string rules_answer(const campaign::PhoneRules::Answer& answer) {
    CHECK(answer.verdict != campaign::PhoneRules::Verdict::undecided);
    return answer.wa_id;
}

void compare_national(const std::string& digits, const std::string& region) {
    CAPTURE(digits);
    CAPTURE(region);
    CHECK(rules_answer(campaign::PhoneRules::shared()->national(digits, region)) == library_answer(digits, region));
}

void compare_international(const std::string& digits) {
    CAPTURE(digits);
    CHECK(rules_answer(campaign::PhoneRules::shared()->international(digits)) == library_answer("+" + digits, "ZZ"));
}

std::string digits_only(const std::string& s) {
    std::string out;
    for (const char c : s) {
        if (c >= '0' && c <= '9') {
            out += c;
        }
    }
    return out;
}

}  // namespace

TEST_SUITE("campaign::PhoneRules") {
    TEST_CASE("loads libphonenumber's metadata") {
        REQUIRE(campaign::PhoneRules::shared() != nullptr);
        CHECK(campaign::PhoneRules::shared()->region_of("919812345678") == "IN");
        CHECK(campaign::PhoneRules::shared()->region_of("80012345678") == "+800");
        CHECK(campaign::PhoneRules::shared()->region_of("999") == "");
    }
    TEST_CASE("agrees with libphonenumber on every region's example numbers and variants") {
        REQUIRE(PhoneNormalizer::create("IN").ok());  // silences libphonenumber's log
        REQUIRE(campaign::PhoneRules::shared() != nullptr);
        const auto& util = *pn::PhoneNumberUtil::GetInstance();
        std::set<std::string> regions;
        util.GetSupportedRegions(&regions);
        const pn::PhoneNumberUtil::PhoneNumberType types[] = {
            pn::PhoneNumberUtil::FIXED_LINE,   pn::PhoneNumberUtil::MOBILE, pn::PhoneNumberUtil::TOLL_FREE,
            pn::PhoneNumberUtil::PREMIUM_RATE, pn::PhoneNumberUtil::VOIP,   pn::PhoneNumberUtil::UAN};
        for (const auto& region : regions) {
            for (const auto type : types) {
                pn::PhoneNumber example;
                if (!util.GetExampleNumberForType(region, type, &example)) {
                    continue;
                }
                std::string nsn;
                util.GetNationalSignificantNumber(example, &nsn);
                std::string national;
                util.Format(example, pn::PhoneNumberUtil::NATIONAL, &national);
                const std::string cc = std::to_string(example.country_code());
                for (const auto& v : {nsn, digits_only(national), "0" + nsn, "1" + nsn, cc + nsn, cc + "0" + nsn,
                                      nsn.substr(0, nsn.size() - 1), nsn + "5"}) {
                    compare_national(v, region);
                }
                for (const auto& v : {cc + nsn, cc + "0" + nsn, cc + digits_only(national),
                                      cc + nsn.substr(0, nsn.size() - 1), cc + nsn + "1"}) {
                    compare_international(v);
                }
            }
        }
        std::set<int> codes;
        util.GetSupportedGlobalNetworkCallingCodes(&codes);
        for (const int code : codes) {
            pn::PhoneNumber example;
            REQUIRE(util.GetExampleNumberForNonGeoEntity(code, &example));
            std::string nsn;
            util.GetNationalSignificantNumber(example, &nsn);
            compare_international(std::to_string(code) + nsn);
            compare_international(std::to_string(code) + nsn + "0");
        }
    }
    TEST_CASE("names the region of every region's example numbers as libphonenumber does (a zone's country)") {
        REQUIRE(PhoneNormalizer::create("IN").ok());  // silences libphonenumber's log
        REQUIRE(campaign::PhoneRules::shared() != nullptr);
        const auto& util = *pn::PhoneNumberUtil::GetInstance();
        std::set<std::string> regions;
        util.GetSupportedRegions(&regions);
        std::size_t shared_codes = 0;
        for (const auto& region : regions) {
            for (const auto type : {pn::PhoneNumberUtil::FIXED_LINE, pn::PhoneNumberUtil::MOBILE}) {
                pn::PhoneNumber example;
                if (!util.GetExampleNumberForType(region, type, &example)) {
                    continue;
                }
                std::string nsn;
                util.GetNationalSignificantNumber(example, &nsn);
                std::string expected;
                util.GetRegionCodeForNumber(example, &expected);
                const std::string wa_id = std::to_string(example.country_code()) + nsn;
                CAPTURE(wa_id);
                CHECK(campaign::PhoneRules::shared()->region_of_number(wa_id) == expected);
                std::list<std::string> sharing;
                util.GetRegionCodesForCountryCallingCode(example.country_code(), &sharing);
                shared_codes += sharing.size() > 1 ? 1 : 0;
            }
        }
        CHECK(shared_codes > 20);  // +1, +7, +44, +590 … were among them
        auto normalizer = PhoneNormalizer::create("");
        REQUIRE(normalizer.ok());
        CHECK(normalizer->region_of_number("18765550123") == "JM");
        CHECK(normalizer->region_of_number("919812345678") == "IN");
        CHECK(normalizer->region_of_number("80012345678") == "001");
        CHECK(normalizer->region_of_number("999").empty());
    }
    TEST_CASE("agrees with libphonenumber on random digits") {
        REQUIRE(campaign::PhoneRules::shared() != nullptr);
        std::uint64_t state = 0x9E3779B97F4A7C15ULL;
        const auto random = [&state](std::uint64_t n) {
            state = state * 6364136223846793005ULL + 1442695040888963407ULL;
            return (state >> 33) % n;
        };
        const char* regions[] = {"IN", "US", "CA", "GB", "DE", "BR", "AR", "MX", "IT", "NG",
                                 "ID", "AE", "RU", "CN", "JP", "AU", "FR", "KZ", "SM", "GA"};
        for (const char* region : regions) {
            for (int i = 0; i < 250; ++i) {
                std::string digits;
                const auto length = 2 + random(14);
                for (std::uint64_t j = 0; j < length; ++j) {
                    digits += static_cast<char>('0' + random(10));
                }
                compare_national(digits, region);
                compare_international(digits);
            }
        }
    }
}
