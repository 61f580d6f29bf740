#include "sandbox/journal.hpp"

#include <fmt/format.h>
#include <cerrno>
#include <cstring>
#include <nlohmann/json.hpp>

#include "results/log_path.hpp"
#include "util/time.hpp"

namespace sandbox {

std::string_view outcome_name(Outcome outcome) {
    switch (outcome) {
    case Outcome::ok: return "ok";
    case Outcome::rate_limited: return "rate_limited";
    case Outcome::error: return "error";
    case Outcome::rejected: return "rejected";
    case Outcome::dropped: return "dropped";
    case Outcome::unauthorized: return "unauthorized";
    case Outcome::invalid: return "invalid";
    case Outcome::spam_limit: return "spam_limit";
    case Outcome::meta_error: return "meta_error";
    }
    return "unknown";
}

std::string format_journal_line(const JournalEntry& entry) {
    nlohmann::ordered_json line;
    line["at"] = util::format_timestamp(entry.at);
    line["method"] = entry.method;
    line["path"] = entry.path;
    line["status"] = entry.status ? nlohmann::ordered_json(*entry.status) : nlohmann::ordered_json();
    line["outcome"] = outcome_name(entry.outcome);
    if (!entry.wa_id.empty()) {
        line["wa_id"] = entry.wa_id;
    }
    if (!entry.message_id.empty()) {
        line["message_id"] = entry.message_id;
    }
    if (entry.peer_port > 0) {
        line["peer_port"] = entry.peer_port;
    }
    line["body"] = entry.body != nullptr ? nlohmann::ordered_json(*entry.body) : nlohmann::ordered_json();
    // Replace, not throw, on invalid UTF-8 in a client's body.
    return line.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

Journal::~Journal() {
    std::fclose(m_file);
}

util::Result<std::unique_ptr<Journal>> Journal::open(const std::string& path) {
    // As the result log: a symlink to a file is followed; a FIFO (opening it would wait for a
    // reader), a device or a folder is refused.
    TRY_ASSIGN(const auto resolved, results::resolve_output_path(path, {"journal", "a journal"}));
    std::FILE* file = std::fopen(resolved.resolved.c_str(), "a");
    if (file == nullptr) {
        return util::fail("cannot open journal " + path + ": " + std::strerror(errno));
    }
    return std::unique_ptr<Journal>(new Journal(file, path));
}

void Journal::append(const JournalEntry& entry) {
    std::string line = format_journal_line(entry);
    line.push_back('\n');
    std::lock_guard<std::mutex> lock(m_mutex);
    if (std::fwrite(line.data(), 1, line.size(), m_file) != line.size() || std::fflush(m_file) != 0) {
        if (!m_error) {
            m_error = "cannot write journal " + m_path + ": " + std::strerror(errno);
        }
    }
}

std::optional<std::string> Journal::error() const {
    std::lock_guard<std::mutex> lock(m_mutex);
    return m_error;
}

}  // namespace sandbox
