#include "campaign/paused_regions.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "campaign/pricing.hpp"

namespace campaign {

util::Result<std::optional<PausedRegions>> PausedRegions::of(const Campaign& c) {
    if (c.message.type != MessageType::template_message || c.message.templated.paused_regions.empty() ||
        price_basis(c).category != PriceCategory::marketing) {
        return std::optional<PausedRegions>();
    }
    std::vector<std::string> codes;
    for (const auto& region : c.message.templated.paused_regions) {
        // A region libphonenumber does not know has no numbers to pause.
        if (auto phones = PhoneNormalizer::create(region);
            phones && std::find(codes.begin(), codes.end(), phones->country_code()) == codes.end()) {
            codes.push_back(phones->country_code());
        }
    }
    TRY_ASSIGN(auto phones, PhoneNormalizer::create(""));
    return std::optional(PausedRegions(c.message.templated.paused_regions, std::move(codes), std::move(phones)));
}

bool PausedRegions::paused(std::string_view wa_id) const {
    // Most numbers are told apart by their first digits, without libphonenumber.
    const bool may_be =
        std::any_of(m_codes.begin(), m_codes.end(), [&](const std::string& code) { return wa_id.starts_with(code); });
    if (!may_be) {
        return false;
    }
    const std::string region = m_phones.region_of_number(wa_id);
    return std::find(m_regions.begin(), m_regions.end(), region) != m_regions.end();
}

std::string PausedRegions::why(std::string_view wa_id) const {
    return fmt::format("Meta delivers no MARKETING template to numbers of {} (message.paused_regions)",
                       m_phones.region_of_number(wa_id));
}

}  // namespace campaign
