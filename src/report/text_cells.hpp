#pragma once
// Small text helpers for the text report: numbers, cells, aligned tables (durations are
// util::format_duration's, DurationStyle::report).

#include <array>
#include <cstdint>
#include <initializer_list>
#include <string>
#include <string_view>
#include <vector>

namespace report {

// Returns `n` with thousands separators: 1234567 → "1,234,567".
std::string group_digits(std::int64_t n);

enum class Align { left, right };

// Returns `rows` as lines indented by two spaces, columns two spaces apart and padded to
// their widest cell per `align`; the last column is not padded.
std::string table(const std::vector<std::array<std::string, 5>>& rows, std::initializer_list<Align> align);

}  // namespace report
