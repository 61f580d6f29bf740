#include "runner/media_preflight.hpp"

#include <fmt/format.h>
#include <algorithm>
#include <unordered_set>

#include "runner/decide.hpp"
#include "util/text.hpp"

namespace runner {

namespace {

constexpr std::size_t k_max_warnings = 20;  // the rest are counted in the summary

// The link a row's media is at: an image message's source, else its template's header media.
const std::string& media_link(const campaign::Campaign& c, const campaign::Recipient& r) {
    return c.message.type == campaign::MessageType::image ? r.message.source : r.message.header_value;
}

// The distinct media URLs of the rows of `stream` that a run would send, sorted.
util::Result<std::vector<std::string>> media_urls(const campaign::Campaign& c, service::MediaKind kind,
                                                  campaign::RecipientStream& stream, const results::LogState* state,
                                                  const SendOptions& options, util::TimePoint now) {
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
        if (seen.insert(media_link(c, r)).second && seen.size() > k_max_media_urls) {
            return util::fail(fmt::format("{}: more than {} distinct {} URLs to check; split the campaign",
                                          c.recipients.file, k_max_media_urls, service::to_string(kind)));
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

std::optional<service::MediaKind> media_kind(const campaign::Campaign& c) {
    if (c.message.type == campaign::MessageType::image) {
        return service::MediaKind::image;
    }
    if (c.message.type != campaign::MessageType::template_message) {
        return std::nullopt;
    }
    switch (c.message.templated.header) {
    case campaign::HeaderKind::image: return service::MediaKind::image;
    case campaign::HeaderKind::video: return service::MediaKind::video;
    case campaign::HeaderKind::document: return service::MediaKind::document;
    default: return std::nullopt;
    }
}

util::Result<MediaReport> check_media(const campaign::Campaign& c, campaign::RecipientStream& stream,
                                      const results::LogState* state, const SendOptions& options,
                                      const MediaCheckParts& parts) {
    MediaReport report;
    const auto kind = media_kind(c);
    if (!kind) {
        return report;
    }
    report.kind = *kind;
    TRY_ASSIGN(auto urls, media_urls(c, *kind, stream, state, options, parts.now));
    auto verdicts = service::check_media_links(
        parts.transport, urls, {.kind = *kind, .timeout = c.service.timeout, .stop_requests = parts.stop_requests});
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
                report.warnings.push_back(
                    fmt::format("{} {}: {}", service::to_string(*kind), util::printable(urls[i]), verdict.warning));
            }
        }
    }
    return report;
}

std::string media_summary(const MediaReport& report) {
    std::string text = fmt::format("checked {} {} URL{}: {} refused", report.checked, service::to_string(report.kind),
                                   report.checked == 1 ? "" : "s", report.verdicts.refused());
    if (report.unknown_size > 0) {
        text += fmt::format(", {} of unknown size", report.unknown_size);
    }
    return text;
}

}  // namespace runner
