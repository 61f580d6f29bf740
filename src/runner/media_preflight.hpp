#pragma once
// The check of a campaign's media before sending (`message.check_media`, `--check-media`): the
// distinct image URLs (or a template's header media links) of the rows a run would send, each
// asked of its host once, and the verdicts that make the rows using refused media invalid.

#include <atomic>
#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "campaign/campaign.hpp"
#include "campaign/media_verdicts.hpp"
#include "campaign/recipients.hpp"
#include "results/replay.hpp"
#include "runner/send_options.hpp"
#include "service/http.hpp"
#include "service/media_check.hpp"
#include "util/clock.hpp"
#include "util/result.hpp"

namespace runner {

// The most distinct image URLs one campaign may check (they are all held in memory).
inline constexpr std::size_t k_max_media_urls = 100'000;

struct MediaReport {
    service::MediaKind kind = service::MediaKind::image;  // what the URLs were checked as
    campaign::MediaVerdicts verdicts;                     // the refused media
    std::size_t checked = 0;                              // distinct URLs asked of their hosts
    std::size_t unknown_size = 0;                         // of which passed with a size unknown
    std::vector<std::string> warnings;                    // the first few, "image URL: size unknown …"
    bool stopped = false;                                 // a stop request ended the check: the verdicts are not all in
};

// What `campaign`'s media are checked as: its images (type image), or its template's header
// media (an image, video or document header); nothing when it has no media to check.
std::optional<service::MediaKind> media_kind(const campaign::Campaign& campaign);

// What the check asks through, and what ends it early.
struct MediaCheckParts {
    service::HttpTransport& transport;                // otherwise idle
    const std::atomic<int>* stop_requests = nullptr;  // counts SIGINT/SIGTERM; may be null
    util::TimePoint now{};                            // when the rows to send are judged (runner::decide)
};

// Reads `stream` (just opened, with no media verdicts) to its end for the distinct media URLs
// (media_kind) of the rows a run would send (given `state`, the existing log's or null, and
// `options`), and checks each through `parts.transport` with the campaign's timeout. A campaign
// without media has nothing to check (an empty report, `stream` unread). Fails when the stream
// fails, or past k_max_media_urls distinct URLs.
util::Result<MediaReport> check_media(const campaign::Campaign& campaign, campaign::RecipientStream& stream,
                                      const results::LogState* state, const SendOptions& options,
                                      const MediaCheckParts& parts);

// "checked N image URLs: K refused" (or video, document URLs), and how many were of unknown size.
std::string media_summary(const MediaReport& report);

}  // namespace runner
