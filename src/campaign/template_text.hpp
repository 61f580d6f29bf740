#pragma once
// A WhatsApp template's own text: the variables its header and body contain ({{1}}, {{2}} … or
// {{name}}), and the text with a row's values filled in, as the recipient will read it.

#include <optional>
#include <string>
#include <string_view>
#include <vector>

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

// What a template's variable may not hold (WhatsApp refuses it): why, or nullopt. Empty, a line
// break, a tab, or more than 4 spaces in a row.
std::optional<std::string> variable_problem(std::string_view value);

}  // namespace campaign
