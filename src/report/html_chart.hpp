#pragma once
// Charts for the HTML report, drawn as inline SVG by wacamp (no script, no library).
// Colours come from the page's stylesheet through CSS classes.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "util/clock.hpp"

namespace report {

struct ChartSeries {
    std::string name;                           // in the legend
    std::string css_class;                      // its colour, e.g. "c-sent"
    std::vector<std::optional<double>> values;  // one per time bucket; nothing: a gap
};

enum class ChartKind { stacked_bars, lines };

struct Chart {
    std::string id;     // the <svg> element's id
    std::string title;  // what the chart shows, for screen readers and tooltips
    std::string unit;   // after each y-axis value: "/s", " ms"
    ChartKind kind = ChartKind::lines;
    util::Millis bucket_width{1000};
    std::vector<ChartSeries> series;  // all of one length
};

// Returns `chart` as an <svg> element over time since its first bucket: y grid and labels
// from 0 to a round maximum, x ticks at round elapsed times ("30s", "2m", "1h30m").
std::string svg_chart(const Chart& chart);

struct Share {
    std::string label;
    std::string css_class;
    std::int64_t count = 0;
};

// Returns one horizontal bar split in proportion to `shares` (zero counts left out), each
// part with a tooltip "label: count (percent)"; an empty bar when all are zero.
std::string svg_share_bar(const std::string& id, const std::vector<Share>& shares);

// One bar of a bar list: its label, its length, and the value written beside it.
struct Bar {
    std::string label;  // as the log has it: escaped here
    double value = 0;   // negative counts as 0
    std::string value_text;
};

// Returns `bars` as an <svg> element of horizontal bars, one a line in the order given, each as
// long as its value against the largest, with its label before it and its value_text after, and
// a tooltip "label: value_text"; `title` says what they show.
std::string svg_bar_list(const std::string& id, const std::string& title, const std::vector<Bar>& bars);

}  // namespace report
