// The HTML report's section on a dry run's messages: what a reviewer reads before sending.
#include <fmt/format.h>

#include "report/html.hpp"
#include "report/html_sections.hpp"
#include "report/text_cells.hpp"
#include "util/text.hpp"

namespace report {

namespace {

// A message as a chat bubble, the way the recipient's phone shows it: a text; an image's address
// as text and its caption; a template's header, body and footer, its buttons below. Never an
// <img>: opening the report must not fetch anything (and the page's policy would block it).
std::string message_html(const results::MessageContent& m) {
    const auto shown = [](std::string_view text) { return html_escape(util::printable(text, util::LineBreaks::keep)); };
    std::string out = R"(<div class="bubble">)";
    if (m.is_template()) {
        const auto& p = m.preview;
        if (!p.header.empty()) {
            out += fmt::format(R"(<div class="head text">{}</div>)", shown(p.header));
        }
        out += fmt::format(R"(<div class="text">{}</div>)", shown(p.body));
        if (!p.footer.empty()) {
            out += fmt::format(R"(<div class="foot text">{}</div>)", shown(p.footer));
        }
        out += "</div>";
        if (!p.buttons.empty()) {
            out += R"(<div class="buttons">)";
            for (const auto& button : p.buttons) {
                out += fmt::format("<span>{}</span>", shown(button));
            }
            out += "</div>";
        }
        return out;
    }
    if (!m.image) {
        return out + fmt::format(R"(<div class="text">{}</div></div>)", shown(m.text));
    }
    out += fmt::format(R"(<div class="src">image <code>{}</code></div>)", shown(m.source));
    if (m.label) {
        out += fmt::format(R"(<div class="text">{}</div>)", shown(*m.label));
    }
    return out + "</div>";
}

std::string outcome_html(const ReviewedMessage& m) {
    return m.error.empty()
               ? message_html(m.message)
               : message_html(m.message) + fmt::format(R"(<div class="why">{}</div>)", html_escape(m.error));
}

void add_defaults(std::string& out, const Review& r) {
    if (r.defaults.empty()) {
        out += R"(<p class="note">No placeholder fell back to its default.</p>)";
        return;
    }
    out += "<h3>Placeholders that fell back to their default</h3>";
    out += table_head({"Placeholder", "#Rows", "#Share"});
    for (const auto& d : r.defaults) {
        const double share = 100.0 * static_cast<double>(d.rows) / static_cast<double>(r.messages);
        out += table_row({{fmt::format("<code>{{{{{}}}}}</code>", html_escape(d.placeholder))},
                          {group_digits(d.rows), "num"},
                          {fmt::format("{:.1f}%", share), "num"}});
    }
    out += "</tbody></table>";
    if (r.other_placeholders > 0) {
        out += fmt::format(R"(<p class="note">… and {} fallbacks of other placeholders.</p>)",
                           group_digits(r.other_placeholders));
    }
}

void add_messages(std::string& out, std::string_view id, const std::vector<ReviewedMessage>& messages,
                  bool with_length) {
    out += fmt::format(R"(<table id="{}"><thead><tr><th class="num">Row</th><th>Number</th><th>Name</th>)", id);
    out += with_length ? R"(<th class="num">Characters</th>)" : "";
    out += "<th>Status</th><th>Message</th></tr></thead><tbody>\n";
    for (const auto& m : messages) {
        out += fmt::format(R"(<tr><td class="num">{}</td><td>{}</td><td>{}</td>)", m.row, html_escape(m.wa_id),
                           html_escape(m.user_name));
        if (with_length) {
            out += fmt::format(R"(<td class="num">{}</td>)", group_digits(static_cast<std::int64_t>(m.characters)));
        }
        const Cell status = status_cell(m.status);
        out += fmt::format(R"(<td class="{}">{}</td><td class="message">{}</td></tr>)", status.css_class, status.html,
                           outcome_html(m));
        out += '\n';
    }
    out += "</tbody></table>";
}

}  // namespace

void add_html_review(std::string& out, const Summary& s) {
    const Review& r = s.review;
    if (r.messages == 0) {
        return;
    }
    out += fmt::format(R"(<section id="messages"><h2>Messages ({})</h2><p>{} rendered; {} with a placeholder )"
                       "that fell back to its default.</p>",
                       group_digits(r.messages), group_digits(r.messages), group_digits(r.rows_with_defaults));
    add_defaults(out, r);
    out += fmt::format("<h3>The longest (top {})</h3>", Review::k_longest_kept);
    add_messages(out, "longest", r.longest, true);
    out += fmt::format("<h3>{} messages</h3>",
                       r.messages > static_cast<std::int64_t>(r.first.size())
                           ? fmt::format("The first {}", group_digits(static_cast<std::int64_t>(r.first.size())))
                           : std::string("All"));
    add_messages(out, "all-messages", r.first, false);
    const auto shown = static_cast<std::int64_t>(r.first.size());
    if (r.messages > shown) {
        out += fmt::format(R"(<p class="note" id="messages-more">… and {} more; )"
                           "<code>wacamp report {} --format csv</code> has every message.</p>",
                           group_digits(r.messages - shown), html_escape(s.log_path));
    }
    out += "</section>\n";
}

}  // namespace report
