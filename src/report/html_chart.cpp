#include "report/html_chart.hpp"

#include <fmt/format.h>
#include <algorithm>
#include <array>
#include <cmath>

#include "report/html.hpp"
#include "report/text_cells.hpp"
#include "util/time.hpp"
#include "util/utf8.hpp"

namespace report {

namespace {

using std::chrono::hours;
using std::chrono::minutes;
using std::chrono::seconds;

// The drawing, in SVG user units; the page scales it to its width.
constexpr double k_width = 960;
constexpr double k_height = 240;
constexpr double k_left = 64;  // room for y labels
constexpr double k_right = 16;
constexpr double k_top = 28;     // room for the legend
constexpr double k_bottom = 28;  // room for x labels
constexpr double k_plot_width = k_width - k_left - k_right;
constexpr double k_plot_bottom = k_height - k_bottom;
constexpr std::size_t k_dots_up_to = 60;  // buckets; beyond, only isolated points get a dot

constexpr std::array<util::Millis, 17> k_ticks = {
    seconds(1),  seconds(2),  seconds(5),  seconds(10), seconds(15), seconds(30), minutes(1), minutes(2), minutes(5),
    minutes(10), minutes(15), minutes(30), hours(1),    hours(2),    hours(6),    hours(12),  hours(24)};

// A round number ≥ `raw`: 1, 2 or 5 times a power of ten.
double round_step(double raw) {
    const double magnitude = std::pow(10.0, std::floor(std::log10(raw)));
    for (double m : {1.0, 2.0, 5.0}) {
        if (m * magnitude >= raw * (1 - 1e-9)) {
            return m * magnitude;
        }
    }
    return 10 * magnitude;
}

std::string y_label(double value, double step) {
    if (step >= 1) {
        return group_digits(std::llround(value));
    }
    const int decimals = static_cast<int>(std::ceil(-std::log10(step) - 1e-9));
    return fmt::format("{:.{}f}", value, decimals);
}

// The largest value drawn: per bucket, the stack's total or the tallest line.
double top_value(const Chart& chart) {
    double top = 0;
    const std::size_t n = chart.series.empty() ? 0 : chart.series.front().values.size();
    for (std::size_t i = 0; i < n; ++i) {
        double stack = 0;
        for (const auto& s : chart.series) {
            const double v = i < s.values.size() ? s.values[i].value_or(0) : 0;
            stack = chart.kind == ChartKind::stacked_bars ? stack + v : std::max(stack, v);
        }
        top = std::max(top, stack);
    }
    return top;
}

void add_legend(std::string& out, const Chart& chart) {
    double x = k_left;
    for (const auto& s : chart.series) {
        out += fmt::format(R"(<rect class="{}" x="{:.1f}" y="6" width="12" height="12" rx="2"/>)",
                           html_escape(s.css_class), x);
        out += fmt::format(R"(<text class="legend" x="{:.1f}" y="16">{}</text>)", x + 17, html_escape(s.name));
        x += 34 + 7.5 * static_cast<double>(s.name.size());
    }
}

void add_y_axis(std::string& out, double top, double step, const std::string& unit) {
    for (double v = 0; v <= top * (1 + 1e-9); v += step) {
        const double y = k_plot_bottom - v / top * (k_plot_bottom - k_top);
        out += fmt::format(R"(<line class="grid" x1="{}" x2="{}" y1="{:.1f}" y2="{:.1f}"/>)", k_left, k_width - k_right,
                           y, y);
        out += fmt::format(R"(<text class="axis" x="{}" y="{:.1f}" text-anchor="end">{}{}</text>)", k_left - 6, y + 4,
                           y_label(v, step), html_escape(unit));
    }
}

void add_x_axis(std::string& out, util::Millis span) {
    auto step = k_ticks.back();
    for (auto t : k_ticks) {
        if (span.count() / t.count() <= 8) {
            step = t;
            break;
        }
    }
    while (span.count() / step.count() > 8) {
        step *= 2;  // campaigns of weeks
    }
    for (util::Millis t{0}; t <= span; t += step) {
        const double x = k_left + static_cast<double>(t.count()) / static_cast<double>(span.count()) * k_plot_width;
        out += fmt::format(R"(<line class="tick" x1="{0:.1f}" x2="{0:.1f}" y1="{1}" y2="{2}"/>)", x, k_plot_bottom,
                           k_plot_bottom + 4);
        out += fmt::format(R"(<text class="axis" x="{:.1f}" y="{}" text-anchor="middle">{}</text>)", x,
                           k_plot_bottom + 18, util::format_duration(t, util::DurationStyle::axis));
    }
}

void add_bars(std::string& out, const Chart& chart, double top, std::size_t n) {
    const double bucket = k_plot_width / static_cast<double>(n);
    const double gap = bucket > 4 ? 1 : 0;
    const double scale = (k_plot_bottom - k_top) / top;
    std::vector<double> base(n, 0);
    for (const auto& s : chart.series) {
        std::string path;
        for (std::size_t i = 0; i < n && i < s.values.size(); ++i) {
            const double v = s.values[i].value_or(0);
            if (v <= 0) {
                continue;
            }
            const double y = k_plot_bottom - (base[i] + v) * scale;
            path +=
                fmt::format("M{:.1f},{:.1f}h{:.1f}v{:.1f}h{:.1f}Z", k_left + static_cast<double>(i) * bucket + gap / 2,
                            y, bucket - gap, v * scale, -(bucket - gap));
            base[i] += v;
        }
        out += fmt::format(R"(<path class="{}" d="{}"><title>{}</title></path>)", html_escape(s.css_class), path,
                           html_escape(s.name));
    }
}

void add_lines(std::string& out, const Chart& chart, double top, std::size_t n) {
    const double bucket = k_plot_width / static_cast<double>(n);
    const double scale = (k_plot_bottom - k_top) / top;
    for (const auto& s : chart.series) {
        std::string path;
        std::string dots;
        auto at = [&](std::size_t i) { return i < s.values.size() && s.values[i]; };
        for (std::size_t i = 0; i < n; ++i) {
            if (!at(i)) {
                continue;
            }
            const double x = k_left + (static_cast<double>(i) + 0.5) * bucket;
            const double y = k_plot_bottom - *s.values[i] * scale;
            path += fmt::format("{}{:.1f},{:.1f}", i > 0 && at(i - 1) ? "L" : "M", x, y);
            const bool isolated = !(i > 0 && at(i - 1)) && !at(i + 1);
            if (n <= k_dots_up_to || isolated) {
                dots += fmt::format(R"(<circle cx="{:.1f}" cy="{:.1f}" r="3"/>)", x, y);
            }
        }
        out += fmt::format(R"(<g class="{}"><path class="line" d="{}"/>{}<title>{}</title></g>)",
                           html_escape(s.css_class), path, dots, html_escape(s.name));
    }
}

}  // namespace

std::string svg_chart(const Chart& chart) {
    const std::size_t n = chart.series.empty() ? 0 : chart.series.front().values.size();
    std::string out = fmt::format(R"(<svg id="{}" class="chart" viewBox="0 0 {} {}" role="img" aria-label="{}">)",
                                  html_escape(chart.id), k_width, k_height, html_escape(chart.title));
    out += fmt::format("<title>{}</title>", html_escape(chart.title));
    add_legend(out, chart);
    const double raw_top = top_value(chart);
    const double step = raw_top > 0 ? round_step(raw_top / 4) : 1;
    const double top = raw_top > 0 ? step * std::ceil(raw_top / step - 1e-9) : 1;
    add_y_axis(out, top, step, chart.unit);
    const auto span = chart.bucket_width * static_cast<std::int64_t>(std::max<std::size_t>(n, 1));
    add_x_axis(out, span);
    if (n > 0) {
        if (chart.kind == ChartKind::stacked_bars) {
            add_bars(out, chart, top, n);
        } else {
            add_lines(out, chart, top, n);
        }
    }
    out += fmt::format(R"(<line class="axis-line" x1="{0}" x2="{1}" y1="{2}" y2="{2}"/>)", k_left, k_width - k_right,
                       k_plot_bottom);
    out += "</svg>";
    return out;
}

std::string svg_share_bar(const std::string& id, const std::vector<Share>& shares) {
    std::int64_t total = 0;
    for (const auto& s : shares) {
        total += std::max<std::int64_t>(s.count, 0);
    }
    std::string out =
        fmt::format(R"(<svg id="{}" class="share" viewBox="0 0 {} 24" preserveAspectRatio="none" role="img" )"
                    R"(aria-label="recipients by status"><rect class="share-empty" width="{}" height="24" rx="4"/>)",
                    html_escape(id), k_width, k_width);
    double x = 0;
    for (const auto& s : shares) {
        if (s.count <= 0 || total == 0) {
            continue;
        }
        const double share = static_cast<double>(s.count) / static_cast<double>(total);
        out += fmt::format(
            R"(<rect class="{}" x="{:.2f}" width="{:.2f}" height="24"><title>{}: {} ({:.1f}%)</title></rect>)",
            html_escape(s.css_class), x, share * k_width, html_escape(s.label), group_digits(s.count), share * 100);
        x += share * k_width;
    }
    out += "</svg>";
    return out;
}

std::string svg_bar_list(const std::string& id, const std::string& title, const std::vector<Bar>& bars) {
    constexpr double k_line = 24;
    constexpr double k_bar_height = 16;
    constexpr double k_label_right = 150;  // labels end here, right-aligned
    constexpr double k_bar_left = 160;
    constexpr double k_bar_room = k_width - k_bar_left - 110;  // room for the value after the longest bar
    constexpr std::size_t k_label_bytes = 24;
    double top = 0;
    for (const auto& b : bars) {
        top = std::max(top, b.value);
    }
    const double height = k_line * static_cast<double>(std::max<std::size_t>(bars.size(), 1)) + 4;
    std::string out = fmt::format(R"(<svg id="{}" class="bars" viewBox="0 0 {} {}" role="img" aria-label="{}">)",
                                  html_escape(id), k_width, height, html_escape(title));
    out += fmt::format("<title>{}</title>", html_escape(title));
    for (std::size_t i = 0; i < bars.size(); ++i) {
        const auto& b = bars[i];
        const double y = k_line * static_cast<double>(i) + 4;
        const double length = top > 0 && b.value > 0 ? b.value / top * k_bar_room : 0;
        const std::string label = html_escape(util::clip_utf8(b.label, k_label_bytes));
        out += fmt::format(R"(<text class="legend" x="{}" y="{:.1f}" text-anchor="end">{}</text>)", k_label_right,
                           y + 12.5, label);
        out += fmt::format(R"(<rect class="bar" x="{}" y="{:.1f}" width="{:.1f}" height="{}" rx="2">)"
                           "<title>{}: {}</title></rect>",
                           k_bar_left, y, std::max(length, 1.0), k_bar_height, label, html_escape(b.value_text));
        out += fmt::format(R"(<text class="axis" x="{:.1f}" y="{:.1f}">{}</text>)", k_bar_left + length + 6, y + 12.5,
                           html_escape(b.value_text));
    }
    out += "</svg>";
    return out;
}

}  // namespace report
