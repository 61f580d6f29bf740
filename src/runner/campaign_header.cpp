#include "runner/campaign_header.hpp"

#include <filesystem>

#include "util/sha256.hpp"

namespace runner {

namespace {

std::string absolute_path(const std::string& path) {
    return std::filesystem::absolute(path).lexically_normal().string();
}

}  // namespace

util::Result<results::CampaignHeader> make_campaign_header(const campaign::Campaign& c, results::Mode mode,
                                                           util::TimePoint now) {
    auto campaign_sha = util::sha256_file(c.file);
    if (!campaign_sha) {
        return campaign_sha.error();
    }
    auto recipients_sha = util::sha256_file(c.recipients.file);
    if (!recipients_sha) {
        return recipients_sha.error();
    }
    results::CampaignHeader h;
    h.name = c.name;
    h.campaign_file = absolute_path(c.file);
    h.campaign_sha256 = *campaign_sha;
    h.recipients_file = absolute_path(c.recipients.file);
    h.recipients_sha256 = *recipients_sha;
    h.started_at = now;
    h.version = WACAMP_VERSION;
    h.mode = mode;
    return h;
}

}  // namespace runner
