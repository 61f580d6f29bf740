#pragma once
// Whether WhatsApp would take an image, told from how its host answers: the verdict on one
// answer (pure), and the check of many URLs through a transport, a few at a time. Image hosts
// are not the service: their requests carry no API key and no configured header.

#include <atomic>
#include <chrono>
#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "service/http.hpp"

namespace service {

// WhatsApp's limits on an image.
inline constexpr long long k_max_image_bytes = 5'000'000;
inline constexpr int k_max_image_redirects = 5;

struct MediaVerdict {
    std::string refusal;  // why WhatsApp would refuse the image, for people; empty when it passes
    std::string warning;  // what could not be told (its size); empty when none
};

// The verdict on an image whose host gave `response` (the last answer, after redirects):
// refused unless its status is 2xx, its content type image/jpeg or image/png (parameters and
// case aside), and its size (Content-Length, or the total of a 206's Content-Range) at most
// k_max_image_bytes. An unknown size passes, with a warning.
MediaVerdict media_verdict(const HttpResponse& response);

// The verdict on an image that could not be fetched: refused, saying why.
MediaVerdict media_verdict(const TransportError& error);

enum class MediaProbe {
    head,   // HEAD
    range,  // a GET of the first bytes, for hosts that refuse HEAD (405, 501)
};

// The request that checks the image at `url` with `probe`: no credentials, redirects followed
// to http(s) only (at most k_max_image_redirects), no body kept past a few KiB.
HttpRequest media_request(const std::string& url, MediaProbe probe, std::chrono::milliseconds timeout);

struct MediaCheckOptions {
    std::chrono::milliseconds timeout{15'000};        // per request
    std::size_t max_in_flight = 16;                   // requests at once
    const std::atomic<int>* stop_requests = nullptr;  // when positive, the check ends early
};

// Checks the image at each of `urls` through `transport` (which must be otherwise idle): a
// HEAD, then a GET of the first bytes when the HEAD is answered 405 or 501. Returns one
// verdict per URL, in their order; nothing when a stop request ended the check first.
std::optional<std::vector<MediaVerdict>> check_images(HttpTransport& transport, const std::vector<std::string>& urls,
                                                      const MediaCheckOptions& options);

}  // namespace service
