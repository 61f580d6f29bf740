// Typed readers of Section (numbers, booleans, durations, choices) and the helpers that word
// their messages.

#include <fmt/format.h>
#include <algorithm>
#include <charconv>
#include <cmath>

#include "campaign/campaign_file_yaml.hpp"
#include "util/duration.hpp"
#include "util/nearest.hpp"
#include "util/utf8.hpp"

namespace campaign::detail {

namespace {

// `text` read whole as a floating-point number: `read` when it is one (`out_of_range` when too
// large or small for a double, `value` then as std::from_chars leaves it).
struct Number {
    bool read = false;
    bool out_of_range = false;
    double value = 0;
};
Number number_in(const std::string& text) {
    Number out;
    auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), out.value);
    out.out_of_range = ec == std::errc::result_out_of_range;
    out.read = !text.empty() && end == text.data() + text.size() && (ec == std::errc() || out.out_of_range);
    return out;
}

}  // namespace

std::string with_suggestion(std::string message, std::string_view word, std::span<const std::string_view> names) {
    if (auto near = util::nearest(word, names)) {
        message += fmt::format(" (did you mean {}?)", in_quotes(*near));
    }
    return message;
}

std::string in_quotes(std::string_view text) {
    constexpr size_t k_max = 60;
    return fmt::format("\"{}\"", util::clip_utf8(text, k_max));
}

std::optional<size_t> pick(LoadContext& ctx, const Scalar& item, const std::string& path,
                           std::span<const std::string_view> names) {
    for (size_t i = 0; i < names.size(); ++i) {
        if (item.text == names[i]) {
            return i;
        }
    }
    std::string expected;
    for (size_t i = 0; i < names.size(); ++i) {
        expected += (i == 0 ? "" : (i + 1 == names.size() ? " or " : ", ")) + std::string(names[i]);
    }
    ctx.problem(item.line, with_suggestion(fmt::format("{}: expected {}, got {}", path, expected, in_quotes(item.text)),
                                           item.text, names));
    return std::nullopt;
}

std::optional<double> Section::positive_number(std::string_view key, double max) const {
    auto text_value = text_as(key, Need::optional, "a number");
    if (!text_value) {
        return std::nullopt;
    }
    const std::string& s = *text_value;
    const Number number = number_in(s);
    if (!number.read || std::isnan(number.value)) {
        problem(key, "expected a number, got " + in_quotes(s));
        return std::nullopt;
    }
    const double value = number.value;
    if (number.out_of_range || !(value > 0) || value > max) {
        problem(key, fmt::format("must be more than 0 and at most {}, got {}", max, s));
        return std::nullopt;
    }
    return value;
}

std::optional<double> Section::fraction(std::string_view key) const {
    auto text_value = text_as(key, Need::optional, "a number");
    if (!text_value) {
        return std::nullopt;
    }
    const std::string& s = *text_value;
    const Number number = number_in(s);
    const double value = number.value;
    if (!number.read || number.out_of_range || !(value >= 0 && value <= 1)) {
        problem(key, "expected a number from 0 to 1 (0.05 is 5%), got " + in_quotes(s));
        return std::nullopt;
    }
    return value;
}

std::optional<long long> Section::integer(std::string_view key, long long min, long long max) const {
    auto text_value = text_as(key, Need::optional, "a whole number");
    if (!text_value) {
        return std::nullopt;
    }
    const std::string& s = *text_value;
    const char* begin = s.data() + (s.starts_with('+') ? 1 : 0);
    long long value = 0;
    auto [end, ec] = std::from_chars(begin, s.data() + s.size(), value);
    if (begin == s.data() + s.size() || end != s.data() + s.size() ||
        (ec != std::errc() && ec != std::errc::result_out_of_range)) {
        problem(key, "expected a whole number, got " + in_quotes(s));
        return std::nullopt;
    }
    if (ec == std::errc::result_out_of_range || value < min || value > max) {
        problem(key, fmt::format("must be between {} and {}, got {}", min, max, s));
        return std::nullopt;
    }
    return value;
}

std::optional<bool> Section::boolean(std::string_view key) const {
    auto text_value = text_as(key, Need::optional, "true or false");
    if (!text_value) {
        return std::nullopt;
    }
    static constexpr std::string_view k_true[] = {"true", "True", "TRUE", "yes", "Yes", "YES", "on", "On", "ON"};
    static constexpr std::string_view k_false[] = {"false", "False", "FALSE", "no", "No", "NO", "off", "Off", "OFF"};
    if (std::find(std::begin(k_true), std::end(k_true), *text_value) != std::end(k_true)) {
        return true;
    }
    if (std::find(std::begin(k_false), std::end(k_false), *text_value) != std::end(k_false)) {
        return false;
    }
    problem(key, "expected true or false, got " + in_quotes(*text_value));
    return std::nullopt;
}

std::optional<std::chrono::milliseconds> Section::duration(std::string_view key, const DurationRange& range) const {
    auto text_value = text_as(key, Need::optional, "a duration");
    if (!text_value) {
        return std::nullopt;
    }
    auto value = util::parse_duration(*text_value);
    if (!value) {
        problem(key, value.error().message);
        return std::nullopt;
    }
    if (*value < range.min || *value > range.max) {
        problem(key, fmt::format("must be {}, got {}", range.text, *text_value));
        return std::nullopt;
    }
    return *value;
}

std::optional<size_t> Section::choice(std::string_view key, std::span<const std::string_view> names, Need need) const {
    auto text_value = text(key, need);
    if (!text_value) {
        return std::nullopt;
    }
    return pick(*m_ctx, Scalar{*text_value, line_of(key), {}}, path_of(key), names);
}

}  // namespace campaign::detail
