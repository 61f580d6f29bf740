#pragma once
// Regions Meta delivers no MARKETING template to (message.paused_regions; the United States since
// 1 April 2025): such rows are recorded `skipped`, cause `region_paused`, and sent nothing.

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "campaign/campaign.hpp"
#include "campaign/phone.hpp"

namespace campaign {

class PausedRegions {
public:
    // The regions `c` sends nothing to: none (nullopt) unless `c` sends a MARKETING template (or
    // one whose category was not checked, priced as MARKETING too) and names a region. Fails
    // when libphonenumber's metadata cannot be read.
    static util::Result<std::optional<PausedRegions>> of(const Campaign& c);

    // Whether `wa_id` (a normalised number) is of one of the regions.
    bool paused(std::string_view wa_id) const;

    // The result log's `error` of such a row: "Meta delivers no MARKETING template to numbers of
    // US (message.paused_regions)".
    std::string why(std::string_view wa_id) const;

private:
    PausedRegions(std::vector<std::string> regions, std::vector<std::string> codes, PhoneNormalizer phones)
        : m_regions(std::move(regions)), m_codes(std::move(codes)), m_phones(std::move(phones)) {}

    std::vector<std::string> m_regions;  // ISO 3166-1 alpha-2
    std::vector<std::string> m_codes;    // their calling codes ("1"): only numbers starting so are looked up
    PhoneNormalizer m_phones;
};

}  // namespace campaign
