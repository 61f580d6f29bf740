#pragma once
// A Summary as text for a person or as JSON for a script.

#include <string>

#include "report/summary.hpp"

namespace report {

// Returns the summary as aligned text, sections separated by blank lines, warnings last.
std::string format_text(const Summary& summary);

// Returns the summary as one pretty-printed JSON object ending in '\n'; the field names are
// listed in json.cpp and are stable.
std::string format_json(const Summary& summary);

}  // namespace report
