#include "runner/campaign_header.hpp"

#include <filesystem>

#include "campaign/rate_card.hpp"
#include "util/sha256.hpp"

namespace runner {

namespace {

std::string absolute_path(const std::string& path) {
    return std::filesystem::absolute(path).lexically_normal().string();
}

}  // namespace

util::Result<results::CampaignHeader> make_campaign_header(const campaign::Campaign& c, results::Mode mode,
                                                           util::TimePoint now) {
    results::CampaignHeader h;
    TRY_ASSIGN(h.campaign_sha256, util::sha256_file(c.file));
    TRY_ASSIGN(h.recipients_sha256, util::sha256_file(c.recipients.file));
    h.name = c.name;
    h.campaign_file = absolute_path(c.file);
    h.recipients_file = absolute_path(c.recipients.file);
    h.started_at = now;
    h.version = WACAMP_VERSION;
    h.mode = mode;
    if (c.pricing.card) {
        results::RateCardRef& card = h.rate_card.emplace();
        card.path = absolute_path(c.pricing.card->path());
        TRY_ASSIGN(card.sha256, util::sha256_file(c.pricing.card->path()));
        card.currency = c.pricing.currency;
        if (c.pricing.card->effective()) {
            card.effective = campaign::day_text(*c.pricing.card->effective());
        }
    }
    return h;
}

}  // namespace runner
