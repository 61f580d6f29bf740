#include "service/media_check.hpp"

#include <fmt/format.h>
#include <algorithm>
#include <charconv>

#include "service/requests.hpp"
#include "util/text.hpp"
#include "util/utf8.hpp"

namespace service {

namespace {

// A GET asks for this many bytes (the check needs only the answer's headers), and keeps at
// most k_probe_cap of a host that ignores Range.
constexpr std::string_view k_probe_range = "bytes=0-1023";
constexpr std::size_t k_probe_cap = 16 * 1024;
constexpr std::size_t k_max_shown = 200;  // of a header value in a message
// How long one poll waits at most: a stop request is noticed this soon.
constexpr std::chrono::milliseconds k_poll_slice{100};

// `text` from a host, safe and short enough to show.
std::string shown(std::string_view text) {
    return util::printable(util::clip_utf8(text, k_max_shown));
}

// `text` as a byte count: digits only, else nothing.
std::optional<long long> byte_count(std::string_view text) {
    text = util::trim(text);
    long long value = 0;
    const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
    if (text.empty() || error != std::errc() || end != text.data() + text.size() || value < 0) {
        return std::nullopt;
    }
    return value;
}

// The image's whole size as the answer tells it: a 206's Content-Range total
// ("bytes 0-1023/6000000"; "*" when unknown), else Content-Length.
std::optional<long long> size_of(const HttpResponse& response) {
    if (response.status == 206) {
        const std::string range = find_header(response.headers, "content-range");
        const auto slash = range.rfind('/');
        return slash == std::string::npos ? std::nullopt : byte_count(std::string_view(range).substr(slash + 1));
    }
    return byte_count(find_header(response.headers, "content-length"));
}

// Where the answer came from, when redirects led elsewhere: " (at URL, after N redirects)".
std::string where(const HttpResponse& response) {
    if (response.redirects == 0) {
        return {};
    }
    return fmt::format(" (at {}, after {} redirect{})", shown(response.url), response.redirects,
                       response.redirects == 1 ? "" : "s");
}

// The content types WhatsApp takes for `kind`, as a sentence; empty when it takes any.
std::string_view accepted_types(MediaKind kind) {
    switch (kind) {
    case MediaKind::image: return "WhatsApp takes image/jpeg or image/png";
    case MediaKind::video: return "WhatsApp takes video/mp4 or video/3gpp";
    case MediaKind::document: return {};
    }
    return {};
}

// Whether WhatsApp takes media of `kind` with content `type` (lower case, no parameters).
bool accepts_type(MediaKind kind, std::string_view type) {
    switch (kind) {
    case MediaKind::image: return type == "image/jpeg" || type == "image/png";
    case MediaKind::video: return type == "video/mp4" || type == "video/3gpp";
    case MediaKind::document: return true;
    }
    return false;
}

// Why the answer's content type is refused for `kind`; empty when it is taken.
std::string type_refusal(const HttpResponse& response, MediaKind kind) {
    const std::string header = find_header(response.headers, "content-type");
    const std::string type = util::ascii_lower(util::trim(std::string_view(header).substr(0, header.find(';'))));
    if (accepts_type(kind, type)) {
        return {};
    }
    if (type.empty()) {
        return fmt::format("no content type{}; {}", where(response), accepted_types(kind));
    }
    return fmt::format("content type {}{}; {}", shown(type), where(response), accepted_types(kind));
}

}  // namespace

std::string_view to_string(MediaKind kind) {
    switch (kind) {
    case MediaKind::image: return "image";
    case MediaKind::video: return "video";
    case MediaKind::document: return "document";
    }
    return "image";
}

long long max_media_bytes(MediaKind kind) {
    switch (kind) {
    case MediaKind::image: return k_max_image_bytes;
    case MediaKind::video: return k_max_video_bytes;
    case MediaKind::document: return k_max_document_bytes;
    }
    return k_max_image_bytes;
}

MediaVerdict media_verdict(const HttpResponse& response, MediaKind kind) {
    if (response.status < 200 || response.status > 299) {
        return {fmt::format("answered HTTP {}{}", response.status, where(response)), {}};
    }
    if (auto refusal = type_refusal(response, kind); !refusal.empty()) {
        return {std::move(refusal), {}};
    }
    const long long max = max_media_bytes(kind);
    const auto size = size_of(response);
    if (!size) {
        return {{},
                fmt::format("size unknown (the host did not say it); WhatsApp refuses {}s over {} bytes",
                            to_string(kind), max)};
    }
    if (*size > max) {
        return {fmt::format("{} bytes{}; WhatsApp takes at most {}", *size, where(response), max), {}};
    }
    return {};
}

MediaVerdict media_verdict(const TransportError& error) {
    const std::string_view what = error.failure == TransportFailure::other ? "could not be fetched" : "unreachable";
    return {fmt::format("{}: {}", what, shown(error.message)), {}};
}

HttpRequest media_request(const std::string& url, MediaProbe probe, std::chrono::milliseconds timeout) {
    HttpRequest request;
    request.method = probe == MediaProbe::head ? Method::head : Method::get;
    request.url = url;
    request.headers.emplace_back("User-Agent", user_agent());  // some hosts refuse a request without
    if (probe == MediaProbe::range) {
        request.headers.emplace_back("Range", std::string(k_probe_range));
    }
    request.timeout = timeout;
    request.max_redirects = k_max_image_redirects;
    request.max_body = k_probe_cap;
    return request;
}

std::optional<std::vector<MediaVerdict>> check_media_links(HttpTransport& transport,
                                                           const std::vector<std::string>& urls,
                                                           const MediaCheckOptions& options) {
    // Request ids: 2i for the HEAD of urls[i], 2i + 1 for its GET.
    std::vector<MediaVerdict> verdicts(urls.size());
    const std::size_t bound = std::max<std::size_t>(options.max_in_flight, 1);
    std::size_t next = 0;
    std::size_t done = 0;
    while (done < urls.size()) {
        for (; next < urls.size() && transport.in_flight() < bound; ++next) {
            transport.start(2 * next, media_request(urls[next], MediaProbe::head, options.timeout));
        }
        if (options.stop_requests != nullptr && options.stop_requests->load() > 0) {
            return std::nullopt;
        }
        for (auto& completion : transport.poll(k_poll_slice)) {
            const std::size_t i = completion.id / 2;
            const bool head = completion.id % 2 == 0;
            if (const auto* response = std::get_if<HttpResponse>(&completion.result)) {
                if (head && (response->status == 405 || response->status == 501)) {
                    transport.start(2 * i + 1, media_request(urls[i], MediaProbe::range, options.timeout));
                    continue;
                }
                verdicts[i] = media_verdict(*response, options.kind);
            } else {
                verdicts[i] = media_verdict(std::get<TransportError>(completion.result));
            }
            ++done;
        }
    }
    return verdicts;
}

}  // namespace service
