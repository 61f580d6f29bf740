#pragma once
// A diagnostic as it travels through the spdlog logger. spdlog carries one string, so the
// event, the message, its text form and the JSON fields are packed into it here and unpacked
// by the sinks' formatters. A plain message (what `logger.warn("…")` writes) unpacks as that
// message, its event named after its level.

#include <spdlog/fwd.h>
#include <string>
#include <string_view>

namespace cli {

struct LogEntry {
    std::string_view event = {};    // "error", "warning", "notice", "progress"
    std::string_view message = {};  // what a person reads; "message" in JSON
    std::string_view text = {};     // the text form when not "wacamp: EVENT: MESSAGE\n" (may be empty)
    std::string_view fields = {};   // a JSON object of further members, as text (may be empty)
};

// Returns `entry` packed into one string for spdlog.
std::string pack(const LogEntry& entry);

// Returns the entry packed in `payload`, or `payload` as the message of an entry whose event
// is named after `level` ("error", "warning", else "notice"). The views point into `payload`.
LogEntry unpack(std::string_view payload, spdlog::level::level_enum level);

// Logs `entry` at `level` through `logger`.
void log_entry(spdlog::logger& logger, spdlog::level::level_enum level, const LogEntry& entry);

}  // namespace cli
