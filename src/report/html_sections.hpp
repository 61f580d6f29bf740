#pragma once
// The parts of the HTML report's page, each appended to `out`, and the table helpers they share.
// Every text from the log goes through html_escape().

#include <initializer_list>
#include <string>
#include <string_view>

#include "report/html_details.hpp"
#include "report/summary.hpp"

namespace report {

// A table's opening: a <table> with one header cell per name; names starting with '#' are
// numeric columns (right-aligned).
std::string table_head(std::initializer_list<std::string_view> names);

// One cell of a table row: HTML already escaped, and its CSS class.
struct Cell {
    std::string html;
    std::string_view css_class = {};
};

// One <tr> of `cells`.
std::string table_row(std::initializer_list<Cell> cells);

// A status as a cell: its colour key and its name.
Cell status_cell(results::Status status);

// Returns how a status reads on the page ("Sent", "Would send" for dry_run, …).
std::string_view html_status_label(results::Status status);

// Returns the CSS class that colours `status` ("s-sent", …).
std::string html_status_class(results::Status status);

// Returns `t` on `zone`'s clock beside UTC, escaped: "Sat 2026-11-21 15:00:07 Asia/Kolkata
// (09:30:07 UTC)" (util::format_moment; milliseconds dropped).
std::string html_time(util::TimePoint t, const util::TimeZone& zone);

// Returns `ms` as "1,234 ms".
std::string html_ms(std::int64_t ms);

// The two charts over time, or a line saying why there are none.
void add_html_charts(std::string& out, const Summary& summary, const HtmlDetails& details);

// A dry run's messages: the first ones, the placeholders that fell back to their default and
// how often, the longest; nothing for a log without messages (html_review.cpp).
void add_html_review(std::string& out, const Summary& summary);
// Errors grouped by cause, with counts and a sample message; nothing when all were sent.
void add_html_errors(std::string& out, const Summary& summary);
// Sent and failed rows per template, when the log names more than one; nothing otherwise.
void add_html_templates(std::string& out, const Summary& summary);
// The sent rows' spend: the total, and by category and by country as bars and tables; nothing
// when no sent template row was logged.
void add_html_spend(std::string& out, const Summary& summary);

// The slowest recipients, slowest first; nothing when no request was made.
void add_html_slowest(std::string& out, const Summary& summary, const HtmlDetails& details);

// The first failed or unknown recipients and how many more there are.
void add_html_not_sent(std::string& out, const Summary& summary, const HtmlDetails& details);

// The contact-deletion step and the log's warnings, when there are any.
// The next step: what to do and the exact command; or that nothing is left to do.
void add_html_next_steps(std::string& out, const Summary& summary);

// The first invalid rows, with their reasons.
void add_html_invalid(std::string& out, const Summary& summary, const HtmlDetails& details);

void add_html_cleanup_and_warnings(std::string& out, const Summary& summary);

}  // namespace report
