#pragma once
// The journal: one JSON line per request received, so tests can count what was delivered.

#include <cstdio>
#include <memory>
#include <mutex>
#include <nlohmann/json_fwd.hpp>
#include <optional>
#include <string>
#include <string_view>

#include "util/clock.hpp"
#include "util/result.hpp"

namespace sandbox {

// How a request was answered; its journal name is the enumerator's name.
enum class Outcome { ok, rate_limited, error, rejected, dropped, unauthorized, invalid, spam_limit, meta_error };
inline constexpr size_t k_outcome_count = 9;

// Returns the journal name of `outcome` ("rate_limited").
std::string_view outcome_name(Outcome outcome);

struct JournalEntry {
    util::TimePoint at;  // when the request arrived
    std::string_view method;
    std::string_view path;      // without the query (it may hold the key)
    std::optional<int> status;  // nothing: the connection was dropped
    Outcome outcome = Outcome::ok;
    std::string_view wa_id;                // empty: the body had none
    std::string_view message_id;           // empty: not answered ok
    const nlohmann::json* body = nullptr;  // null: no JSON body
    int peer_port = 0;                     // the client's port, telling its connections apart; 0: not known
};

// Returns `entry` as one line of JSON, without the newline: `at` is ISO-8601 UTC with
// milliseconds, `status` is null for a dropped connection, `wa_id`, `message_id` and
// `peer_port` appear only when set.
std::string format_journal_line(const JournalEntry& entry);

// An append-only JSON Lines file; safe to use from many threads.
class Journal {
public:
    ~Journal();
    Journal(const Journal&) = delete;
    Journal& operator=(const Journal&) = delete;

    // Opens `path` for appending (creating it); fails naming the path and the reason.
    static util::Result<std::unique_ptr<Journal>> open(const std::string& path);
    // Appends `entry` as one line and flushes it. A failed write is remembered (error()).
    void append(const JournalEntry& entry);
    // Returns the first write failure, or nothing.
    std::optional<std::string> error() const;

private:
    explicit Journal(std::FILE* file, std::string path) : m_file(file), m_path(std::move(path)) {}

    std::FILE* m_file;
    std::string m_path;
    mutable std::mutex m_mutex;
    std::optional<std::string> m_error;
};

}  // namespace sandbox
