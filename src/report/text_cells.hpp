#pragma once
// Small text helpers for the text report: numbers, durations, cells, aligned tables.

#include <array>
#include <cstdint>
#include <initializer_list>
#include <string>
#include <string_view>
#include <vector>

#include "util/clock.hpp"

namespace report {

// Returns `n` with thousands separators: 1234567 → "1,234,567".
std::string group_digits(std::int64_t n);

// Returns `d` for a person: "350 ms", "4.2 s", "12m 03s", "2h 03m 04s", "3d 02h 10m".
// Negative durations read as 0.
std::string format_duration(util::Millis d);

enum class Align { left, right };

// Returns `rows` as lines indented by two spaces, columns two spaces apart and padded to
// their widest cell per `align`; the last column is not padded.
std::string table(const std::vector<std::array<std::string, 5>>& rows, std::initializer_list<Align> align);

}  // namespace report
