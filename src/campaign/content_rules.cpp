#include "campaign/content_rules.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cstdint>
#include <cstring>

#include "campaign/template_text.hpp"
#include "util/text.hpp"
#include "util/utf8.hpp"

namespace campaign {

std::size_t code_points(std::string_view text) {
    std::size_t count = 0;
    std::size_t i = 0;
    while (i < text.size()) {
        // ASCII, the common case, eight bytes at a time.
        std::uint64_t word = 0;
        while (i + sizeof word <= text.size() &&
               (std::memcpy(&word, text.data() + i, sizeof word), (word & 0x8080808080808080ULL) == 0)) {
            i += sizeof word;
            count += sizeof word;
        }
        if (i == text.size()) {
            break;
        }
        const auto c = static_cast<unsigned char>(text[i]);
        const std::size_t length = c < 0x80 ? 1 : util::decode_utf8(text.substr(i)).length;
        i += length == 0 ? 1 : length;
        ++count;
    }
    return count;
}

bool absolute_http_url(std::string_view url) {
    std::size_t at = 0;  // past "http://" or "https://", in any case
    if (util::starts_with_nocase(url, "https://")) {
        at = 8;
    } else if (util::starts_with_nocase(url, "http://")) {
        at = 7;
    } else {
        return false;
    }
    // The host: the authority (up to the path, query or fragment) after any user info.
    std::size_t host = at;
    std::size_t end = at;
    for (; end < url.size() && url[end] != '/' && url[end] != '?' && url[end] != '#'; ++end) {
        if (url[end] == '@') {
            host = end + 1;
        }
    }
    if (host == end || url[host] == ':') {
        return false;
    }
    return std::none_of(url.begin(), url.end(), [](char ch) {
        const auto c = static_cast<unsigned char>(ch);
        return c <= 0x20 || c == 0x7f;
    });
}

namespace {

// Why a template message breaks a rule: a variable WhatsApp refuses, a header or body over its
// limit once filled in, a media header that is no http(s) URL.
std::optional<std::string> template_problem(const service::OutgoingMessage& m) {
    const service::TemplateForm& form = *m.form;
    for (std::size_t i = 0; i < m.body_values.size(); ++i) {
        if (auto why = variable_problem(m.body_values[i])) {
            const auto key =
                i < form.body_names.size() ? "message.body." + form.body_names[i] : fmt::format("message.body[{}]", i);
            return fmt::format("{} {} after rendering; WhatsApp refuses such a template variable", key, *why);
        }
    }
    for (std::size_t i = 0; i < m.button_texts.size(); ++i) {
        if (auto why = variable_problem(m.button_texts[i])) {
            return fmt::format("message.buttons[{}].text {} after rendering; WhatsApp refuses such a template variable",
                               i, *why);
        }
    }
    switch (form.header) {
    case service::TemplateHeader::none: break;
    case service::TemplateHeader::text: {
        if (auto why = variable_problem(m.header_value)) {
            return fmt::format("message.header.text {} after rendering; WhatsApp refuses such a template variable",
                               *why);
        }
        const auto header =
            form.header_text.empty() ? m.header_value : filled_in(form.header_text, {}, {m.header_value});
        if (const std::size_t n = code_points(header); n > k_max_template_header_chars) {
            return fmt::format("the template's header renders to {} characters, over WhatsApp's limit of {}", n,
                               k_max_template_header_chars);
        }
        break;
    }
    case service::TemplateHeader::image:
    case service::TemplateHeader::video:
    case service::TemplateHeader::document:
        if (!absolute_http_url(m.header_value)) {
            return fmt::format("message.header renders to \"{}\", not an absolute http:// or https:// URL",
                               util::printable(util::clip_utf8(m.header_value, 200)));
        }
        break;
    }
    if (!form.body_text.empty()) {
        if (const std::size_t n = filled_in_code_points(form.body_text, form.body_names, m.body_values);
            n > k_max_template_body_chars) {
            return fmt::format("the template's body renders to {} characters, over WhatsApp's limit of {}", n,
                               k_max_template_body_chars);
        }
    }
    return std::nullopt;
}

}  // namespace

std::optional<std::string> content_problem(const service::OutgoingMessage& message) {
    if (message.kind == service::MessageKind::template_message) {
        return message.form ? template_problem(message) : std::nullopt;
    }
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
