#include "campaign/render.hpp"

#include <algorithm>

#include "util/nearest.hpp"
#include "util/text.hpp"

namespace campaign {

namespace {

bool is_space(char c) {
    return c == ' ' || c == '\t' || c == '\r' || c == '\n';
}

bool is_blank(std::string_view s) {
    return std::all_of(s.begin(), s.end(), is_space);
}

// 1-based character (not byte) position of `offset` in `text`, for messages.
std::size_t character_at(std::string_view text, std::size_t offset) {
    std::size_t n = 1;
    for (std::size_t i = 0; i < offset; ++i) {
        n += (static_cast<unsigned char>(text[i]) & 0xC0) != 0x80 ? 1 : 0;
    }
    return n;
}

std::string no_column_error(const std::string& name, const std::vector<std::string>& header) {
    std::string message = "placeholder {{" + name + "}} names no column";
    if (auto near = nearest_column(name, header)) {
        message += " (did you mean \"" + *near + "\"?)";
    }
    message += "; columns are: ";
    for (std::size_t i = 0; i < header.size(); ++i) {
        message += (i > 0 ? ", " : "") + header[i];
    }
    return message;
}

}  // namespace

util::Result<Template> Template::parse(std::string_view text) {
    Template t;
    t.m_text = std::string(text);
    std::size_t pos = 0;
    for (;;) {
        const std::size_t open = text.find("{{", pos);
        if (open == std::string_view::npos) {
            t.m_parts.push_back(Part{std::string(text.substr(pos)), {}, std::nullopt});
            return t;
        }
        const std::size_t close = text.find("}}", open + 2);
        const std::string_view inner =
            close == std::string_view::npos ? std::string_view() : text.substr(open + 2, close - open - 2);
        const std::string at = " at character " + std::to_string(character_at(text, open));
        if (close == std::string_view::npos || inner.find("{{") != std::string_view::npos) {
            return util::fail("\"{{\"" + at + " has no closing \"}}\"");
        }
        const std::size_t bar = inner.find('|');
        Part part{std::string(text.substr(pos, open - pos)), std::string(util::trim(inner.substr(0, bar))),
                  std::nullopt};
        if (bar != std::string_view::npos) {
            part.fallback = std::string(util::trim(inner.substr(bar + 1)));
        }
        if (part.name.empty()) {
            return util::fail("placeholder {{" + std::string(inner) + "}}" + at + " has no name");
        }
        if (part.name.find_first_of("{}") != std::string::npos) {
            return util::fail("placeholder {{" + std::string(inner) + "}}" + at +
                              ": a name cannot contain \"{\" or \"}\"");
        }
        t.m_parts.push_back(std::move(part));
        pos = close + 2;
    }
}

util::Result<BoundTemplate> Template::bind(const std::vector<std::string>& header) const {
    BoundTemplate bound;
    for (const auto& part : m_parts) {
        BoundTemplate::Part b{part.literal, BoundTemplate::k_no_column, part.name, part.fallback};
        if (!part.name.empty()) {
            const auto it = std::find(header.begin(), header.end(), part.name);
            if (it == header.end()) {
                return util::fail(no_column_error(part.name, header));
            }
            b.column = static_cast<std::size_t>(it - header.begin());
        }
        bound.m_literal_size += b.literal.size();
        bound.m_parts.push_back(std::move(b));
    }
    return bound;
}

util::Result<void> BoundTemplate::render_into(const std::vector<std::string>& fields, std::string& out,
                                              std::vector<std::string>* defaults) const {
    out.clear();
    out.reserve(m_literal_size + 64);
    for (const auto& part : m_parts) {
        out += part.literal;
        if (part.column == k_no_column) {
            continue;
        }
        const std::string_view value =
            part.column < fields.size() ? std::string_view(fields[part.column]) : std::string_view();
        if (!is_blank(value)) {
            out += value;
        } else if (part.fallback) {
            out += *part.fallback;
            if (defaults != nullptr && std::find(defaults->begin(), defaults->end(), part.name) == defaults->end()) {
                defaults->push_back(part.name);
            }
        } else {
            return util::fail("column \"" + part.name + "\" is empty and {{" + part.name + "}} has no default");
        }
    }
    return {};
}

util::Result<std::string> BoundTemplate::render(const std::vector<std::string>& fields) const {
    std::string out;
    TRY(render_into(fields, out));
    return out;
}

std::optional<std::string> nearest_column(std::string_view name, const std::vector<std::string>& header) {
    for (const auto& column : header) {
        if (util::ascii_lower(column) == util::ascii_lower(name)) {
            return column;  // only the case differs
        }
    }
    const std::vector<std::string_view> columns(header.begin(), header.end());
    if (auto near = util::nearest(name, columns)) {
        return std::string(*near);
    }
    return std::nullopt;
}

}  // namespace campaign
