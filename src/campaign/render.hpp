#pragma once
// Message templates with {{column}} and {{column|default}} placeholders: parsed once,
// bound to the CSV header once, then rendered per row with no lookups by name.

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "util/result.hpp"

namespace campaign {

class BoundTemplate;

class Template {
public:
    // Parses `text`. Whitespace around a name and around a default is ignored; `{{x|}}` has
    // an empty default. Fails on a "{{" with no "}}" or an empty name, giving the character.
    static util::Result<Template> parse(std::string_view text);

    // Returns this template with each name resolved to its index in `header`. Fails on the
    // first name that is no column: "placeholder {{date}} names no column; columns are: …".
    util::Result<BoundTemplate> bind(const std::vector<std::string>& header) const;

    const std::string& text() const { return m_text; }

private:
    friend class BoundTemplate;
    struct Part {
        std::string literal;                  // text before the placeholder
        std::string name;                     // empty: no placeholder (the last part)
        std::optional<std::string> fallback;  // the default, when one is given
    };

    std::string m_text;
    std::vector<Part> m_parts;
};

class BoundTemplate {
public:
    // Writes the message for the row `fields` (indexed like the header) into `out`,
    // replacing its content. A value goes in as it is; a value that is empty or only
    // whitespace takes the default. Fails when there is none:
    // `column "date" is empty and {{date}} has no default`. When `defaults` is given, the name of
    // each placeholder that took its default is added to it (once).
    util::Result<void> render_into(const std::vector<std::string>& fields, std::string& out,
                                   std::vector<std::string>* defaults = nullptr) const;

    // As render_into(), returning the message.
    util::Result<std::string> render(const std::vector<std::string>& fields) const;

private:
    friend class Template;
    static constexpr std::size_t k_no_column = static_cast<std::size_t>(-1);
    struct Part {
        std::string literal;
        std::size_t column = k_no_column;  // k_no_column: literal only
        std::string name;                  // for messages
        std::optional<std::string> fallback;
    };

    std::vector<Part> m_parts;
    std::size_t m_literal_size = 0;  // to reserve once per message
};

// Returns the column of `header` that `name` (a placeholder's or a mapped column's, found in
// none) most likely meant: the one that differs only in case, else the nearest by edit distance
// when near enough to be a typo (util::nearest). Nothing when none is.
std::optional<std::string> nearest_column(std::string_view name, const std::vector<std::string>& header);

}  // namespace campaign
