#include "runner/media_preflight.hpp"

#include <fmt/format.h>
#include <algorithm>
#include <unordered_set>

#include "runner/decide.hpp"
#include "service/media_check.hpp"
#include "util/text.hpp"

namespace runner {

namespace {

constexpr std::size_t k_max_warnings = 20;  // the rest are counted in the summary

// The distinct image URLs of the rows of `stream` that a run would send, sorted.
util::Result<std::vector<std::string>> image_urls(const campaign::Campaign& c, campaign::RecipientStream& stream,
                                                  const results::LogState* state, const SendOptions& options,
                                                  util::TimePoint now) {
    std::unordered_set<std::string> seen;
    campaign::Recipient r;
    for (;;) {
        TRY_ASSIGN(const bool found, stream.next(r));
        if (!found) {
            break;
        }
        TRY_ASSIGN(const RowFacts facts, facts_of(r, state));
        if (decide(facts, options.retry_rejected, options.resend_unknown, now) != Decision::send) {
            continue;
        }
        if (seen.insert(r.message.source).second && seen.size() > k_max_media_urls) {
            return util::fail(fmt::format("{}: more than {} distinct image URLs to check; split the campaign",
                                          c.recipients.file, k_max_media_urls));
        }
    }
    std::vector<std::string> urls;
    urls.reserve(seen.size());
    while (!seen.empty()) {
        urls.push_back(std::move(seen.extract(seen.begin()).value()));
    }
    std::sort(urls.begin(), urls.end());
    return urls;
}

}  // namespace

util::Result<MediaReport> check_media(const campaign::Campaign& c, campaign::RecipientStream& stream,
                                      const results::LogState* state, const SendOptions& options,
                                      const MediaCheckParts& parts) {
    MediaReport report;
    if (c.message.type != campaign::MessageType::image) {
        return report;
    }
    TRY_ASSIGN(auto urls, image_urls(c, stream, state, options, parts.now));
    auto verdicts = service::check_images(parts.transport, urls,
                                          {.timeout = c.service.timeout, .stop_requests = parts.stop_requests});
    if (!verdicts) {
        report.stopped = true;
        return report;
    }
    report.checked = urls.size();
    for (std::size_t i = 0; i < urls.size(); ++i) {
        auto& verdict = (*verdicts)[i];
        if (!verdict.refusal.empty()) {
            report.verdicts.refuse(std::move(urls[i]), std::move(verdict.refusal));
        } else if (!verdict.warning.empty()) {
            if (++report.unknown_size <= k_max_warnings) {
                report.warnings.push_back(fmt::format("image {}: {}", util::printable(urls[i]), verdict.warning));
            }
        }
    }
    return report;
}

std::string media_summary(const MediaReport& report) {
    std::string text = fmt::format("checked {} image URL{}: {} refused", report.checked, report.checked == 1 ? "" : "s",
                                   report.verdicts.refused());
    if (report.unknown_size > 0) {
        text += fmt::format(", {} of unknown size", report.unknown_size);
    }
    return text;
}

}  // namespace runner
