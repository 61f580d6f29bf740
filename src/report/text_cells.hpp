#pragma once
// Small text helpers for the text report: numbers, cells, aligned tables (durations are
// util::format_duration's, DurationStyle::report).

#include <array>
#include <cstdint>
#include <initializer_list>
#include <string>
#include <string_view>
#include <vector>

#include "util/text.hpp"

namespace report {

struct Summary;

// The one grouping of digits by thousands, wacamp's (util/text.hpp): 1234567 → "1,234,567".
using util::group_digits;

enum class Align { left, right };

// Returns `rows` as lines indented by two spaces, columns two spaces apart and padded to
// their widest cell per `align`; the last column is not padded.
std::string table(const std::vector<std::array<std::string, 5>>& rows, std::initializer_list<Align> align);

// Returns the requests tried again, by kind, for the text and HTML reports:
// "414 requests — 5xx 380, no answer 34".
std::string retried_line(const Summary& summary);

// Returns what the report says of the rows the deletion step cannot delete for an empty user_id:
// "2 rows to delete have an empty user_id (rows 4, 9): …", the rows listed as far as the summary
// names them.
std::string without_user_id_line(const Summary& summary);

}  // namespace report
