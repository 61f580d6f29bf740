#include "util/nearest.hpp"

#include <algorithm>
#include <vector>

namespace util {

std::size_t edit_distance(std::string_view a, std::string_view b) {
    std::vector<std::size_t> row(b.size() + 1);
    for (std::size_t j = 0; j <= b.size(); ++j) {
        row[j] = j;
    }
    for (std::size_t i = 1; i <= a.size(); ++i) {
        std::size_t diagonal = row[0];
        row[0] = i;
        for (std::size_t j = 1; j <= b.size(); ++j) {
            const std::size_t above = row[j];
            const std::size_t cost = a[i - 1] == b[j - 1] ? 0 : 1;
            row[j] = std::min({row[j] + 1, row[j - 1] + 1, diagonal + cost});
            diagonal = above;
        }
    }
    return row[b.size()];
}

std::optional<std::string_view> nearest(std::string_view word, std::span<const std::string_view> candidates) {
    std::optional<std::string_view> best;
    std::size_t best_distance = 0;
    for (auto candidate : candidates) {
        const std::size_t d = edit_distance(word, candidate);
        if (!best || d < best_distance) {
            best = candidate;
            best_distance = d;
        }
    }
    // Near enough to be a typo ("per_sec" → "per_second"), not just any other word.
    const std::size_t longest = best ? std::max(word.size(), best->size()) : 0;
    if (!best || best_distance > std::max<std::size_t>(2, (longest + 1) / 3)) {
        return std::nullopt;
    }
    return best;
}

}  // namespace util
