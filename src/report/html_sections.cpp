// The HTML report's sections below the figures: charts over time and the tables.
#include <fmt/format.h>

#include "campaign/pricing.hpp"
#include "report/html.hpp"
#include "report/html_chart.hpp"
#include "report/html_sections.hpp"
#include "report/text_cells.hpp"
#include "util/text.hpp"
#include "util/time.hpp"

namespace report {

namespace {

using results::Status;

std::string http_cell(const std::optional<int>& http_status) {
    return http_status ? std::to_string(*http_status) : "–";
}

std::string cause_cell(results::Cause cause) {
    return cause == results::Cause::none ? "–" : std::string(results::to_string(cause));
}

Chart rate_chart(const Timeline& timeline) {
    const double seconds = static_cast<double>(timeline.width().count()) / 1000.0;
    Chart chart{.id = "chart-rate",
                .title = "Request outcomes per second over time",
                .unit = "/s",
                .kind = ChartKind::stacked_bars,
                .bucket_width = timeline.width(),
                .series = {{"sent", "c-sent", {}}, {"not sent (failed or throttled)", "c-failed", {}}}};
    for (const auto& b : timeline.buckets()) {
        chart.series[0].values.emplace_back(static_cast<double>(b.sent) / seconds);
        chart.series[1].values.emplace_back(static_cast<double>(b.not_sent) / seconds);
    }
    return chart;
}

Chart latency_chart(const Timeline& timeline) {
    Chart chart{.id = "chart-latency",
                .title = "Response latency over time, p50 and p95",
                .unit = " ms",
                .kind = ChartKind::lines,
                .bucket_width = timeline.width(),
                .series = {{"p50", "c-p50", {}}, {"p95", "c-p95", {}}}};
    for (const auto& b : timeline.buckets()) {
        auto to_double = [](std::optional<std::int64_t> v) -> std::optional<double> {
            return v ? std::optional<double>(static_cast<double>(*v)) : std::nullopt;
        };
        chart.series[0].values.push_back(to_double(Timeline::percentile(b, 50)));
        chart.series[1].values.push_back(to_double(Timeline::percentile(b, 95)));
    }
    return chart;
}

// A dry run's plan as a chart: messages per hour from the first send's.
Chart plan_chart(const results::PlanSummary& plan) {
    Chart chart{.id = "chart-plan",
                .title = "Messages per hour the plan would send",
                .unit = "/h",
                .kind = ChartKind::stacked_bars,
                .bucket_width = std::chrono::hours(1),
                .series = {{"would send", "c-sent", {}}}};
    for (const auto n : plan.per_hour) {
        chart.series[0].values.emplace_back(static_cast<double>(n));
    }
    return chart;
}

// The plan of the dry run `s` logged: when, and at how many an hour, its rows would go out.
void add_html_plan(std::string& out, const results::PlanSummary& plan, const util::TimeZone& zone) {
    out += R"(<section id="plan"><h2>The plan</h2>)";
    if (plan.kind == "unbounded") {
        out += fmt::format(R"(<p class="note">{} messages as fast as the service answers: an unlimited rate with no )"
                           "per_day and no window has no finish time.</p></section>\n",
                           group_digits(plan.messages));
        return;
    }
    if (!plan.first || !plan.last || plan.per_hour.empty()) {
        out += fmt::format(R"(<p class="note">{} messages, none would be sent (see the dry run's output).</p>)"
                           "</section>\n",
                           group_digits(plan.messages));
        return;
    }
    out += svg_chart(plan_chart(plan));
    out += fmt::format(R"(<p class="note">{} messages from {} to {} ({} day{}); each bar is one hour, from the )"
                       "first send's.</p></section>\n",
                       group_digits(plan.messages), html_time(*plan.first, zone), html_time(*plan.last, zone),
                       plan.days, plan.days == 1 ? "" : "s");
}

}  // namespace

// A table's opening: a <table> with one header cell per name; names starting with '#' are
// numeric columns (right-aligned).
std::string table_head(std::initializer_list<std::string_view> names) {
    std::string out = "<table><thead><tr>";
    for (auto name : names) {
        const bool num = name.starts_with('#');
        out += fmt::format("<th{}>{}</th>", num ? R"( class="num")" : "", num ? name.substr(1) : name);
    }
    return out + "</tr></thead><tbody>\n";
}

std::string table_row(std::initializer_list<Cell> cells) {
    std::string out = "<tr>";
    for (const auto& c : cells) {
        out += c.css_class.empty() ? fmt::format("<td>{}</td>", c.html)
                                   : fmt::format(R"(<td class="{}">{}</td>)", c.css_class, c.html);
    }
    return out + "</tr>\n";
}

Cell status_cell(Status status) {
    return {fmt::format(R"(<span class="key {}"></span>{})", html_status_class(status), results::to_string(status)),
            "nowrap"};
}

std::string_view html_status_label(Status status) {
    switch (status) {
    case Status::sent: return "Sent";
    case Status::failed: return "Failed";
    case Status::invalid: return "Invalid";
    case Status::skipped: return "Skipped";
    case Status::dry_run: return "Would send";
    case Status::unknown: return "Unknown";
    }
    return "?";
}

std::string html_status_class(Status status) {
    return "s-" + std::string(results::to_string(status));
}

std::string html_time(util::TimePoint t, const util::TimeZone& zone) {
    return html_escape(util::format_moment(t, zone));
}

std::string html_ms(std::int64_t ms) {
    return group_digits(ms) + " ms";
}

// The estimated cost the dry run kept (plan.cost): the total and each country's share.
void add_html_cost(std::string& out, const results::CostSummary& cost) {
    out += R"(<section id="cost"><h2>The estimated cost</h2>)";
    if (cost.category.empty()) {
        out += R"(<p class="note">Text and image messages cost nothing: they are free inside the )"
               "customer-service window.</p></section>\n";
        return;
    }
    out += fmt::format(R"(<p class="note">About {:.2f} {} for {} {} messages (rate card {}{}); an upper bound: )"
                       "failed sends cost nothing, volume tiers and open service windows cost less.</p>",
                       cost.total, html_escape(cost.currency), group_digits(cost.messages), html_escape(cost.category),
                       html_escape(cost.rate_card),
                       cost.effective ? ", effective " + html_escape(*cost.effective) : std::string());
    out += table_head({"Country", "#Messages", "#Price", "#Amount"});
    for (const auto& c : cost.by_country) {
        out += table_row({{html_escape(c.country)},
                          {group_digits(c.messages), "num"},
                          {fmt::format("{:g}", c.price), "num"},
                          {fmt::format("{:.2f}", c.amount), "num"}});
    }
    out += "</table></section>\n";
}

void add_html_charts(std::string& out, const Summary& s, const HtmlDetails& d) {
    const auto& t = d.timeline;
    const bool dry = s.header.mode == results::Mode::dry_run;
    if (dry && s.last_end && s.last_end->plan) {
        add_html_plan(out, *s.last_end->plan, s.zone);
        if (s.last_end->plan->cost) {
            add_html_cost(out, *s.last_end->plan->cost);
        }
    }
    if (t.empty()) {
        out += fmt::format(R"(<section id="over-time"><h2>Over time</h2><p class="empty">No )"
                           "requests in this log{}, so there is nothing to chart.</p></section>\n",
                           dry ? " (a dry run sends nothing)" : "");
        return;
    }
    const std::string since = html_time(t.origin(), s.zone);
    const std::string width = util::format_duration(t.width(), util::DurationStyle::axis);
    out += R"(<section id="throughput"><h2>Sends per second</h2>)" + svg_chart(rate_chart(t));
    out += fmt::format(R"(<p class="note">Time since {}; each bar is {}: request outcomes )"
                       "recorded in it, per second.</p></section>\n",
                       since, width);
    out += R"(<section id="latency"><h2>Latency over time</h2>)" + svg_chart(latency_chart(t));
    out += fmt::format(R"(<p class="note">Time since {}; p50 and p95 of the responses received )"
                       "in each {} (within 8 %).</p></section>\n",
                       since, width);
}

void add_html_errors(std::string& out, const Summary& s) {
    out += R"(<section id="errors"><h2>Not sent, by cause</h2>)";
    if (s.errors.empty()) {
        out +=
            "<p class=\"empty\">Every recipient was sent (or would be, in a dry run).</p>"
            "</section>\n";
        return;
    }
    out += table_head({"#Count", "Status", "Cause", "#HTTP", "#Code", "Sample message"});
    for (const auto& g : s.errors) {
        out += table_row({{group_digits(g.count), "num"},
                          status_cell(g.status),
                          {cause_cell(g.cause)},
                          {http_cell(g.http_status), "num"},
                          {g.others       ? "others"
                           : g.error_code ? std::to_string(*g.error_code)
                                          : "–",
                           "num"},
                          {html_escape(g.sample), "msg"}});
    }
    out += "</tbody></table></section>\n";
}

void add_html_templates(std::string& out, const Summary& s) {
    if (s.templates.empty()) {
        return;
    }
    out += R"(<section id="templates"><h2>By template</h2>)";
    out += table_head({"Template", "#Sent", "#Failed"});
    for (const auto& t : s.templates) {
        out += table_row({{html_escape(t.name)}, {group_digits(t.sent), "num"}, {group_digits(t.failed), "num"}});
    }
    out += "</tbody></table></section>\n";
}

namespace {

// The countries drawn as bars; the table lists them all.
constexpr std::size_t k_spend_bars = 10;

// An amount for the page as the plan's cost lines write it: two decimals, thousands grouped.
using campaign::money_text;

// `parts` as bars (the first `most`, then the rest as one "N others" bar) and as a table of
// every one, its first column headed `key` ("Country").
void add_spend_parts(std::string& out, std::string_view id, std::string_view key, const std::vector<SpendPart>& parts,
                     std::size_t most) {
    std::vector<Bar> bars;
    for (std::size_t i = 0; i < parts.size() && i < most; ++i) {
        bars.push_back({parts[i].key, parts[i].amount, money_text(parts[i].amount)});
    }
    if (parts.size() > most) {
        const double rest = campaign::total_from(parts, most).second;
        bars.push_back({fmt::format("{} others", parts.size() - most), rest, money_text(rest)});
    }
    out += svg_bar_list(std::string(id), fmt::format("Spend by {}", util::ascii_lower(key)), bars);
    out += table_head({key, "#Messages", "#Amount"});
    for (const auto& p : parts) {
        out += table_row({{html_escape(p.key)}, {group_digits(p.messages), "num"}, {money_text(p.amount), "num"}});
    }
    out += "</tbody></table>";
}

}  // namespace

void add_html_spend(std::string& out, const Summary& s) {
    const Spend& spend = s.spend;
    if (spend.messages == 0 && spend.without_price == 0) {
        return;
    }
    out += R"(<section id="spend"><h2>Spend</h2>)";
    out += fmt::format(R"(<p class="note">About {} {} for {} sent messages, each at its price when it was sent; )"
                       "an estimate from the rate card: volume tiers and open service windows cost less.",
                       money_text(spend.total), html_escape(spend.currency), group_digits(spend.messages));
    if (spend.without_price > 0) {
        out += fmt::format(
            " {} sent template message{} without a price (sent before wacamp priced sends, or "
            "recovered from the ledger) {} not counted.",
            group_digits(spend.without_price), spend.without_price == 1 ? "" : "s",
            spend.without_price == 1 ? "is" : "are");
    }
    if (spend.mixed_currencies) {
        out += fmt::format(
            " Runs used cards of different currencies: the total adds them as they are ({} is the "
            "latest).",
            html_escape(spend.currency));
    }
    if (!spend.note.empty()) {
        out += " " + html_escape(spend.note) + ".";
    }
    out += "</p>";
    if (spend.messages > 0) {
        out += "<h3>By category</h3>";
        add_spend_parts(out, "spend-category", "Category", spend.by_category, Spend::k_max_categories + 1);
        out += "<h3>By country</h3>";
        add_spend_parts(out, "spend-country", "Country", spend.by_country, k_spend_bars);
    }
    out += "</section>\n";
}

void add_html_slowest(std::string& out, const Summary& s, const HtmlDetails& d) {
    if (d.slowest.empty()) {
        return;
    }
    out += fmt::format(R"(<section id="slowest"><h2>Slowest recipients (top {})</h2>)", HtmlDetails::k_slowest);
    out += table_head({"#Row", "Number", "Name", "#Latency", "Outcome", "#HTTP", "At"});
    for (const auto& r : d.slowest) {
        out += table_row({{std::to_string(r.row), "num"},
                          {html_escape(r.wa_id)},
                          {html_escape(r.user_name)},
                          {html_ms(r.latency_ms.value_or(0)), "num"},
                          status_cell(r.status),
                          {http_cell(r.http_status), "num"},
                          {html_time(r.at, s.zone), "nowrap"}});
    }
    out += "</tbody></table></section>\n";
}

void add_html_not_sent(std::string& out, const Summary& s, const HtmlDetails& d) {
    const auto total = s.counts[Status::failed] + s.counts[Status::unknown];
    if (total == 0) {
        return;
    }
    out += fmt::format(R"(<section id="not-sent"><h2>Failed and unknown recipients ({})</h2>)", group_digits(total));
    out += table_head({"#Row", "Number", "Name", "Status", "Cause", "#HTTP", "#Attempts", "Error", "At"});
    for (const auto& r : d.not_sent) {
        out += table_row({{std::to_string(r.row), "num"},
                          {html_escape(r.wa_id)},
                          {html_escape(r.user_name)},
                          status_cell(r.status),
                          {cause_cell(r.cause)},
                          {http_cell(r.http_status), "num"},
                          {std::to_string(r.attempts), "num"},
                          {html_escape(r.error), "msg"},
                          {html_time(r.at, s.zone), "nowrap"}});
    }
    out += "</tbody></table>";
    const auto shown = static_cast<std::int64_t>(d.not_sent.size());
    if (total > shown) {
        out += fmt::format(R"(<p class="note" id="not-sent-more">… and {} more; )"
                           "<code>wacamp report {} --format csv</code> lists every recipient.</p>",
                           group_digits(total - shown), html_escape(s.log_path));
    }
    out += "</section>\n";
}

void add_html_next_steps(std::string& out, const Summary& s) {
    out += R"(<section id="next"><h2>Next step</h2>)";
    if (s.next_steps.empty()) {
        out += "<p class=\"empty\">Nothing left to do: every recipient was sent, invalid or skipped.</p></section>\n";
        return;
    }
    out += "<table><tbody>";
    for (const auto& step : s.next_steps) {
        out += fmt::format("<tr><td>{}</td><td><code>{}</code></td></tr>", html_escape(step.what),
                           html_escape(step.command));
    }
    out += "</tbody></table></section>\n";
}

void add_html_invalid(std::string& out, const Summary& s, const HtmlDetails& d) {
    const auto total = s.counts[Status::invalid];
    if (total == 0) {
        return;
    }
    out += fmt::format(R"(<section id="invalid"><h2>Invalid rows ({})</h2>)", group_digits(total));
    out += table_head({"#Row", "Number", "Name", "Reason"});
    for (const auto& r : d.invalid) {
        out += table_row({{std::to_string(r.row), "num"},
                          {html_escape(r.wa_id)},
                          {html_escape(r.user_name)},
                          {html_escape(r.error), "msg"}});
    }
    out += "</tbody></table>";
    const auto shown = static_cast<std::int64_t>(d.invalid.size());
    if (total > shown) {
        out += fmt::format(R"(<p class="note" id="invalid-more">… and {} more; )"
                           "<code>wacamp report {} --format csv</code> lists every recipient.</p>",
                           group_digits(total - shown), html_escape(s.log_path));
    }
    out += "</section>\n";
}

void add_html_cleanup_and_warnings(std::string& out, const Summary& s) {
    if (s.cleanup) {
        const auto& c = *s.cleanup;
        out += fmt::format(R"(<section id="cleanup"><h2>Contact deletion</h2><p>{} batch(es): {} )"
                           "deleted, {} failed; {} contacts deleted.{}</p></section>\n",
                           group_digits(c.batches), group_digits(c.deleted), group_digits(c.failed),
                           group_digits(c.ids_deleted),
                           c.last_failed ? " The last batch failed (the next step finishes it)." : "");
    }
    if (s.without_user_id > 0) {
        out += fmt::format(R"(<section id="without-user-id"><h2>Contacts that cannot be deleted</h2><p>{}.</p>)"
                           "</section>\n",
                           html_escape(without_user_id_line(s)));
    }
    if (s.warning_count == 0) {
        return;
    }
    out += fmt::format(R"(<section id="warnings"><h2>Warnings ({})</h2><ul>)", group_digits(s.warning_count));
    for (const auto& w : s.warnings) {
        out += fmt::format("<li><code>{}</code></li>", html_escape(w));
    }
    out += "</ul>";
    const auto shown = static_cast<std::int64_t>(s.warnings.size());
    if (s.warning_count > shown) {
        out += fmt::format("<p class=\"note\">… and {} more.</p>", group_digits(s.warning_count - shown));
    }
    out += "</section>\n";
}

}  // namespace report
