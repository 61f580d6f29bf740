#include "util/duration.hpp"

#include <fmt/format.h>
#include <cctype>
#include <cmath>

namespace util {

namespace {

double unit_ms(std::string_view unit) {
    if (unit == "ms") {
        return 1.0;
    }
    if (unit == "s" || unit.empty()) {
        return 1000.0;
    }
    if (unit == "m") {
        return 60'000.0;
    }
    if (unit == "h") {
        return 3'600'000.0;
    }
    if (unit == "d") {
        return 86'400'000.0;
    }
    return -1.0;
}

}  // namespace

Result<std::chrono::milliseconds> parse_duration(std::string_view text) {
    const auto bad = [&] { return fail(fmt::format("\"{}\" is not a duration (examples: 500ms, 15s, 2m, 1h)", text)); };
    if (text.empty()) {
        return bad();
    }
    double total = 0;
    size_t i = 0;
    while (i < text.size()) {
        size_t start = i;
        while (i < text.size() && (std::isdigit(static_cast<unsigned char>(text[i])) || text[i] == '.')) {
            ++i;
        }
        if (i == start) {
            return bad();
        }
        std::string number(text.substr(start, i - start));
        size_t unit_start = i;
        while (i < text.size() && std::isalpha(static_cast<unsigned char>(text[i]))) {
            ++i;
        }
        double ms_per = unit_ms(text.substr(unit_start, i - unit_start));
        if (ms_per < 0 || (unit_start == i && i != text.size())) {
            return bad();
        }
        char* end = nullptr;
        double value = std::strtod(number.c_str(), &end);
        if (end != number.c_str() + number.size() || !std::isfinite(value)) {
            return bad();
        }
        total += value * ms_per;
    }
    if (total > 365.0 * 86'400'000.0) {
        return fail(fmt::format("duration \"{}\" is longer than a year", text));
    }
    return std::chrono::milliseconds(static_cast<long long>(std::llround(total)));
}

std::string format_duration(std::chrono::milliseconds d) {
    long long ms = d.count();
    if (ms < 0) {
        return "-" + format_duration(std::chrono::milliseconds(-ms));
    }
    if (ms < 1000) {
        return fmt::format("{}ms", ms);
    }
    if (ms < 60'000) {
        return fmt::format("{:.1f}s", static_cast<double>(ms) / 1000.0);
    }
    long long s = ms / 1000;
    if (s < 3600) {
        return fmt::format("{}m{:02}s", s / 60, s % 60);
    }
    if (s < 86'400) {
        return fmt::format("{}h{:02}m", s / 3600, (s % 3600) / 60);
    }
    return fmt::format("{}d{:02}h", s / 86'400, (s % 86'400) / 3600);
}

}  // namespace util
