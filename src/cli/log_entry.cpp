#include "cli/log_entry.hpp"

#include <fmt/format.h>
#include <spdlog/logger.h>
#include <charconv>
#include <optional>

namespace cli {

namespace {

// "\x1e" EVENT "\x1f" MESSAGE-LENGTH "\x1f" TEXT-LENGTH "\x1f" MESSAGE TEXT FIELDS: the
// message and the text may hold any byte, so they are measured, not delimited.
constexpr char k_start = '\x1e';
constexpr char k_separator = '\x1f';

// The part of `rest` before the next separator, taken off `rest`; nothing without one.
std::optional<std::string_view> take_field(std::string_view& rest) {
    const auto end = rest.find(k_separator);
    if (end == std::string_view::npos) {
        return std::nullopt;
    }
    const auto field = rest.substr(0, end);
    rest.remove_prefix(end + 1);
    return field;
}

std::optional<std::size_t> take_length(std::string_view& rest) {
    const auto field = take_field(rest);
    std::size_t length = 0;
    if (!field || field->empty() ||
        std::from_chars(field->data(), field->data() + field->size(), length).ptr != field->data() + field->size()) {
        return std::nullopt;
    }
    return length;
}

std::optional<LogEntry> unpacked(std::string_view payload) {
    if (payload.empty() || payload.front() != k_start) {
        return std::nullopt;
    }
    std::string_view rest = payload.substr(1);
    const auto event = take_field(rest);
    const auto message_length = take_length(rest);
    const auto text_length = take_length(rest);
    if (!event || !message_length || !text_length || *message_length > rest.size() ||
        *text_length > rest.size() - *message_length) {
        return std::nullopt;
    }
    return LogEntry{.event = *event,
                    .message = rest.substr(0, *message_length),
                    .text = rest.substr(*message_length, *text_length),
                    .fields = rest.substr(*message_length + *text_length)};
}

std::string_view event_of(spdlog::level::level_enum level) {
    switch (level) {
    case spdlog::level::critical:
    case spdlog::level::err: return "error";
    case spdlog::level::warn: return "warning";
    default: return "notice";
    }
}

}  // namespace

std::string pack(const LogEntry& entry) {
    return fmt::format("{}{}{}{}{}{}{}{}{}{}", k_start, entry.event, k_separator, entry.message.size(), k_separator,
                       entry.text.size(), k_separator, entry.message, entry.text, entry.fields);
}

LogEntry unpack(std::string_view payload, spdlog::level::level_enum level) {
    if (auto entry = unpacked(payload)) {
        return *entry;
    }
    return {.event = event_of(level), .message = payload};
}

void log_entry(spdlog::logger& logger, spdlog::level::level_enum level, const LogEntry& entry) {
    const std::string payload = pack(entry);
    logger.log(level, spdlog::string_view_t(payload));
}

}  // namespace cli
