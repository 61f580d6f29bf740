#pragma once
// What a terminal was shown as wacamp's live line, for tests that read a pseudo-terminal.

#include <string>
#include <string_view>
#include <vector>

namespace test_support {

// Returns each live line drawn on `screen`: what follows a redraw ("\r\x1b[K") up to the next
// control character. A redraw followed by nothing (the line cleared) or by a whole line, ended
// by a line break (a notice or the summary, written once the line was cleared), is left out.
inline std::vector<std::string> live_lines(std::string_view screen) {
    constexpr std::string_view k_redraw = "\r\x1b[K";
    std::vector<std::string> lines;
    for (auto at = screen.find(k_redraw); at != std::string_view::npos; at = screen.find(k_redraw, at + 1)) {
        const auto from = at + k_redraw.size();
        const auto end = screen.find_first_of("\r\n\x1b", from);
        const auto line = screen.substr(from, end == std::string_view::npos ? std::string_view::npos : end - from);
        // What ends with a line break came after the live line was cleared: a notice, the summary.
        const bool ended = end != std::string_view::npos && screen[end] == '\n';
        if (!line.empty() && !ended) {
            lines.emplace_back(line);
        }
    }
    return lines;
}

}  // namespace test_support
