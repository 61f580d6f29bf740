#pragma once
// "Did you mean …?": the nearest of some known words to a word that is none of them.

#include <cstddef>
#include <optional>
#include <span>
#include <string_view>

namespace util {

// Returns how many single-byte insertions, deletions and substitutions turn `a` into `b`
// (Levenshtein distance).
std::size_t edit_distance(std::string_view a, std::string_view b);

// Returns the candidate nearest to `word` when it is near enough to be a typo of it (at most two
// edits, or a third of the longer word's length): "per_secnd" → "per_second", "ordr_id" →
// "order_id". Nothing when none is, or there is no candidate. Ties go to the first candidate.
std::optional<std::string_view> nearest(std::string_view word, std::span<const std::string_view> candidates);

}  // namespace util
