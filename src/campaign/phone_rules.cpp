// Each step follows the function of libphonenumber's phonenumberutil.cc named beside it,
// for input that is only ASCII digits; the unit tests compare the two on every region.

#include "campaign/phone_rules.hpp"

#include <algorithm>

namespace campaign {

namespace {

constexpr std::size_t k_min_nsn = 2;   // kMinLengthForNsn
constexpr std::size_t k_max_nsn = 17;  // kMaxLengthForNsn
constexpr std::size_t k_max_country_code = 3;

}  // namespace

// Set when a pattern ran out of steps: the answer is then undecided, not invalid.
struct PhoneRules::Ctx {
    bool undecided = false;

    bool yes(DigitPattern::Outcome outcome) {
        undecided = undecided || outcome == DigitPattern::Outcome::too_complex;
        return outcome == DigitPattern::Outcome::yes;
    }
    // IsMatch / RegexBasedMatcher::MatchNationalNumber: the pattern alone, whole input.
    bool matches(std::string_view number, const Desc& desc) {
        return desc.pattern && yes(desc.pattern->full_match(number));
    }
    // IsNumberMatchingDesc: possible lengths first.
    bool matches_desc(std::string_view number, const Desc& desc) {
        if (!desc.lengths.empty() && std::find(desc.lengths.begin(), desc.lengths.end(),
                                               static_cast<int>(number.size())) == desc.lengths.end()) {
            return false;
        }
        return matches(number, desc);
    }
};

PhoneRules::PhoneRules(std::vector<Region> regions) : m_regions(std::move(regions)) {
    for (const Region& region : m_regions) {
        if (region.id != "001") {
            m_by_id.emplace(region.id, &region);
        }
        auto& list = m_by_code[region.country_code];
        if (region.main_country) {
            list.insert(list.begin(), &region);
        } else {
            list.push_back(&region);
        }
    }
}

PhoneRules::Answer PhoneRules::international(std::string_view digits) const {
    // IsViablePhoneNumber wants three digits after a "+".
    if (digits.size() < 3) {
        return {};
    }
    std::string number(digits);
    const int country_code = extract_country_code(number);
    if (country_code == 0) {
        return {};
    }
    Ctx ctx;
    Answer answer = finish(country_code, metadata_for(country_code), std::move(number), ctx);
    return ctx.undecided ? Answer{Verdict::undecided, {}} : answer;
}

PhoneRules::Answer PhoneRules::national(std::string_view digits, const std::string& region_id) const {
    const auto it = m_by_id.find(region_id);
    if (it == m_by_id.end()) {
        return {Verdict::undecided, {}};
    }
    const Region& region = *it->second;
    if (digits.size() < k_min_nsn) {
        return {};
    }
    Ctx ctx;
    std::string number(digits);
    int country_code = 0;
    // MaybeExtractCountryCode → ParsePrefixAsIdd: the region's international prefix,
    // unless a 0 follows it (no country code starts with 0).
    bool after_idd = false;
    if (region.idd) {
        const auto idd = region.idd->match_prefix(number);
        if (ctx.yes(idd.outcome) && (idd.end == number.size() || number[idd.end] != '0')) {
            number.erase(0, idd.end);
            after_idd = true;
        }
    }
    if (after_idd) {
        if (number.size() <= k_min_nsn) {
            return ctx.undecided ? Answer{Verdict::undecided, {}} : Answer{};
        }
        country_code = extract_country_code(number);
        if (country_code == 0) {
            return ctx.undecided ? Answer{Verdict::undecided, {}} : Answer{};
        }
    } else {
        // The region's own country code written without "+": kept only when that makes
        // a better number.
        const std::string own = std::to_string(region.country_code);
        if (number.compare(0, own.size(), own) == 0) {
            std::string potential = number.substr(own.size());
            strip_national_prefix(region, potential, ctx);
            if ((!ctx.matches(number, region.general) && ctx.matches(potential, region.general)) ||
                test_length(number, region) == Length::too_long) {
                number = std::move(potential);
                country_code = region.country_code;
            }
        }
    }
    // A country code found in the number brings its main region's rules; else the
    // region's own (for CA that differs: +1 means US rules).
    const Region* metadata = country_code != 0 ? metadata_for(country_code) : &region;
    if (country_code == 0) {
        country_code = region.country_code;
    }
    Answer answer = finish(country_code, metadata, std::move(number), ctx);
    return ctx.undecided ? Answer{Verdict::undecided, {}} : answer;
}

// The rest of ParseHelper, then IsValidNumber.
PhoneRules::Answer PhoneRules::finish(int country_code, const Region* metadata, std::string national, Ctx& ctx) const {
    if (national.size() < k_min_nsn) {
        return {};
    }
    if (metadata != nullptr) {
        std::string potential = national;
        strip_national_prefix(*metadata, potential, ctx);
        const Length length = test_length(potential, *metadata);
        if (length != Length::too_short && length != Length::local_only && length != Length::invalid) {
            national = std::move(potential);
        }
    }
    if (national.size() < k_min_nsn || national.size() > k_max_nsn) {
        return {};
    }
    // The national number keeps its leading zeros (the "Italian leading zero"), so the
    // national significant number is `national` itself.
    if (!is_valid(country_code, national, ctx)) {
        return {};
    }
    return {Verdict::valid, std::to_string(country_code) + national};
}

// ExtractCountryCode: the shortest prefix of one to three digits that is a known code.
int PhoneRules::extract_country_code(std::string& number) const {
    if (number.empty() || number[0] == '0') {
        return 0;
    }
    for (std::size_t i = 1; i <= k_max_country_code && i <= number.size(); ++i) {
        const int code = std::stoi(number.substr(0, i));
        if (m_by_code.count(code) > 0) {
            number.erase(0, i);
            return code;
        }
    }
    return 0;
}

std::string PhoneRules::region_of(std::string_view digits) const {
    std::string number(digits);
    const int country_code = extract_country_code(number);
    if (country_code == 0) {
        return {};
    }
    const std::string& id = metadata_for(country_code)->id;
    return id == "001" ? "+" + std::to_string(country_code) : id;
}

// GetMetadataForRegionOrCallingCode(code, GetRegionCodeForCountryCode(code)).
const PhoneRules::Region* PhoneRules::metadata_for(int country_code) const {
    const auto it = m_by_code.find(country_code);
    return it == m_by_code.end() ? nullptr : it->second.front();
}

// IsValidNumber → GetRegionCodeForNumber → IsValidNumberForRegion.
bool PhoneRules::is_valid(int country_code, std::string_view nsn, Ctx& ctx) const {
    const Region* region = claimant(country_code, nsn, ctx);
    return region != nullptr && has_type(nsn, *region, ctx);
}

// GetRegionCodeForNumber: the one region of the code, else (GetRegionCodeForNumberFromRegionList)
// the first that claims the number, by its leading digits or, without them, by a type of number.
const PhoneRules::Region* PhoneRules::claimant(int country_code, std::string_view nsn, Ctx& ctx) const {
    const auto it = m_by_code.find(country_code);
    if (it == m_by_code.end()) {
        return nullptr;
    }
    const auto& regions = it->second;
    if (regions.size() == 1) {
        return regions.front();
    }
    for (const Region* region : regions) {
        if (region->leading_digits) {
            if (ctx.yes(region->leading_digits->match_prefix(nsn).outcome)) {
                return region;
            }
        } else if (has_type(nsn, *region, ctx)) {
            return region;
        }
    }
    return nullptr;
}

std::optional<std::string> PhoneRules::region_of_number(std::string_view wa_id) const {
    std::string nsn(wa_id);
    const int country_code = extract_country_code(nsn);
    Ctx ctx;
    const Region* region = country_code == 0 ? nullptr : claimant(country_code, nsn, ctx);
    if (ctx.undecided) {
        return std::nullopt;
    }
    return region == nullptr ? std::string("ZZ") : region->id;
}

// GetNumberTypeHelper(…) != UNKNOWN. Only whether some type matches counts, not which, so the
// types are tried most common first (a campaign's numbers are mostly mobile), unlike
// GetNumberTypeHelper's order: the answer is the same, the first match ends the search sooner.
// (A pattern too complex to run makes the whole answer undecided, libphonenumber's own then; a
// match found before it reaches that same answer.)
bool PhoneRules::has_type(std::string_view nsn, const Region& r, Ctx& ctx) const {
    if (!ctx.matches_desc(nsn, r.general)) {
        return false;
    }
    if (!r.same_mobile_and_fixed && ctx.matches_desc(nsn, r.mobile)) {
        return true;
    }
    for (const Desc* desc :
         {&r.fixed, &r.premium, &r.toll_free, &r.shared, &r.voip, &r.personal, &r.pager, &r.uan, &r.voicemail}) {
        if (ctx.matches_desc(nsn, *desc)) {
            return true;
        }
    }
    return false;
}

// MaybeStripNationalPrefixAndCarrierCode.
void PhoneRules::strip_national_prefix(const Region& region, std::string& number, Ctx& ctx) const {
    if (number.empty() || !region.national_prefix) {
        return;
    }
    const DigitPattern& prefix = *region.national_prefix;
    const bool viable = ctx.matches(number, region.general);
    const auto match = prefix.match_prefix(number);
    if (!ctx.yes(match.outcome)) {
        return;
    }
    if (!region.transform_rule.empty() && prefix.group_count() >= 1) {
        // The captured part is group 2 when there are two groups (group 1 is the
        // carrier code), else group 1.
        const std::string_view captured = match.groups[prefix.group_count() >= 2 ? 2 : 1];
        if (!captured.empty()) {
            std::string transformed;
            const std::string& rule = region.transform_rule;
            for (std::size_t i = 0; i < rule.size(); ++i) {
                if (rule[i] == '$' && i + 1 < rule.size() && rule[i + 1] >= '1' &&
                    rule[i + 1] <= '0' + DigitPattern::k_max_groups) {
                    transformed += match.groups[static_cast<std::size_t>(rule[++i] - '0')];
                } else {
                    transformed += rule[i];
                }
            }
            transformed += number.substr(match.end);
            if (viable && !ctx.matches(transformed, region.general)) {
                return;
            }
            number = std::move(transformed);
            return;
        }
    }
    std::string rest = number.substr(match.end);
    if (viable && !ctx.matches(rest, region.general)) {
        return;
    }
    number = std::move(rest);
}

// TestNumberLength for the general description.
PhoneRules::Length PhoneRules::test_length(std::string_view number, const Region& region) {
    const auto& lengths = region.general.lengths;
    const auto& local = region.general.local_lengths;
    if (lengths.empty() || lengths.front() == -1) {
        return Length::invalid;
    }
    const int actual = static_cast<int>(number.size());
    if (std::find(local.begin(), local.end(), actual) != local.end()) {
        return Length::local_only;
    }
    if (lengths.front() == actual) {
        return Length::possible;
    }
    if (lengths.front() > actual) {
        return Length::too_short;
    }
    if (lengths.back() < actual) {
        return Length::too_long;
    }
    return std::find(lengths.begin() + 1, lengths.end(), actual) != lengths.end() ? Length::possible : Length::invalid;
}

}  // namespace campaign
