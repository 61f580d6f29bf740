// The `schedule` section of a campaign file: when to start, until when a send is on time, and the
// weekly sending window.

#include <fmt/format.h>
#include <algorithm>
#include <cctype>
#include <filesystem>

#include "campaign/campaign_file_sections.hpp"
#include "util/text.hpp"
#include "util/time.hpp"

namespace campaign::detail {

namespace {

constexpr std::string_view k_schedule_keys[] = {"start_at", "not_after", "max_delay", "window"};
constexpr std::string_view k_window_keys[] = {"timezone", "fallback_timezone", "days", "from", "to"};
// Index i is weekday i (0 = Sunday), the numbering of Window::days and std::chrono::weekday.
constexpr std::string_view k_day_names[] = {"sun", "mon", "tue", "wed", "thu", "fri", "sat"};
constexpr std::string_view k_full_day_names[] = {"sunday",   "monday", "tuesday", "wednesday",
                                                 "thursday", "friday", "saturday"};

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

// `timezone`: a zone, or `recipient` with `fallback_timezone` for rows whose zone is unknown.
void read_window_zone(const Section& w, Window& window) {
    const auto known = [&](std::string_view key, std::optional<std::string> zone) -> std::optional<std::string> {
        if (zone && !known_timezone(*zone)) {
            w.problem(key, "unknown time zone " + in_quotes(*zone) + " (expected an IANA name like Asia/Kolkata)");
            return std::nullopt;
        }
        return zone;
    };
    auto zone = w.text("timezone", Need::required);
    window.per_recipient = zone == "recipient";
    if (!window.per_recipient) {
        window.timezone = known("timezone", std::move(zone)).value_or("");
        if (w.has("fallback_timezone")) {
            w.problem("fallback_timezone", "only applies to timezone: recipient");
        }
        return;
    }
    if (!w.has("fallback_timezone")) {
        w.problem("timezone",
                  "recipient needs schedule.window.fallback_timezone, the zone of rows whose zone is neither in "
                  "recipients.columns.time_zone nor told by their number's country");
        return;
    }
    window.fallback_timezone = known("fallback_timezone", w.text("fallback_timezone")).value_or("");
}

void read_window(const Section& s, Schedule& out) {
    auto section = s.section("window", Need::optional, k_window_keys);
    if (!section) {
        return;
    }
    const Section& w = *section;
    Window window;
    read_window_zone(w, window);
    window.days = read_days(w);
    constexpr int k_bad = -1;
    auto from_text = w.text("from");
    auto to_text = w.text("to");
    const int from = from_text ? util::parse_time_of_day(*from_text).value_or(k_bad) : window.from_minute;
    const int to = to_text ? util::parse_time_of_day(*to_text).value_or(k_bad) : window.to_minute;
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

namespace {

// A timestamp in the relaxed syntax of start_at; a problem naming `key` when it is not one.
std::optional<std::chrono::system_clock::time_point> read_timestamp(const Section& s, std::string_view key) {
    auto text = s.text(key);
    if (!text) {
        return std::nullopt;
    }
    auto at = util::parse_timestamp(*text, util::TimestampSyntax::relaxed);
    if (!at) {
        s.problem(key, in_quotes(*text) + " " + at.error().message);
        return std::nullopt;
    }
    return *at;
}

// `not_after` and `max_delay`: when a campaign is too late to send (docs/campaign-file.md).
void read_deadline(const Section& s, Schedule& out) {
    out.not_after = read_timestamp(s, "not_after");
    if (out.not_after && out.start_at && *out.not_after <= *out.start_at) {
        s.problem("not_after", fmt::format("must be after start_at ({}), got {}", util::format_timestamp(*out.start_at),
                                           util::format_timestamp(*out.not_after)));
    }
    using std::chrono::hours;
    using std::chrono::seconds;
    out.max_delay = s.duration("max_delay", {seconds(1), hours(24 * 366), "between 1s and 366d"});
    if (out.max_delay && !s.text("start_at")) {
        s.problem("max_delay", "needs schedule.start_at: the delay is counted from the start time");
    }
}

}  // namespace

void read_schedule(const Section& root, Schedule& out) {
    auto section = root.section("schedule", Need::optional, k_schedule_keys);
    if (!section) {
        return;
    }
    out.start_at = read_timestamp(*section, "start_at");
    read_deadline(*section, out);
    read_window(*section, out);
}

}  // namespace campaign::detail
