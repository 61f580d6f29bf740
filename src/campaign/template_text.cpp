#include "campaign/template_text.hpp"

#include <algorithm>

#include "campaign/content_rules.hpp"
#include "util/text.hpp"
#include "util/utf8.hpp"

namespace campaign {

namespace {

// A variable at `at` ("{{…}}"): its inside and the length of the whole; nullopt when `at`
// starts none.
struct Found {
    std::string_view inside;
    std::size_t length = 0;
};

std::optional<Found> variable_at(std::string_view text, std::size_t at) {
    if (text.compare(at, 2, "{{") != 0) {
        return std::nullopt;
    }
    const auto close = text.find("}}", at + 2);
    if (close == std::string_view::npos) {
        return std::nullopt;
    }
    const auto inside = text.substr(at + 2, close - at - 2);
    return Found{inside, close + 2 - at};
}

bool is_number(std::string_view s) {
    return !s.empty() && s.size() <= 3 && std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; });
}

bool is_name(std::string_view s) {
    return !s.empty() && s.front() >= 'a' && s.front() <= 'z' && std::all_of(s.begin(), s.end(), [](char c) {
        return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_';
    });
}

}  // namespace

TemplateVariables variables_of(std::string_view text) {
    TemplateVariables out;
    std::vector<bool> used;
    for (std::size_t i = 0; i < text.size(); ++i) {
        const auto found = variable_at(text, i);
        if (!found) {
            continue;
        }
        if (is_number(found->inside)) {
            const int n = std::stoi(std::string(found->inside));
            if (n > 0) {
                out.positional = std::max(out.positional, n);
                used.resize(static_cast<std::size_t>(out.positional) + 1);
                used[static_cast<std::size_t>(n)] = true;
            }
        } else if (is_name(found->inside)) {
            if (std::find(out.named.begin(), out.named.end(), found->inside) == out.named.end()) {
                out.named.emplace_back(found->inside);
            }
        }
        i += found->length - 1;
    }
    for (int n = 1; n < out.positional; ++n) {
        if (!used[static_cast<std::size_t>(n)]) {
            out.missing.push_back(n);
        }
    }
    return out;
}

namespace {

// Calls `piece(part)` for each part of `text` with its variables filled in, in order: runs of
// the text itself and the values, so that a caller can join or measure them without a copy.
template <typename F>
void each_piece(std::string_view text, const std::vector<std::string>& names, const std::vector<std::string>& values,
                F&& piece) {
    std::size_t i = 0;
    while (i < text.size()) {
        const auto open = text.find("{{", i);
        const auto found = open == std::string_view::npos ? std::nullopt : variable_at(text, open);
        if (!found) {
            piece(text.substr(i));  // no variable is left: "{{" without "}}" after it is text
            return;
        }
        const std::string* value = nullptr;
        if (is_number(found->inside) && names.empty()) {
            std::size_t n = 0;
            for (const char c : found->inside) {
                n = n * 10 + static_cast<std::size_t>(c - '0');
            }
            value = n >= 1 && n <= values.size() ? &values[n - 1] : nullptr;
        } else if (is_name(found->inside)) {
            const auto it = std::find(names.begin(), names.end(), found->inside);
            const auto at = static_cast<std::size_t>(it - names.begin());
            value = it != names.end() && at < values.size() ? &values[at] : nullptr;
        }
        piece(text.substr(i, open - i));
        piece(value != nullptr ? std::string_view(*value) : text.substr(open, found->length));
        i = open + found->length;
    }
}

}  // namespace

std::string filled_in(std::string_view text, const std::vector<std::string>& names,
                      const std::vector<std::string>& values) {
    std::string out;
    out.reserve(text.size());
    each_piece(text, names, values, [&out](std::string_view part) { out += part; });
    return out;
}

std::size_t filled_in_code_points(std::string_view text, const std::vector<std::string>& names,
                                  const std::vector<std::string>& values) {
    std::size_t n = 0;
    each_piece(text, names, values, [&n](std::string_view part) { n += code_points(part); });
    return n;
}

