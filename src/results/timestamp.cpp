#include "results/timestamp.hpp"

#include <algorithm>
#include <chrono>
#include <cstdint>

namespace results {

namespace {

using std::chrono::milliseconds;

// Days since 1970-01-01 ↔ civil date (H. Hinnant's algorithms): exact for the proleptic
// Gregorian calendar, no tables, no time-zone database.
struct Civil {
    std::int64_t year;
    unsigned month;
    unsigned day;
};

constexpr Civil civil_from_days(std::int64_t z) {
    z += 719468;
    const std::int64_t era = (z >= 0 ? z : z - 146096) / 146097;
    const auto doe = static_cast<unsigned>(z - era * 146097);
    const unsigned yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
    const unsigned doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    const unsigned mp = (5 * doy + 2) / 153;
    const unsigned d = doy - (153 * mp + 2) / 5 + 1;
    const unsigned m = mp < 10 ? mp + 3 : mp - 9;
    return {static_cast<std::int64_t>(yoe) + era * 400 + (m <= 2 ? 1 : 0), m, d};
}

constexpr std::int64_t days_from_civil(std::int64_t y, unsigned m, unsigned d) {
    y -= m <= 2 ? 1 : 0;
    const std::int64_t era = (y >= 0 ? y : y - 399) / 400;
    const auto yoe = static_cast<unsigned>(y - era * 400);
    const unsigned doy = (153 * (m > 2 ? m - 3 : m + 9) + 2) / 5 + d - 1;
    const unsigned doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    return era * 146097 + static_cast<std::int64_t>(doe) - 719468;
}

bool is_leap(std::int64_t y) {
    return (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
}

unsigned days_in_month(std::int64_t y, unsigned m) {
    constexpr unsigned k_days[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
    return m == 2 && is_leap(y) ? 29 : k_days[m - 1];
}

void put_digits(char* out, std::int64_t value, int width) {
    for (int i = width - 1; i >= 0; --i) {
        out[i] = static_cast<char>('0' + value % 10);
        value /= 10;
    }
}

// Reads exactly `width` digits at `pos`; false if any is not a digit.
bool read_digits(std::string_view text, std::size_t pos, std::size_t width, int& out) {
    if (pos + width > text.size()) {
        return false;
    }
    out = 0;
    for (std::size_t i = pos; i < pos + width; ++i) {
        if (text[i] < '0' || text[i] > '9') {
            return false;
        }
        out = out * 10 + (text[i] - '0');
    }
    return true;
}

constexpr std::int64_t k_min_ms = days_from_civil(0, 1, 1) * 86'400'000;
constexpr std::int64_t k_max_ms = days_from_civil(10000, 1, 1) * 86'400'000 - 1;

}  // namespace

void write_timestamp(util::TimePoint t, char* out) {
    std::int64_t ms = std::chrono::floor<milliseconds>(t.time_since_epoch()).count();
    ms = std::clamp(ms, k_min_ms, k_max_ms);
    // Floor division, so times before 1970 land on the right day.
    std::int64_t days = ms / 86'400'000;
    std::int64_t in_day = ms % 86'400'000;
    if (in_day < 0) {
        in_day += 86'400'000;
        --days;
    }
    const Civil c = civil_from_days(days);
    put_digits(out, c.year, 4);
    out[4] = '-';
    put_digits(out + 5, c.month, 2);
    out[7] = '-';
    put_digits(out + 8, c.day, 2);
    out[10] = 'T';
    put_digits(out + 11, in_day / 3'600'000, 2);
    out[13] = ':';
    put_digits(out + 14, in_day / 60'000 % 60, 2);
    out[16] = ':';
    put_digits(out + 17, in_day / 1000 % 60, 2);
    out[19] = '.';
    put_digits(out + 20, in_day % 1000, 3);
    out[23] = 'Z';
}

std::string format_timestamp(util::TimePoint t) {
    std::string out(k_timestamp_length, '\0');
    write_timestamp(t, out.data());
    return out;
}

std::optional<util::TimePoint> parse_timestamp(std::string_view text) {
    int year = 0;
    int month = 0;
    int day = 0;
    int hour = 0;
    int minute = 0;
    int second = 0;
    if (!read_digits(text, 0, 4, year) || text.size() < 20 || text[4] != '-' || !read_digits(text, 5, 2, month) ||
        text[7] != '-' || !read_digits(text, 8, 2, day) || (text[10] != 'T' && text[10] != 't') ||
        !read_digits(text, 11, 2, hour) || text[13] != ':' || !read_digits(text, 14, 2, minute) || text[16] != ':' ||
        !read_digits(text, 17, 2, second)) {
        return std::nullopt;
    }
    if (month < 1 || month > 12 || day < 1 ||
        static_cast<unsigned>(day) > days_in_month(year, static_cast<unsigned>(month)) || hour > 23 || minute > 59 ||
        second > 60) {
        return std::nullopt;
    }
    std::size_t pos = 19;
    std::int64_t fraction_ns = 0;
    if (pos < text.size() && text[pos] == '.') {
        ++pos;
        std::int64_t scale = 100'000'000;
        const std::size_t first = pos;
        while (pos < text.size() && text[pos] >= '0' && text[pos] <= '9') {
            fraction_ns += (text[pos] - '0') * scale;  // digits past nanoseconds add 0
            scale /= 10;
            ++pos;
        }
        if (pos == first) {
            return std::nullopt;
        }
    }
    std::int64_t offset_minutes = 0;
    const std::string_view zone = text.substr(pos);
    if (zone == "Z" || zone == "z") {
        offset_minutes = 0;
    } else if (zone.size() == 6 && (zone[0] == '+' || zone[0] == '-') && zone[3] == ':') {
        int oh = 0;
        int om = 0;
        if (!read_digits(zone, 1, 2, oh) || !read_digits(zone, 4, 2, om) || oh > 23 || om > 59) {
            return std::nullopt;
        }
        offset_minutes = (oh * 60 + om) * (zone[0] == '-' ? -1 : 1);
    } else {
        return std::nullopt;
    }
    const std::int64_t days = days_from_civil(year, static_cast<unsigned>(month), static_cast<unsigned>(day));
    const std::int64_t seconds = days * 86'400 + hour * 3'600 + minute * 60 + second - offset_minutes * 60;
    // TimePoint counts nanoseconds on most platforms: about 1678 to 2261.
    using std::chrono::duration_cast;
    constexpr std::int64_t k_limit = duration_cast<std::chrono::seconds>(util::TimePoint::duration::max()).count() - 1;
    if (seconds > k_limit || seconds < -k_limit) {
        return std::nullopt;
    }
    const auto since_epoch = std::chrono::seconds(seconds) + std::chrono::nanoseconds(fraction_ns);
    return util::TimePoint(std::chrono::duration_cast<util::TimePoint::duration>(since_epoch));
}

}  // namespace results
