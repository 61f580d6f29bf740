#pragma once
// How diagnostics look: text for people ("wacamp: warning: …") or JSON Lines for log
// collectors ({"time", "level", "event", "message", …}). Both formatters mask secrets and
// text escapes control characters, so nothing written through a sink can show either.

#include <spdlog/fwd.h>
#include <chrono>
#include <memory>
#include <nlohmann/json_fwd.hpp>
#include <string>
#include <string_view>

namespace util {
class Redactor;
}  // namespace util

namespace cli {

enum class LogFormat { text, json };
enum class Level { info, warning, error };

// The format named `name`: "json", else text.
LogFormat log_format_of(std::string_view name);

// Returns a formatter of `format` that masks the secrets `redactor` holds (then and later).
// Text: an entry's own text form, else "wacamp: EVENT: MESSAGE" ("wacamp: MESSAGE" for a
// notice), control characters and escape sequences escaped, line breaks kept. JSON: one
// object of "time", "level", "event", "message" and the entry's fields.
std::unique_ptr<spdlog::formatter> make_formatter(LogFormat format, std::shared_ptr<const util::Redactor> redactor);

// Returns `text` as text output shows it: secrets masked, control characters and escape
// sequences (from the service, the CSV) escaped, line breaks kept.
std::string shown(std::string_view text, const util::Redactor& redactor);

// Returns one JSON line (ending in "\n") of "time", "level", "event" and then `fields`, with
// secrets masked in every string and bytes that are not UTF-8 replaced.
std::string json_line(std::chrono::system_clock::time_point time, Level level, std::string_view event,
                      const nlohmann::ordered_json& fields, const util::Redactor& redactor);

}  // namespace cli
