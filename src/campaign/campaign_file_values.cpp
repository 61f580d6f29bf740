// Typed readers of Section (numbers, booleans, durations, choices) and the helpers that word
// their messages.

#include <fmt/format.h>
#include <algorithm>
#include <charconv>
#include <cmath>

#include "campaign/campaign_file_yaml.hpp"
#include "util/duration.hpp"

namespace campaign::detail {

namespace {

size_t edit_distance(std::string_view a, std::string_view b) {
    std::vector<size_t> row(b.size() + 1);
    for (size_t j = 0; j <= b.size(); ++j) {
        row[j] = j;
    }
    for (size_t i = 1; i <= a.size(); ++i) {
        size_t diagonal = row[0];
        row[0] = i;
        for (size_t j = 1; j <= b.size(); ++j) {
            const size_t above = row[j];
            const size_t cost = a[i - 1] == b[j - 1] ? 0 : 1;
            row[j] = std::min({row[j] + 1, row[j - 1] + 1, diagonal + cost});
            diagonal = above;
        }
    }
    return row[b.size()];
}

// Returns the candidate nearest to `word`, when it is near enough to be a typo.
std::optional<std::string_view> closest(std::string_view word, std::span<const std::string_view> candidates) {
    std::optional<std::string_view> best;
    size_t best_distance = 0;
    for (auto candidate : candidates) {
        const size_t d = edit_distance(word, candidate);
        if (!best || d < best_distance) {
            best = candidate;
            best_distance = d;
        }
    }
    // Near enough to be a typo ("per_sec" → "per_second"), not just any other word.
    const size_t longest = best ? std::max(word.size(), best->size()) : 0;
    if (!best || best_distance > std::max<size_t>(2, (longest + 1) / 3)) {
        return std::nullopt;
    }
    return best;
}

// Returns the length of the well-formed UTF-8 sequence at `p` (no overlong forms, no
// surrogates, nothing above U+10FFFF) and sets `cp` to its code point; 0 when there is none.
size_t utf8_sequence(const unsigned char* p, const unsigned char* end, unsigned& cp) {
    const unsigned char c = *p;
    const size_t n = c >= 0xC2 && c <= 0xDF ? 2 : (c >= 0xE0 && c <= 0xEF ? 3 : (c >= 0xF0 && c <= 0xF4 ? 4 : 0));
    if (n == 0 || static_cast<size_t>(end - p) < n) {
        return 0;
    }
    cp = c & (n == 2 ? 0x1Fu : (n == 3 ? 0x0Fu : 0x07u));
    for (size_t i = 1; i < n; ++i) {
        if ((p[i] & 0xC0) != 0x80) {
            return 0;
        }
        cp = (cp << 6) | (p[i] & 0x3Fu);
    }
    const unsigned min = n == 2 ? 0x80 : (n == 3 ? 0x800 : 0x10000);
    return cp >= min && cp <= 0x10FFFF && !(cp >= 0xD800 && cp <= 0xDFFF) ? n : 0;
}

}  // namespace

std::string with_suggestion(std::string message, std::string_view word, std::span<const std::string_view> names) {
    if (auto near = closest(word, names)) {
        message += fmt::format(" (did you mean {}?)", in_quotes(*near));
    }
    return message;
}

std::string printable(std::string_view text) {
    std::string out;
    out.reserve(text.size());
    const auto* p = reinterpret_cast<const unsigned char*>(text.data());
    const auto* end = p + text.size();
    while (p < end) {
        const unsigned char c = *p;
        if (c >= 0x20 && c < 0x7F) {
            out.push_back(static_cast<char>(c));
            ++p;
            continue;
        }
        if (c < 0x80) {
            out += c == '\n' ? "\\n" : c == '\r' ? "\\r" : c == '\t' ? "\\t" : fmt::format("\\x{:02x}", c);
            ++p;
            continue;
        }
        unsigned cp = 0;
        const size_t n = utf8_sequence(p, end, cp);
        if (n == 0) {
            out += "\xEF\xBF\xBD";  // U+FFFD
            ++p;
            continue;
        }
        // C1 controls and bidirectional overrides would garble the message on a terminal.
        if (cp < 0xA0 || (cp >= 0x202A && cp <= 0x202E) || (cp >= 0x2066 && cp <= 0x2069)) {
            out += fmt::format("\\u{:04x}", cp);
        } else {
            out.append(reinterpret_cast<const char*>(p), n);
        }
        p += n;
    }
    return out;
}

std::string in_quotes(std::string_view text) {
    constexpr size_t k_max = 60;
    if (text.size() > k_max) {
        size_t cut = k_max;
        while (cut > 0 && (static_cast<unsigned char>(text[cut]) & 0xC0) == 0x80) {
            --cut;  // not inside a UTF-8 sequence
        }
        return fmt::format("\"{}…\"", text.substr(0, cut));
    }
    return fmt::format("\"{}\"", text);
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
    double value = 0;
    auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), value);
    if (s.empty() || end != s.data() + s.size() || (ec != std::errc() && ec != std::errc::result_out_of_range) ||
        std::isnan(value)) {
        problem(key, "expected a number, got " + in_quotes(s));
        return std::nullopt;
    }
    if (ec == std::errc::result_out_of_range || !(value > 0) || value > max) {
        problem(key, fmt::format("must be more than 0 and at most {}, got {}", max, s));
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
