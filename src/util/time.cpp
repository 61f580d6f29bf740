#include "util/time.hpp"

#include <date/date.h>
#include <fmt/chrono.h>
#include <fmt/format.h>
#include <algorithm>
#include <chrono>
#include <cstdint>
#include <sstream>

namespace util {

namespace {

using namespace std::chrono;

// Reads fields left to right; every read fails once one has.
class Cursor {
public:
    explicit Cursor(std::string_view text) : m_text(text) {}
    // Reads exactly `count` digits.
    int digits(std::size_t count) {
        int value = 0;
        for (std::size_t i = 0; i < count; ++i) {
            if (!digit_next()) {
                m_ok = false;
                return 0;
            }
            value = value * 10 + (m_text[m_pos++] - '0');
        }
        return value;
    }
    // Reads one digit or more as a fraction of a second; digits past nanoseconds add nothing.
    nanoseconds fraction() {
        if (!digit_next()) {
            m_ok = false;
        }
        std::int64_t ns = 0;
        for (std::int64_t scale = 100'000'000; digit_next(); scale /= 10) {
            ns += scale * (m_text[m_pos++] - '0');
        }
        return nanoseconds(ns);
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
    bool digit_next() const { return m_pos < m_text.size() && m_text[m_pos] >= '0' && m_text[m_pos] <= '9'; }

    std::string_view m_text;
    std::size_t m_pos = 0;
    bool m_ok = true;
};

void put_digits(char* out, std::int64_t value, int width) {
    for (int i = width - 1; i >= 0; --i) {
        out[i] = static_cast<char>('0' + value % 10);
        value /= 10;
    }
}

constexpr sys_time<milliseconds> k_first_writable{sys_days(year(0) / January / 1)};
constexpr sys_time<milliseconds> k_last_writable{sys_days(year(10000) / January / 1) - milliseconds(1)};

// Reads the UTC offset of `c` into `minutes_east`: "Z", "±HH:MM", and in relaxed syntax
// "±HHMM" or "±HH". Returns an error message, or nothing when the offset is good or the text
// is already broken before it (the caller says so).
std::optional<std::string> read_offset(Cursor& c, TimestampSyntax syntax, int& minutes_east) {
    minutes_east = 0;
    if (!c.ok() || c.skip('Z') || c.skip('z')) {
        return std::nullopt;
    }
    const char sign = c.peek();
    if (sign != '+' && sign != '-') {
        return "has no UTC offset: add Z or one like +05:30";
    }
    c.skip(sign);
    const int oh = c.digits(2);
    int om = 0;
    if (syntax == TimestampSyntax::rfc3339) {
        c.expect(':');
        om = c.digits(2);
    } else if (c.skip(':') || !c.done()) {
        om = c.digits(2);
    }
    if (oh > 23 || om > 59) {
        return "has an impossible UTC offset";
    }
    minutes_east = (sign == '-' ? -1 : 1) * (oh * 60 + om);
    return std::nullopt;
}

// One HTTP date form: the whole of `text` per `format`, names in English.
std::optional<sys_seconds> parse_whole(std::string_view text, const char* format) {
    std::istringstream in{std::string(text)};
    sys_seconds t;
    in >> date::parse(format, t);
    if (in.fail() || in.peek() != std::char_traits<char>::eof()) {
        return std::nullopt;
    }
    return t;
}

// RFC 850: "Sunday, 06-Nov-94 08:49:37 GMT". date::parse maps the two-digit year to
// 1969…2068 and checks the day name against that; RFC 9110 wants the latest year with those
// digits not more than 50 years after `now`, so the name is checked here, against that year.
std::optional<TimePoint> parse_rfc850(std::string_view text, TimePoint now) {
    const std::size_t comma = text.find(", ");
    if (comma == std::string_view::npos) {
        return std::nullopt;
    }
    std::istringstream name{std::string(text.substr(0, comma))};
    date::weekday named;
    name >> date::parse("%A", named);
    const auto rest = parse_whole(text.substr(comma + 2), "%d-%b-%y %H:%M:%S GMT");
    if (name.fail() || name.peek() != std::char_traits<char>::eof() || !rest) {
        return std::nullopt;
    }
    const sys_days day = floor<days>(*rest);
    const year_month_day parsed{day};
    const int now_year = static_cast<int>(year_month_day{floor<days>(now)}.year());
    int full_year = now_year - now_year % 100 + static_cast<int>(parsed.year()) % 100;
    if (full_year > now_year + 50) {
        full_year -= 100;
    }
    const year_month_day date{year(full_year), parsed.month(), parsed.day()};
    if (!date.ok() || weekday(sys_days(date)).c_encoding() != named.c_encoding()) {
        return std::nullopt;
    }
    return sys_days(date) + (*rest - day);
}

// `ms` (at least a minute) in its largest unit and the next `parts` − 1 below it, stopping at
// seconds, each after the first padded to two digits and after `space`: "4m05s", "2h 10m 05s".
std::string in_units(std::int64_t ms, int parts, std::string_view space) {
    const std::int64_t s = ms / 1000;
    const std::pair<std::int64_t, char> units[] = {
        {s / 86'400, 'd'}, {s / 3600 % 24, 'h'}, {s / 60 % 60, 'm'}, {s % 60, 's'}};
    std::size_t first = 0;
    while (first + 1 < std::size(units) && units[first].first == 0) {
        ++first;
    }
    std::string out;
    for (std::size_t i = first; i < std::size(units) && i < first + static_cast<std::size_t>(parts); ++i) {
        const auto& [value, unit] = units[i];
        out += i == first ? fmt::format("{}{}", value, unit) : fmt::format("{}{:02}{}", space, value, unit);
    }
    return out;
}

std::string compact(std::int64_t ms) {
    if (ms < 1000) {
        return fmt::format("{}ms", ms);
    }
    if (ms < 60'000) {
        return fmt::format("{}.{}s", ms / 1000, ms / 100 % 10);
    }
    return in_units(ms, 2, "");
}

std::string spaced(std::int64_t ms) {
    if (ms < 1000) {
        return fmt::format("{} ms", ms);
    }
    if (ms < 60'000) {
        return fmt::format("{}.{} s", ms / 1000, ms / 100 % 10);
    }
    return in_units(ms, 3, " ");
}

std::string axis(std::int64_t ms) {
    if (ms == 0) {
        return "0";
    }
    if (ms < 1000) {
        return fmt::format("{}ms", ms);
    }
    const std::int64_t s = ms / 1000;
    const std::pair<std::int64_t, char> units[] = {
        {s / 86'400, 'd'}, {s / 3600 % 24, 'h'}, {s / 60 % 60, 'm'}, {s % 60, 's'}};
    std::string out;
    for (const auto& [value, unit] : units) {
        if (value != 0) {
            // Hours are never padded: "2d3h" ("1h05m" pads the minutes).
            out += out.empty() || unit == 'h' ? fmt::format("{}{}", value, unit) : fmt::format("{:02}{}", value, unit);
        }
    }
    return out;
}

std::string countdown(std::int64_t ms) {
    const std::int64_t s = (ms + 999) / 1000;
    if (s < 60) {
        return fmt::format("{}s", s);
    }
    if (s < 3600) {
        return fmt::format("{}m {:02}s", s / 60, s % 60);
    }
    if (s < 86'400) {
        return fmt::format("{}h {:02}m {:02}s", s / 3600, s / 60 % 60, s % 60);
    }
    return fmt::format("{}d {:02}h {:02}m {:02}s", s / 86'400, s / 3600 % 24, s / 60 % 60, s % 60);
}

}  // namespace

void write_timestamp(TimePoint t, char* out) {
    const auto ms = std::clamp(floor<milliseconds>(t), k_first_writable, k_last_writable);
    const sys_days day = floor<days>(ms);
    const year_month_day date{day};
    const hh_mm_ss time{ms - day};
    put_digits(out, static_cast<int>(date.year()), 4);
    out[4] = '-';
    put_digits(out + 5, static_cast<unsigned>(date.month()), 2);
    out[7] = '-';
    put_digits(out + 8, static_cast<unsigned>(date.day()), 2);
    out[10] = 'T';
    put_digits(out + 11, time.hours().count(), 2);
    out[13] = ':';
    put_digits(out + 14, time.minutes().count(), 2);
    out[16] = ':';
    put_digits(out + 17, time.seconds().count(), 2);
    out[19] = '.';
    put_digits(out + 20, time.subseconds().count(), 3);
    out[23] = 'Z';
}

std::string format_timestamp(TimePoint t) {
    std::string out(k_timestamp_length, '\0');
    write_timestamp(t, out.data());
    return out;
}

Result<TimePoint> parse_timestamp(std::string_view text, TimestampSyntax syntax) {
    const auto malformed = [] { return fail("is not a date and time like 2026-12-01T09:00:00+05:30"); };
    const bool relaxed = syntax == TimestampSyntax::relaxed;
    Cursor c(text);
    const int y = c.digits(4);
    c.expect('-');
    const int mo = c.digits(2);
    c.expect('-');
    const int d = c.digits(2);
    if (!(c.skip('T') || c.skip('t') || (relaxed && c.skip(' ')))) {
        return malformed();
    }
    const int h = c.digits(2);
    c.expect(':');
    const int mi = c.digits(2);
    int s = 0;
    nanoseconds fraction{0};
    if (c.skip(':')) {
        s = c.digits(2);
        if (c.skip('.')) {
            fraction = c.fraction();
        }
    } else if (!relaxed) {
        return malformed();
    }
    int offset_minutes = 0;
    if (auto problem = read_offset(c, syntax, offset_minutes)) {
        return fail(std::move(*problem));
    }
    const year_month_day date{year(y), month(static_cast<unsigned>(mo)), day(static_cast<unsigned>(d))};
    if (!c.ok() || !c.done() || !date.ok() || h > 23 || mi > 59 || s > 60) {
        return malformed();
    }
    const std::int64_t since_epoch = std::int64_t{sys_days(date).time_since_epoch().count()} * 86'400 + h * 3'600 +
                                     mi * 60 + s - offset_minutes * 60;
    constexpr std::int64_t k_limit = duration_cast<seconds>(TimePoint::duration::max()).count() - 1;
    if (since_epoch > k_limit || since_epoch < -k_limit) {
        return fail("is out of the range of years this program handles (1678 to 2261)");
    }
    return TimePoint(duration_cast<TimePoint::duration>(seconds(since_epoch) + fraction));
}

std::optional<int> parse_time_of_day(std::string_view text) {
    Cursor c(text);
    int h = c.digits(1);
    if (c.peek() >= '0' && c.peek() <= '9') {
        h = h * 10 + c.digits(1);
    }
    c.expect(':');
    const int m = c.digits(2);
    if (!c.ok() || !c.done() || m > 59 || h > 24 || (h == 24 && m != 0)) {
        return std::nullopt;
    }
    return h * 60 + m;
}

std::optional<TimePoint> parse_http_date(std::string_view text, TimePoint now) {
    if (auto t = parse_whole(text, "%a, %d %b %Y %H:%M:%S GMT")) {  // IMF-fixdate
        return *t;
    }
    if (auto t = parse_whole(text, "%a %b %d %H:%M:%S %Y")) {  // asctime
        return *t;
    }
    return parse_rfc850(text, now);
}

std::string format_wall_time(TimePoint t, TimePoint now) {
    // From the timestamp's fields, not fmt's %H: fmt 9 reads a time point through localtime(),
    // which TZ moves off UTC.
    char stamp[k_timestamp_length];
    write_timestamp(t, stamp);  // "2026-11-25T20:20:53.123Z"
    const std::string_view text(stamp, k_timestamp_length);
    if (floor<days>(t) == floor<days>(now)) {
        return fmt::format("{} UTC", text.substr(11, 8));
    }
    return fmt::format("{} {} UTC", text.substr(0, 10), text.substr(11, 8));
}

std::string format_duration(Millis d, DurationStyle style) {
    const std::int64_t ms = d.count();
    switch (style) {
    case DurationStyle::compact: return ms < 0 ? "-" + compact(-ms) : compact(ms);
    case DurationStyle::report: return spaced(std::max<std::int64_t>(ms, 0));
    case DurationStyle::axis: return axis(std::max<std::int64_t>(ms, 0));
    case DurationStyle::countdown: return countdown(std::max<std::int64_t>(ms, 0));
    }
    return compact(ms);
}

}  // namespace util
