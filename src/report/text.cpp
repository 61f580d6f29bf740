// format_text: the summary for a person, readable at a glance.
#include <fmt/format.h>
#include <algorithm>
#include <array>
#include <string>
#include <vector>

#include "campaign/pricing.hpp"
#include "report/format.hpp"
#include "report/next_steps.hpp"
#include "report/text_cells.hpp"
#include "util/text.hpp"
#include "util/time.hpp"
#include "util/utf8.hpp"
#include "util/zone.hpp"

namespace report {

namespace {

// A value from the log (the service's text, a name from the CSV) on one line, safe to print.
std::string one_line(std::string_view text) {
    return util::printable(text, util::LineBreaks::space);
}

using results::Status;

constexpr int k_label_width = 14;
constexpr std::size_t k_sample_width = 100;

void line(std::string& out, std::string_view label, std::string_view value) {
    out += fmt::format("  {:<{}}{}\n", label, k_label_width - 2, value);
}

std::string percent(std::int64_t part, std::int64_t whole) {
    return whole > 0 ? fmt::format("{:.1f}%", 100.0 * static_cast<double>(part) / static_cast<double>(whole))
                     : std::string();
}

void add_header(std::string& out, const Summary& s) {
    const bool dry = s.header.mode == results::Mode::dry_run;
    out += fmt::format("{:<{}}{}{}\n", "Campaign", k_label_width, one_line(s.header.name), dry ? " (dry run)" : "");
    out += fmt::format("{:<{}}{}\n", "Log", k_label_width, one_line(s.log_path));
    out += fmt::format("{:<{}}{} by wacamp {}{}\n", "Started", k_label_width,
                       util::format_moment(s.header.started_at, s.zone), one_line(s.header.version),
                       s.runs > 1 ? fmt::format("; {} runs", s.runs) : "");
    std::string last;
    if (s.ended && s.last_end) {
        last = fmt::format("{} at {}", one_line(s.last_end->reason), util::format_moment(s.last_end->at, s.zone));
    } else {
        last = "no end record: the run is still going, or stopped abruptly";
    }
    out += fmt::format("{:<{}}{}\n", "Last run", k_label_width, last);
}

// "5,000 rows in /abs/r.csv, unchanged since the log began".
std::string list_line(const Summary& s) {
    const auto& list = s.list;
    const std::string file = one_line(s.latest_header.recipients_file);
    switch (list.found) {
    case ListState::Found::same:
        return fmt::format("{} rows in {}, unchanged since the log began", group_digits(list.rows), file);
    case ListState::Found::changed:
        return fmt::format("{} rows in {}, CHANGED since the log began (the log's rows are of the list as it was)",
                           group_digits(list.rows), file);
    case ListState::Found::missing: break;
    }
    return fmt::format("{} cannot be read now: {}", file, one_line(list.problem));
}

void add_counts(std::string& out, const Summary& s) {
    out += fmt::format("\n{:<{}}{}\n", "List", k_label_width, list_line(s));
    std::string in_log = fmt::format("{} in the log", group_digits(s.rows));
    if (const auto left = not_yet_attempted(s); left > 0) {
        in_log += fmt::format(" · not yet attempted {}", group_digits(left));
    }
    out += fmt::format("{:<{}}{}\n", "Recipients", k_label_width, in_log);
    if (s.rows == 0) {
        return;
    }
    std::size_t width = 1;
    for (Status status : results::k_all_statuses) {
        width = std::max(width, group_digits(s.counts[status]).size());
    }
    for (Status status : results::k_all_statuses) {
        const auto n = s.counts[status];
        const bool always = status == Status::sent && s.header.mode == results::Mode::send;
        if (n == 0 && !always) {
            continue;  // only what happened; `sent` of a real run always: people look for it
        }
        std::string note;
        if (status == Status::unknown && s.in_flight > 0) {
            note =
                fmt::format("   {} in flight when a run stopped: may have been delivered", group_digits(s.in_flight));
        }
        line(out, results::to_string(status),
             fmt::format("{:>{}}  {:>6}{}", group_digits(n), width, percent(n, s.rows), note));
    }
}

// "HTTP 400", "HTTP 400 #131050" with Meta's error code, "#131050", "others" or "-".
std::string http_and_code(const ErrorGroup& g) {
    if (g.others) {
        return "others";
    }
    std::string cell = g.http_status ? fmt::format("HTTP {}", *g.http_status) : "";
    if (g.error_code) {
        cell += fmt::format("{}#{}", cell.empty() ? "" : " ", *g.error_code);
    }
    return cell.empty() ? "-" : cell;
}

void add_errors(std::string& out, const Summary& s) {
    if (s.errors.empty()) {
        return;
    }
    out += "\nNot sent, by cause\n";
    std::vector<std::array<std::string, 5>> cells;
    for (const auto& g : s.errors) {
        cells.push_back({group_digits(g.count), std::string(results::to_string(g.status)),
                         g.cause == results::Cause::none ? "-" : std::string(results::to_string(g.cause)),
                         http_and_code(g), util::clip_utf8(one_line(g.sample), k_sample_width)});
    }
    out += table(cells, {Align::right, Align::left, Align::left, Align::left, Align::left});
}

void add_unknown(std::string& out, const Summary& s) {
    const auto unknown = s.counts[Status::unknown];
    if (s.unknown_rows.empty() || s.header.mode != results::Mode::send) {
        return;
    }
    out += fmt::format("\nUnknown: {} went out and got no answer; each may have been delivered\n",
                       util::counted(unknown, "request"));
    for (const auto& u : s.unknown_rows) {
        out += fmt::format("  row {:<8} {}\n", u.row,
                           u.error.empty() ? std::string("-") : util::clip_utf8(one_line(u.error), k_sample_width));
    }
    if (unknown > static_cast<std::int64_t>(s.unknown_rows.size())) {
        out += fmt::format("  and {} more (report --format csv lists every row)\n",
                           group_digits(unknown - static_cast<std::int64_t>(s.unknown_rows.size())));
    }
}

void add_templates(std::string& out, const Summary& s) {
    if (s.templates.empty()) {
        return;
    }
    out += "\nBy template\n";
    std::size_t width = 1;
    for (const auto& t : s.templates) {
        width = std::max(width, util::display_width(one_line(t.name)));
    }
    for (const auto& t : s.templates) {
        const auto name = one_line(t.name);
        out += fmt::format("  {}{}  sent {} · failed {}\n", name, std::string(width - util::display_width(name), ' '),
                           group_digits(t.sent), group_digits(t.failed));
    }
}

// Amounts for people as the plan's cost lines write them ("1,234.50").
using campaign::money_text;

// The spend of the sent rows: the total, then by category and the countries that cost most, in
// aligned columns (key, messages, amount).
void add_spend(std::string& out, const Summary& s) {
    const Spend& spend = s.spend;
    if (spend.messages == 0 && spend.without_price == 0) {
        return;
    }
    const std::string currency = one_line(spend.currency);
    out += "\nSpend\n";
    line(out, "total",
         fmt::format("about {} {} for {} sent message{}, each at its price when it was sent", money_text(spend.total),
                     currency, group_digits(spend.messages), spend.messages == 1 ? "" : "s"));
    std::vector<std::array<std::string, 3>> rows;  // key, messages, amount; each row's label in `labels`
    std::vector<std::string> labels;
    const auto add = [&](std::string_view label, std::string key, std::int64_t messages, double amount) {
        labels.emplace_back(label);
        rows.push_back({std::move(key), group_digits(messages), money_text(amount)});
    };
    for (std::size_t i = 0; i < spend.by_category.size(); ++i) {
        const auto& c = spend.by_category[i];
        add(i == 0 ? "by category" : "", util::clip_utf8(one_line(c.key), k_sample_width), c.messages, c.amount);
    }
    const std::size_t shown = std::min(spend.by_country.size(), campaign::k_cost_countries_shown);
    for (std::size_t i = 0; i < shown; ++i) {
        const auto& c = spend.by_country[i];
        add(i == 0 ? "by country" : "", one_line(c.key), c.messages, c.amount);
    }
    if (spend.by_country.size() > shown) {
        const auto [messages, amount] = campaign::total_from(spend.by_country, shown);
        add("", fmt::format("{} others", spend.by_country.size() - shown), messages, amount);
    }
    std::array<std::size_t, 3> width{};
    for (const auto& row : rows) {
        for (std::size_t i = 0; i < row.size(); ++i) {
            width[i] = std::max(width[i], util::display_width(row[i]));
        }
    }
    for (std::size_t r = 0; r < rows.size(); ++r) {
        const auto& row = rows[r];
        line(out, labels[r],
             fmt::format("{}{}  {:>{}}  {:>{}}", row[0], std::string(width[0] - util::display_width(row[0]), ' '),
                         row[1], width[1], row[2], width[2]));
    }
    if (spend.without_price > 0) {
        line(out, "no price",
             fmt::format("{} sent template message{} without a price (sent before wacamp priced sends, or "
                         "recovered from the ledger): not counted",
                         group_digits(spend.without_price), spend.without_price == 1 ? "" : "s"));
    }
    if (spend.mixed_currencies) {
        line(out, "currency",
             fmt::format("runs used cards of different currencies: the total adds them as they are "
                         "({} is the latest)",
                         currency));
    }
    if (!spend.note.empty()) {
        line(out, "country", one_line(spend.note));
    }
    line(out, "", "an estimate from the rate card: volume tiers and open service windows cost less");
}

// A dry run's estimated cost (its `end` record's plan.cost), as the dry run printed it.
void add_plan_cost(std::string& out, const Summary& s) {
    if (s.header.mode != results::Mode::dry_run || !s.last_end || !s.last_end->plan || !s.last_end->plan->cost) {
        return;
    }
    const results::CostSummary& cost = *s.last_end->plan->cost;
    campaign::CostEstimate estimate;
    estimate.currency = one_line(cost.currency);
    estimate.total = cost.total;
    estimate.messages = cost.messages;
    estimate.category = one_line(cost.category);
    estimate.rate_card = one_line(cost.rate_card);
    if (cost.effective) {
        estimate.effective = one_line(*cost.effective);
    }
    for (const auto& c : cost.by_country) {
        estimate.by_country.push_back({one_line(c.country), c.messages, c.price, c.amount});
    }
    if (estimate.category.empty()) {
        estimate.note = "text and image messages are free inside the customer-service window";
    }
    out += "\nEstimated cost (the dry run's plan)\n";
    const std::string lines = campaign::describe(estimate);
    for (std::size_t at = 0; at < lines.size();) {
        const std::size_t end = lines.find('\n', at);
        out += "  " + lines.substr(at, end - at) + "\n";
        at = end == std::string::npos ? lines.size() : end + 1;
    }
}

void add_timing(std::string& out, const Summary& s) {
    out += "\nTiming\n";
    const auto span = std::chrono::duration_cast<util::Millis>(s.last_at - s.first_at);
    line(out, "duration",
         fmt::format("{}  ({} to {})", util::format_duration(span, util::DurationStyle::report),
                     util::format_moment(s.first_at, s.zone), util::format_moment(s.last_at, s.zone)));
    if (s.attempts == 0 && s.latency.count == 0) {
        line(out, "requests", "none");
        return;
    }
    std::string rate = s.send_rate ? fmt::format("{:.2f} sent/s", *s.send_rate) : "-";
    line(out, "send rate",
         fmt::format("{}  ({} sent in {} of sending)", rate, group_digits(s.sent_results),
                     util::format_duration(s.sending_span, util::DurationStyle::report)));
    line(out, "requests", fmt::format("{}, {} rate limited", group_digits(s.attempts), group_digits(s.rate_limited)));
    if (s.retried > 0) {
        line(out, "retried", retried_line(s));
    }
    if (s.latency.count > 0) {
        line(out, "latency",
             fmt::format("p50 {} ms  p95 {} ms  p99 {} ms  max {} ms  ({} responses)", group_digits(s.latency.p50),
                         group_digits(s.latency.p95), group_digits(s.latency.p99), group_digits(s.latency.max),
                         group_digits(s.latency.count)));
    }
}

// A message on one line: its text, or its caption and image address.
std::string message_line(const results::MessageContent& m) {
    if (m.is_template()) {
        return one_line(results::readable_text(m));
    }
    if (!m.image) {
        return one_line(m.text);
    }
    return m.label ? fmt::format("[image {}] {}", one_line(m.source), one_line(*m.label))
                   : fmt::format("[image {}]", one_line(m.source));
}

void add_review(std::string& out, const Summary& s) {
    const Review& r = s.review;
    if (r.messages == 0) {
        return;
    }
    out += fmt::format("\n{:<{}}{} rendered, {} with a default\n", "Messages", k_label_width, group_digits(r.messages),
                       group_digits(r.rows_with_defaults));
    if (!r.defaults.empty()) {
        std::string list;
        for (const auto& d : r.defaults) {
            list +=
                fmt::format("{}{{{{{}}}}} {}", list.empty() ? "" : ", ", one_line(d.placeholder), group_digits(d.rows));
        }
        line(out, "defaults", util::clip_utf8(list, 3 * k_sample_width));
    }
    std::string longest;
    for (const auto& m : r.longest) {
        longest += fmt::format("{}row {} ({})", longest.empty() ? "" : ", ", m.row,
                               group_digits(static_cast<std::int64_t>(m.characters)));
    }
    line(out, "longest", longest + " characters");
    constexpr std::size_t k_samples = 3;
    for (std::size_t i = 0; i < r.first.size() && i < k_samples; ++i) {
        const auto& m = r.first[i];
        line(out, i == 0 ? "samples" : "",
             fmt::format("row {} → {}: {}", m.row, one_line(m.wa_id),
                         util::clip_utf8(message_line(m.message), k_sample_width)));
    }
    line(out, "every one", "--format csv (a row per recipient, for a spreadsheet) or --format html");
}

void add_next_steps(std::string& out, const Summary& s) {
    out += "\nNext step\n";
    if (s.next_steps.empty()) {
        out += "  nothing left to do: every recipient was sent, invalid or skipped\n";
        return;
    }
    for (const auto& step : s.next_steps) {
        out += fmt::format("  {}: {}\n", step.what, one_line(step.command));
    }
}

void add_cleanup(std::string& out, const Summary& s) {
    if (!s.cleanup && s.without_user_id == 0) {
        return;
    }
    out += "\nCleanup\n";
    if (s.cleanup) {
        const auto& c = *s.cleanup;
        line(out, "batches",
             fmt::format("{}: {} deleted, {} failed", group_digits(c.batches), group_digits(c.deleted),
                         group_digits(c.failed)));
        line(out, "contacts", fmt::format("{} deleted", group_digits(c.ids_deleted)));
        if (c.last_failed) {
            line(out, "state", "the last batch failed (the next step below finishes it)");
        }
    }
    if (s.without_user_id > 0) {
        line(out, "no user_id", without_user_id_line(s));
    }
}

void add_warnings(std::string& out, const Summary& s) {
    if (s.warning_count == 0) {
        return;
    }
    out += fmt::format("\nWarnings ({})\n", group_digits(s.warning_count));
    for (const auto& w : s.warnings) {
        out += fmt::format("  {}\n", one_line(w));
    }
    const auto shown = static_cast<std::int64_t>(s.warnings.size());
    if (s.warning_count > shown) {
        out += fmt::format("  … and {} more\n", group_digits(s.warning_count - shown));
    }
}

}  // namespace

std::string format_text(const Summary& summary) {
    std::string out;
    add_header(out, summary);
    add_counts(out, summary);
    add_errors(out, summary);
    add_unknown(out, summary);
    add_templates(out, summary);
    add_spend(out, summary);
    add_plan_cost(out, summary);
    add_review(out, summary);
    add_timing(out, summary);
    add_cleanup(out, summary);
    add_next_steps(out, summary);
    add_warnings(out, summary);
    return out;
}

}  // namespace report
