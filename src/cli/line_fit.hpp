#pragma once
// A status line fitted to a terminal's width: parts in a fixed order, each with forms from the
// longest to the shortest; what matters least is shortened or dropped first, until the line fits.

#include <climits>
#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace cli {

// A form of rank k_always is never given up: the part keeps it however narrow the line.
inline constexpr int k_always = INT_MAX;

// One form of a part: its text, and how much it matters to show it rather than the part's next
// form (or, for the last form, rather than nothing). Higher ranks are given up later.
struct PartForm {
    std::string text;
    int rank = 0;
};

// One part of a line: its forms, the longest first; none means the part is not shown.
using LinePart = std::vector<PartForm>;

// Returns `parts` in their order, each at its first form, joined by `separator`, when that takes
// at most `columns` display columns (util::display_width). Else gives up the form of lowest rank
// among those shown (among equal ranks, the later part's) for its part's next form, or for
// nothing when it was the last, and measures again. When only forms of rank k_always are left
// and the line is still too wide, it is clipped to `columns` with "…".
std::string fit_line(const std::vector<LinePart>& parts, std::string_view separator, std::size_t columns);

}  // namespace cli
