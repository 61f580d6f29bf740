#pragma once
// Builds one JSON object as one line, without a DOM: formatting `attempt` and `result`
// records is on the dispatcher's hot path.

#include <fmt/format.h>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "results/status.hpp"
#include "util/clock.hpp"

namespace results {

// One object, member by member, in the order added. Keys are trusted literals (not escaped).
class LineBuilder {
public:
    // Starts an object whose first member is "event": `event`.
    explicit LineBuilder(std::string_view event);

    void add_string(std::string_view key, std::string_view value);
    void add_int(std::string_view key, std::int64_t value);
    // Adds `value` as an ISO 8601 UTC timestamp with milliseconds.
    void add_time(std::string_view key, util::TimePoint value);
    void add_strings(std::string_view key, const std::vector<std::string>& values);
    // Adds `json`, which must be one valid JSON value, as it is.
    void add_raw(std::string_view key, std::string_view json);
    // Adds an object {"sent": n, "failed": n, …} with every status.
    void add_counts(std::string_view key, const StatusCounts& counts);

    // Starts an object member `key`: what is added until end_object() goes inside it.
    void begin_object(std::string_view key);
    void end_object();

    // Returns the closed object followed by '\n'.
    std::string finish();

private:
    void add_key(std::string_view key);

    fmt::memory_buffer m_out;
    bool m_first_member = false;  // the next member opens an object: no comma before it
};

}  // namespace results
