#pragma once
// What WhatsApp refuses in a rendered message, known before anything is sent: a text over
// 4,096 characters, a caption over 1,024, an image source that is no absolute http(s) URL, a
// text that renders empty (docs/campaign-file.md, "Content rules").

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

#include "service/messages.hpp"

namespace campaign {

// WhatsApp's limits, in Unicode code points (not bytes, not what a person sees as one character).
inline constexpr std::size_t k_max_text_chars = 4096;
inline constexpr std::size_t k_max_caption_chars = 1024;
inline constexpr std::size_t k_max_template_body_chars = 1024;  // a template's body, its variables filled in
inline constexpr std::size_t k_max_template_header_chars = 60;  // a template's text header, filled in

// Returns the number of Unicode code points in `text`; a byte that starts no well-formed UTF-8
// sequence counts as one.
std::size_t code_points(std::string_view text);

// Whether `url` is an absolute http:// or https:// URL (any case) with a host and no spaces or
// control characters.
bool absolute_http_url(std::string_view url);

// Returns why the rendered `message` breaks a content rule, naming the rule and the campaign
// key it came from, or nullopt when it breaks none.
std::optional<std::string> content_problem(const service::OutgoingMessage& message);

}  // namespace campaign
