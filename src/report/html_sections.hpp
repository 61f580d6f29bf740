#pragma once
// The parts of the HTML report's page, each appended to `out`; used by html.cpp only.
// Every text from the log goes through html_escape().

#include <string>
#include <string_view>

#include "report/html_details.hpp"
#include "report/summary.hpp"

namespace report {

// Returns how a status reads on the page ("Sent", "Would send" for dry_run, …).
std::string_view html_status_label(results::Status status);

// Returns the CSS class that colours `status` ("s-sent", …).
std::string html_status_class(results::Status status);

// Returns `t` as "2026-11-21 09:30:00 UTC" (milliseconds dropped).
std::string html_time(util::TimePoint t);

// Returns `ms` as "1,234 ms".
std::string html_ms(std::int64_t ms);

// The two charts over time, or a line saying why there are none.
void add_html_charts(std::string& out, const Summary& summary, const HtmlDetails& details);

// Errors grouped by cause, with counts and a sample message; nothing when all were sent.
void add_html_errors(std::string& out, const Summary& summary);

// The slowest recipients, slowest first; nothing when no request was made.
void add_html_slowest(std::string& out, const HtmlDetails& details);

// The first failed or unknown recipients and how many more there are.
void add_html_not_sent(std::string& out, const Summary& summary, const HtmlDetails& details);

// The contact-deletion step and the log's warnings, when there are any.
void add_html_cleanup_and_warnings(std::string& out, const Summary& summary);

}  // namespace report
