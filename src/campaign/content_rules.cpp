#include "campaign/content_rules.hpp"

#include <fmt/format.h>

#include "util/text.hpp"
#include "util/utf8.hpp"

namespace campaign {

std::size_t code_points(std::string_view text) {
    std::size_t count = 0;
    for (std::size_t i = 0; i < text.size();) {
        const auto c = static_cast<unsigned char>(text[i]);
        const std::size_t length = c < 0x80 ? 1 : util::decode_utf8(text.substr(i)).length;
        i += length == 0 ? 1 : length;
        ++count;
    }
    return count;
}

bool absolute_http_url(std::string_view url) {
    const std::string scheme = util::ascii_lower(url.substr(0, url.find("://")));
    if (url.find("://") == std::string_view::npos || (scheme != "http" && scheme != "https")) {
        return false;
    }
    const std::string_view rest = url.substr(scheme.size() + 3);
    const std::string_view authority = rest.substr(0, rest.find_first_of("/?#"));
    const std::string_view host =
        authority.substr(authority.rfind('@') == std::string_view::npos ? 0 : authority.rfind('@') + 1);
    if (host.empty() || host.front() == ':') {
        return false;
    }
    for (const char ch : url) {
        const auto c = static_cast<unsigned char>(ch);
        if (c <= 0x20 || c == 0x7f) {
            return false;
        }
    }
    return true;
}

std::optional<std::string> content_problem(const service::OutgoingMessage& message) {
    if (message.kind == service::MessageKind::text) {
        if (util::trim(message.text).empty()) {
            return "message.text is empty after rendering; WhatsApp sends no empty text";
        }
        if (const std::size_t n = code_points(message.text); n > k_max_text_chars) {
            return fmt::format("message.text renders to {} characters, over WhatsApp's limit of {} for a text", n,
                               k_max_text_chars);
        }
        return std::nullopt;
    }
    if (!absolute_http_url(message.source)) {
        return fmt::format("message.source renders to \"{}\", not an absolute http:// or https:// URL",
                           util::printable(util::clip_utf8(message.source, 200)));
    }
    if (const std::size_t n = code_points(message.label); n > k_max_caption_chars) {
        return fmt::format("message.label renders to {} characters, over WhatsApp's limit of {} for a caption", n,
                           k_max_caption_chars);
    }
    return std::nullopt;
}

}  // namespace campaign