namespace {

// Unicode's line breaks: what WhatsApp refuses in a variable as a newline ("\n", "\r", and
// VT, FF, NEL, U+2028 LINE SEPARATOR, U+2029 PARAGRAPH SEPARATOR, which break a line as well).
bool is_line_break(char32_t c) {
    return c == '\n' || c == '\r' || c == 0x0B || c == 0x0C || c == 0x85 || c == 0x2028 || c == 0x2029;
}

// Unicode's space separators (category Zs: the space, NBSP, U+2000-U+200A, U+3000 …), each of
// which counts toward "more than 4 spaces in a row".
bool is_space(char32_t c) {
    return c == ' ' || c == 0xA0 || c == 0x1680 || (c >= 0x2000 && c <= 0x200A) || c == 0x202F || c == 0x205F ||
           c == 0x3000;
}

}  // namespace

std::optional<std::string> variable_problem(std::string_view value) {
    bool blank = true;
    bool line_break = false;
    bool tab = false;
    bool long_run = false;
    int spaces = 0;  // in a row, so far
    for (std::size_t at = 0; at < value.size();) {
        const util::Utf8Char ch = util::decode_utf8(value.substr(at));
        const char32_t c = ch.length > 0 ? ch.code_point : 0xFFFD;  // a byte that is no UTF-8: a character
        at += std::max<std::size_t>(ch.length, 1);
        line_break = line_break || is_line_break(c);
        tab = tab || c == '\t';
        spaces = is_space(c) ? spaces + 1 : 0;
        long_run = long_run || spaces > 4;
        blank = blank && (spaces > 0 || c == '\t' || is_line_break(c));
    }
    if (blank) {
        return "is empty";
    }
    if (line_break) {
        return "holds a line break";
    }
    if (tab) {
        return "holds a tab";
    }
    if (long_run) {
        return "holds more than 4 spaces in a row";
    }
    return std::nullopt;
}

}  // namespace campaign

namespace campaign {

TemplateFace face_of(const TemplateMessage& t, const service::OutgoingMessage& m) {
    TemplateFace face;
    std::vector<std::string> names;
    if (t.named) {
        for (const auto& variable : t.body) {
            names.push_back(variable.name);
        }
    }
    switch (t.header) {
    case HeaderKind::none:
        face.header = t.header_text;  // a fixed text header, when the template has one
        break;
    case HeaderKind::text:
        face.header = t.header_text.empty() ? m.header_value : filled_in(t.header_text, {}, {m.header_value});
        break;
    case HeaderKind::image: face.header = "[image] " + m.header_value; break;
    case HeaderKind::video: face.header = "[video] " + m.header_value; break;
    case HeaderKind::document:
        face.header = "[document] " + (m.filename.empty() ? m.header_value : m.filename + " " + m.header_value);
        break;
    }
    if (t.body_text.empty()) {
        for (std::size_t i = 0; i < m.body_values.size(); ++i) {
            face.body += (i == 0 ? "" : "\n") +
                         (i < names.size() ? "{{" + names[i] + "}}" : "{{" + std::to_string(i + 1) + "}}") + " = " +
                         m.body_values[i];
        }
    } else {
        face.body = filled_in(t.body_text, names, m.body_values);
    }
    face.footer = t.footer;
    face.buttons = t.button_labels;
    return face;
}

std::string phone_view(const TemplateFace& face) {
    std::string out = "  ┌\n";
    const auto lines = [&out](std::string_view text) {
        std::size_t start = 0;
        for (;;) {
            const auto end = text.find('\n', start);
            out += "  │ " + util::printable(text.substr(start, end - start)) + "\n";
            if (end == std::string_view::npos) {
                break;
            }
            start = end + 1;
        }
    };
    for (const std::string* part : {&face.header, &face.body, &face.footer}) {
        if (!part->empty()) {
            lines(*part);
        }
    }
    if (!face.buttons.empty()) {
        out += "  ├";
        for (const auto& button : face.buttons) {
            out += " [" + util::printable(button) + "]";
        }
        out += "\n";
    }
    return out + "  └\n";
}

}  // namespace campaign
