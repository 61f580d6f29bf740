#pragma once
// Whether WhatsApp would take a piece of media (an image, a video, a document), told from how
// its host answers: the verdict on one answer (pure), and the check of many URLs through a
// transport, a few at a time. Media hosts are not the service: their requests carry no API key
// and no configured header.

#include <atomic>
#include <chrono>
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "service/http.hpp"

namespace service {

// What a link is checked as: an image message or an image header, a video header, a document header.
enum class MediaKind { image, video, document };

// WhatsApp's limits on each kind (Meta's "5 MB", "16 MB" and "100 MB", in bytes).
inline constexpr long long k_max_image_bytes = 5'000'000;
inline constexpr long long k_max_video_bytes = 16'000'000;
inline constexpr long long k_max_document_bytes = 100'000'000;
inline constexpr int k_max_image_redirects = 5;

// "image", "video" or "document": the kind's name in messages.
std::string_view to_string(MediaKind kind);

// The most bytes WhatsApp takes of `kind`.
long long max_media_bytes(MediaKind kind);

struct MediaVerdict {
    std::string refusal;  // why WhatsApp would refuse the media, for people; empty when it passes
    std::string warning;  // what could not be told (its size); empty when none
};

// The verdict on media of `kind` whose host gave `response` (the last answer, after redirects):
// refused unless its status is 2xx, its content type one WhatsApp takes for the kind (parameters
// and case aside: image/jpeg or image/png; video/mp4 or video/3gpp; any for a document), and its
// size (Content-Length, or the total of a 206's Content-Range) at most max_media_bytes(`kind`).
// An unknown size passes, with a warning.
MediaVerdict media_verdict(const HttpResponse& response, MediaKind kind = MediaKind::image);

// The verdict on media that could not be fetched: refused, saying why.
MediaVerdict media_verdict(const TransportError& error);

enum class MediaProbe {
    head,   // HEAD
    range,  // a GET of the first bytes, for hosts that refuse HEAD (405, 501)
};

// The request that checks the media at `url` with `probe`: no credentials, redirects followed
// to http(s) only (at most k_max_image_redirects), no body kept past a few KiB.
HttpRequest media_request(const std::string& url, MediaProbe probe, std::chrono::milliseconds timeout);

struct MediaCheckOptions {
    MediaKind kind = MediaKind::image;                // what every URL is checked as
    std::chrono::milliseconds timeout{15'000};        // per request
    std::size_t max_in_flight = 16;                   // requests at once
    const std::atomic<int>* stop_requests = nullptr;  // when positive, the check ends early
};

// Checks the media (of `options.kind`) at each of `urls` through `transport` (which must be
// otherwise idle): a HEAD, then a GET of the first bytes when the HEAD is answered 405 or 501.
// Returns one verdict per URL, in their order; nothing when a stop request ended the check first.
std::optional<std::vector<MediaVerdict>> check_media_links(HttpTransport& transport,
                                                           const std::vector<std::string>& urls,
                                                           const MediaCheckOptions& options);

}  // namespace service
