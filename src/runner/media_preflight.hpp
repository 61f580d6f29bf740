#pragma once
// The check of a campaign's images before sending (`message.check_media`, `--check-media`):
// the distinct image URLs of the rows a run would send, each asked of its host once, and the
// verdicts that make the rows using a refused image invalid.

#include <atomic>
#include <cstddef>
#include <string>
#include <vector>

#include "campaign/campaign.hpp"
#include "campaign/media_verdicts.hpp"
#include "campaign/recipients.hpp"
#include "results/replay.hpp"
#include "runner/send.hpp"
#include "service/http.hpp"
#include "util/clock.hpp"
#include "util/result.hpp"

namespace runner {

// The most distinct image URLs one campaign may check (they are all held in memory).
inline constexpr std::size_t k_max_media_urls = 100'000;

struct MediaReport {
    campaign::MediaVerdicts verdicts;   // the refused images
    std::size_t checked = 0;            // distinct URLs asked of their hosts
    std::size_t unknown_size = 0;       // of which passed with a size unknown
    std::vector<std::string> warnings;  // the first few, "image URL: size unknown …"
    bool stopped = false;               // a stop request ended the check: the verdicts are not all in
};

// What the check asks through, and what ends it early.
struct MediaCheckParts {
    service::HttpTransport& transport;                // otherwise idle
    const std::atomic<int>* stop_requests = nullptr;  // counts SIGINT/SIGTERM; may be null
    util::TimePoint now{};                            // when the rows to send are judged (runner::decide)
};

// Reads `stream` (just opened, with no media verdicts) to its end for the distinct image URLs
// of the rows a run would send (given `state`, the existing log's or null, and `options`), and
// checks each through `parts.transport` with the campaign's timeout. A text campaign has
// nothing to check (an empty report, `stream` unread). Fails when the stream fails, or past
// k_max_media_urls distinct URLs.
util::Result<MediaReport> check_media(const campaign::Campaign& campaign, campaign::RecipientStream& stream,
                                      const results::LogState* state, const SendOptions& options,
                                      const MediaCheckParts& parts);

// "checked N image URLs: K refused", and how many were of unknown size.
std::string media_summary(const MediaReport& report);

}  // namespace runner
