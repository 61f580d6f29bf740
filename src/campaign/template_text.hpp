#pragma once
// A WhatsApp template's own text: the variables its header and body contain ({{1}}, {{2}} … or
// {{name}}), and the text with a row's values filled in, as the recipient will read it.

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "campaign/campaign.hpp"
#include "service/messages.hpp"

namespace campaign {

// The variables of one template text.
struct TemplateVariables {
    int positional = 0;              // the highest {{n}}: the values the text takes in order
    std::vector<std::string> named;  // each {{name}} once, in order of first appearance
    std::vector<int> missing;        // numbers below `positional` the text never uses ({{1}} {{3}})

    bool empty() const { return positional == 0 && named.empty(); }
};

// Returns the variables of `text`: `{{` digits `}}` is positional, `{{` a lower-case word
// (letters, digits, _; starting with a letter) `}}` named; anything else between braces is text.
// A variable used twice counts once.
TemplateVariables variables_of(std::string_view text);

// Returns `text` with its variables replaced: {{n}} by values[n-1] (positional), {{name}} by
// the value at the same place in `names` (named). A variable with no value stays as written.
std::string filled_in(std::string_view text, const std::vector<std::string>& names,
                      const std::vector<std::string>& values);

// Returns the number of characters (code points) of filled_in(text, names, values), without
// building it.
std::size_t filled_in_code_points(std::string_view text, const std::vector<std::string>& names,
                                  const std::vector<std::string>& values);

// What a template's variable may not hold (WhatsApp refuses it): why, or nullopt. Empty (white
// space only), a line break (U+2028 and U+2029 too), a tab, or more than 4 spaces in a row (any
// of Unicode's spaces: NBSP, U+3000 …).
std::optional<std::string> variable_problem(std::string_view value);

}  // namespace campaign

namespace campaign {

// What a recipient's phone shows of a template message: its header (text, or the kind of media
// and its link), body, footer and buttons' texts.
struct TemplateFace {
    std::string header;  // a text header's text, or "[image] LINK" and the like; empty: none
    std::string body;
    std::string footer;
    std::vector<std::string> buttons;
};

// Returns what the recipient of `message` (a rendered row of template campaign `t`) will read:
// the template's header, body and footer with the row's values filled in, and its buttons. The
// template's own text is known once the check before sending found it; until then (--offline)
// the face shows the row's values alone.
TemplateFace face_of(const TemplateMessage& t, const service::OutgoingMessage& message);

// Returns `face` drawn as a chat bubble, one "  │ " line per line of text, buttons below:
//   ┌
//   │ Spring sale
//   │ Hi Asha, 20% off everything.
//   │ Reply STOP to opt out
//   ├ [Tell me more] [Not now]
//   └
// Text from the service or a CSV is made printable first.
std::string phone_view(const TemplateFace& face);

}  // namespace campaign
