// The `schedule` section of a campaign file: when to start, and the weekly sending window.

#include <fmt/format.h>
#include <algorithm>
#include <cctype>
#include <filesystem>

#include "campaign/campaign_file_sections.hpp"
#include "util/text.hpp"

namespace campaign::detail {

namespace {

constexpr std::string_view k_schedule_keys[] = {"start_at", "window"};
constexpr std::string_view k_window_keys[] = {"timezone", "days", "from", "to"};
// Index i is weekday i (0 = Sunday), the numbering of Window::days and std::chrono::weekday.
constexpr std::string_view k_day_names[] = {"sun", "mon", "tue", "wed", "thu", "fri", "sat"};
constexpr std::string_view k_full_day_names[] = {"sunday",   "monday", "tuesday", "wednesday",
                                                 "thursday", "friday", "saturday"};

// Reads fixed-width fields left to right; every read fails once one has.
class Cursor {
public:
    explicit Cursor(std::string_view text) : m_text(text) {}
    // Reads exactly `count` digits.
    int digits(size_t count) {
        int value = 0;
        for (size_t i = 0; i < count; ++i) {
            if (m_pos >= m_text.size() || !std::isdigit(static_cast<unsigned char>(m_text[m_pos]))) {
                m_ok = false;
                return 0;
            }
            value = value * 10 + (m_text[m_pos++] - '0');
        }
        return value;
    }
    // Consumes `c` when it comes next.
    bool skip(char c) {
        if (m_pos < m_text.size() && m_text[m_pos] == c) {
            ++m_pos;
            return true;
        }
        return false;
    }
    char peek() const { return m_pos < m_text.size() ? m_text[m_pos] : '\0'; }
    void expect(char c) { m_ok = skip(c) && m_ok; }
    bool ok() const { return m_ok; }
    bool done() const { return m_pos == m_text.size(); }

private:
    std::string_view m_text;
    size_t m_pos = 0;
    bool m_ok = true;
};

// Parses "2026-12-01T09:00:00+05:30" (seconds, fraction optional; offset "Z", "±HH:MM",
// "±HHMM" or "±HH"). Returns an error message on failure.
util::Result<std::chrono::system_clock::time_point> parse_timestamp(std::string_view text) {
    using namespace std::chrono;
    Cursor c(text);
    const int y = c.digits(4);
    c.expect('-');
    const int mo = c.digits(2);
    c.expect('-');
    const int d = c.digits(2);
    if (!(c.skip('T') || c.skip('t') || c.skip(' '))) {
        return util::fail("is not a date and time like 2026-12-01T09:00:00+05:30");
    }
    const int h = c.digits(2);
    c.expect(':');
    const int mi = c.digits(2);
    int s = 0;
    long long ms = 0;
    if (c.skip(':')) {
        s = c.digits(2);
        if (c.skip('.')) {
            // Milliseconds are enough; further digits are read and dropped.
            for (int scale = 100; std::isdigit(static_cast<unsigned char>(c.peek())); scale /= 10) {
                ms += scale * c.digits(1);
            }
        }
    }
    int offset_minutes = 0;
    if (c.ok() && !(c.skip('Z') || c.skip('z'))) {
        const char sign = c.peek();
        if (sign != '+' && sign != '-') {
            return util::fail("has no UTC offset: add Z or one like +05:30");
        }
        c.skip(sign);
        const int oh = c.digits(2);
        const int om = (c.skip(':') || !c.done()) ? c.digits(2) : 0;
        offset_minutes = (sign == '-' ? -1 : 1) * (oh * 60 + om);
        if (oh > 23 || om > 59) {
            return util::fail("has an impossible UTC offset");
        }
    }
    const year_month_day date{year(y), month(static_cast<unsigned>(mo)), day(static_cast<unsigned>(d))};
    if (!c.ok() || !c.done() || !date.ok() || h > 23 || mi > 59 || s > 59) {
        return util::fail("is not a date and time like 2026-12-01T09:00:00+05:30");
    }
    return system_clock::time_point(sys_days(date) + hours(h) + minutes(mi) + seconds(s) + milliseconds(ms) -
                                    minutes(offset_minutes));
}

// Parses "HH:MM" (or "H:MM", or "24:00" for the end of the day) into minutes after midnight.
std::optional<int> parse_clock(std::string_view text) {
    Cursor c(text);
    int h = c.digits(1);
    if (std::isdigit(static_cast<unsigned char>(c.peek()))) {
        h = h * 10 + c.digits(1);
    }
    c.expect(':');
    const int m = c.digits(2);
    if (!c.ok() || !c.done() || m > 59 || h > 24 || (h == 24 && m != 0)) {
        return std::nullopt;
    }
    return h * 60 + m;
}

// A zone is known when tzdata has a file for it; the name cannot climb out of the folder.
bool known_timezone(const std::string& name) {
    const bool plain = !name.empty() && name.front() != '/' && name.find("..") == std::string::npos &&
                       std::all_of(name.begin(), name.end(), [](unsigned char ch) {
                           return std::isalnum(ch) || ch == '/' || ch == '_' || ch == '-' || ch == '+';
                       });
    std::error_code ec;
    return plain && std::filesystem::is_regular_file("/usr/share/zoneinfo/" + name, ec);
}

std::vector<int> read_days(const Section& w) {
    std::vector<int> days;
    auto items = w.list("days");
    if (!items) {
        return {0, 1, 2, 3, 4, 5, 6};
    }
    if (items->empty()) {
        w.problem("days", "must name at least one day");
    }
    for (const auto& item : *items) {
        const std::string name = util::ascii_lower(item.text);
        auto full = std::find(std::begin(k_full_day_names), std::end(k_full_day_names), name);
        if (full != std::end(k_full_day_names)) {
            days.push_back(static_cast<int>(full - std::begin(k_full_day_names)));
        } else if (auto day = pick(w.context(), Scalar{name, item.line, item.raw}, w.path_of("days"), k_day_names)) {
            days.push_back(static_cast<int>(*day));
        }
    }
    std::sort(days.begin(), days.end());
    days.erase(std::unique(days.begin(), days.end()), days.end());
    return days;
}

void read_window(const Section& s, Schedule& out) {
    auto section = s.section("window", Need::optional, k_window_keys);
    if (!section) {
        return;
    }
    const Section& w = *section;
    Window window;
    if (auto zone = w.text("timezone", Need::required); zone && !known_timezone(*zone)) {
        w.problem("timezone", "unknown time zone " + in_quotes(*zone) + " (expected an IANA name like Asia/Kolkata)");
    } else if (zone) {
        window.timezone = *zone;
    }
    window.days = read_days(w);
    constexpr int k_bad = -1;
    auto from_text = w.text("from");
    auto to_text = w.text("to");
    const int from = from_text ? parse_clock(*from_text).value_or(k_bad) : window.from_minute;
    const int to = to_text ? parse_clock(*to_text).value_or(k_bad) : window.to_minute;
    const bool from_ok = from != k_bad && from != 24 * 60;
    if (!from_ok) {
        w.problem("from", "expected a time of day like 09:00, got " + in_quotes(from_text.value_or("")));
    }
    if (to == k_bad) {
        w.problem("to", "expected a time of day like 18:00 (or 24:00), got " + in_quotes(to_text.value_or("")));
    }
    if (from_ok && to != k_bad && from >= to) {
        // Overnight windows (22:00 to 06:00) are not supported: they would blur which day's
        // `days` entry applies.
        w.problem(from_text ? "from" : "to", fmt::format("the window must open before it closes, got from {} to {}",
                                                         from_text.value_or("00:00"), to_text.value_or("24:00")));
    } else if (from_ok && to != k_bad) {
        window.from_minute = from;
        window.to_minute = to;
    }
    out.window = std::move(window);
}

}  // namespace

void read_schedule(const Section& root, Schedule& out) {
    auto section = root.section("schedule", Need::optional, k_schedule_keys);
    if (!section) {
        return;
    }
    if (auto text = section->text("start_at")) {
        auto at = parse_timestamp(*text);
        if (at) {
            out.start_at = *at;
        } else {
            section->problem("start_at", in_quotes(*text) + " " + at.error().message);
        }
    }
    read_window(*section, out);
}

}  // namespace campaign::detail
