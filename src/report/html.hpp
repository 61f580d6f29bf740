#pragma once
// `report --format html`: one self-contained page (inline CSS and SVG, no script, nothing
// fetched: its Content-Security-Policy forbids it) for a person to read at a glance.

#include <string>
#include <string_view>

#include "report/html_details.hpp"
#include "report/summary.hpp"
#include "util/result.hpp"

namespace report {

// Returns `text` with & < > " ' written as character references and control characters
// (other than tab and line breaks) as spaces: safe as HTML text and in quoted attributes.
std::string html_escape(std::string_view text);

// Returns the page for `summary` and `details`; reads nothing.
std::string render_html(const Summary& summary, const HtmlDetails& details);

// Reads the log of `summary` once more for the details and returns the page. Fails as
// collect_html_details() does.
util::Result<std::string> format_html(const Summary& summary);

}  // namespace report
