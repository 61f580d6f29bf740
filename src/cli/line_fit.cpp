#include "cli/line_fit.hpp"

#include "util/utf8.hpp"

namespace cli {

namespace {

// Which form of each part is shown: an index into its forms, their count once it is dropped.
using Shown = std::vector<std::size_t>;

std::string joined(const std::vector<LinePart>& parts, const Shown& shown, std::string_view separator) {
    std::string line;
    for (std::size_t i = 0; i < parts.size(); ++i) {
        if (shown[i] < parts[i].size()) {
            line += (line.empty() ? "" : std::string(separator)) + parts[i][shown[i]].text;
        }
    }
    return line;
}

// The part whose shown form matters least and may be given up; parts.size() when none may.
std::size_t least_needed(const std::vector<LinePart>& parts, const Shown& shown) {
    std::size_t least = parts.size();
    for (std::size_t i = 0; i < parts.size(); ++i) {
        if (shown[i] >= parts[i].size() || parts[i][shown[i]].rank == k_always) {
            continue;
        }
        if (least == parts.size() || parts[i][shown[i]].rank <= parts[least][shown[least]].rank) {
            least = i;
        }
    }
    return least;
}

}  // namespace

std::string fit_line(const std::vector<LinePart>& parts, std::string_view separator, std::size_t columns) {
    Shown shown(parts.size(), 0);
    for (;;) {
        std::string line = joined(parts, shown, separator);
        if (util::display_width(line) <= columns) {
            return line;
        }
        const std::size_t least = least_needed(parts, shown);
        if (least == parts.size()) {
            return util::clip_to_width(line, columns);
        }
        ++shown[least];
    }
}

}  // namespace cli
