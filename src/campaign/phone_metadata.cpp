// Reads the metadata compiled into libphonenumber (a serialised PhoneMetadataCollection) into
// PhoneRules, through the protobuf classes libphonenumber installs (phonemetadata.pb.h).

#include <phonenumbers/phonemetadata.pb.h>
#include <memory>

#include "campaign/phone_rules.hpp"

// Exported by libphonenumber but declared in phonenumbers/metadata.h, which Debian does not
// install. A library without them fails at link time, not with wrong answers.
namespace i18n::phonenumbers {
int metadata_size();
const void* metadata_get();
}  // namespace i18n::phonenumbers

namespace campaign {

namespace {

namespace pn = i18n::phonenumbers;

bool compile_into(std::optional<DigitPattern>& out, const std::string& pattern) {
    out = DigitPattern::compile(pattern);
    return out.has_value();
}

bool read_desc(const pn::PhoneNumberDesc& in, PhoneRules::Desc& desc) {
    // An empty pattern matches nothing (RegexBasedMatcher::MatchNationalNumber).
    if (in.has_national_number_pattern() && !in.national_number_pattern().empty() &&
        !compile_into(desc.pattern, in.national_number_pattern())) {
        return false;
    }
    desc.lengths.assign(in.possible_length().begin(), in.possible_length().end());
    desc.local_lengths.assign(in.possible_length_local_only().begin(), in.possible_length_local_only().end());
    return true;
}

bool read_descs(const pn::PhoneMetadata& in, PhoneRules::Region& region) {
    const std::pair<bool, std::pair<const pn::PhoneNumberDesc*, PhoneRules::Desc*>> descs[] = {
        {in.has_general_desc(), {&in.general_desc(), &region.general}},
        {in.has_fixed_line(), {&in.fixed_line(), &region.fixed}},
        {in.has_mobile(), {&in.mobile(), &region.mobile}},
        {in.has_toll_free(), {&in.toll_free(), &region.toll_free}},
        {in.has_premium_rate(), {&in.premium_rate(), &region.premium}},
        {in.has_shared_cost(), {&in.shared_cost(), &region.shared}},
        {in.has_personal_number(), {&in.personal_number(), &region.personal}},
        {in.has_voip(), {&in.voip(), &region.voip}},
        {in.has_pager(), {&in.pager(), &region.pager}},
        {in.has_uan(), {&in.uan(), &region.uan}},
        {in.has_voicemail(), {&in.voicemail(), &region.voicemail}},
    };
    for (const auto& [present, pair] : descs) {
        if (present && !read_desc(*pair.first, *pair.second)) {
            return false;
        }
    }
    return true;
}

bool read_region(const pn::PhoneMetadata& in, PhoneRules::Region& region) {
    region.id = in.id();
    region.country_code = in.country_code();
    if (in.has_international_prefix() && !compile_into(region.idd, in.international_prefix())) {
        return false;
    }
    if (in.has_national_prefix_for_parsing() && !in.national_prefix_for_parsing().empty() &&
        !compile_into(region.national_prefix, in.national_prefix_for_parsing())) {
        return false;
    }
    region.transform_rule = in.national_prefix_transform_rule();
    if (in.has_leading_digits() && !compile_into(region.leading_digits, in.leading_digits())) {
        return false;
    }
    region.same_mobile_and_fixed = in.same_mobile_and_fixed_line_pattern();
    region.main_country = in.main_country_for_code();
    return read_descs(in, region) && !region.id.empty() && region.country_code > 0;
}

std::unique_ptr<PhoneRules> load() {
    pn::PhoneMetadataCollection collection;
    if (!collection.ParseFromArray(pn::metadata_get(), pn::metadata_size())) {
        return nullptr;
    }
    std::vector<PhoneRules::Region> regions;
    for (const pn::PhoneMetadata& metadata : collection.metadata()) {
        PhoneRules::Region region;
        if (!read_region(metadata, region)) {
            return nullptr;
        }
        if (region.id != "ZZ") {
            regions.push_back(std::move(region));
        }
    }
    if (regions.empty()) {
        return nullptr;
    }
    return std::make_unique<PhoneRules>(std::move(regions));
}

}  // namespace

const PhoneRules* PhoneRules::shared() {
    // Immutable once built, like libphonenumber's own singleton it stands beside.
    static const std::unique_ptr<PhoneRules> rules = load();
    return rules.get();
}

}  // namespace campaign
