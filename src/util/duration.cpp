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

}  // namespace util
