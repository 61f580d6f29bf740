#pragma once
// Diagnostics for journald, when systemd connected stderr to the journal: each one becomes an
// entry with structured fields (MESSAGE, PRIORITY, WACAMP_EVENT, WACAMP_CAMPAIGN, and the
// fields of its JSON form as WACAMP_*), sent with sd_journal_sendv — `journalctl
// WACAMP_EVENT=warning` finds them. spdlog's own systemd sink sends only the message and the
// priority.

#include <spdlog/fwd.h>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace util {
class Redactor;
}  // namespace util

namespace cli {

class Stream;
struct LogEntry;

// Whether `journal_stream` (the JOURNAL_STREAM variable, "DEVICE:INODE") names the file open
// on `fd`: systemd sets it for a service whose stderr goes to the journal, and a child that
// redirected its stderr elsewhere inherits the variable but no longer matches it.
bool is_journal_stream(const char* journal_stream, int fd);

// The fields of one journal entry ("KEY=value"), secrets masked and text made printable:
// MESSAGE, PRIORITY (3 error, 4 warning, 6 otherwise), SYSLOG_IDENTIFIER=wacamp,
// WACAMP_EVENT, WACAMP_CAMPAIGN (when `campaign` is not empty), then each member of the
// entry's JSON fields as WACAMP_NAME (upper case; objects and arrays as JSON text).
std::vector<std::string> journal_fields(const LogEntry& entry, spdlog::level::level_enum level,
                                        std::string_view campaign, const util::Redactor& redactor);

// Sends one entry's fields to the journal; returns 0 or a negative errno (sd_journal_sendv).
using JournalSend = std::function<int(const std::vector<std::string>& fields)>;

// The journal's own sender: sd_journal_sendv, to /run/systemd/journal/socket.
int send_to_journal(const std::vector<std::string>& fields);

// Returns a sink sending each diagnostic through `send`, with WACAMP_CAMPAIGN from `campaign`
// (read at each entry; set once the campaign is known). An entry the journal refuses is
// written to `fallback` (stderr, which the journal reads too) as text instead.
std::shared_ptr<spdlog::sinks::sink> make_journal_sink(std::shared_ptr<const util::Redactor> redactor,
                                                       std::shared_ptr<const std::string> campaign,
                                                       std::shared_ptr<Stream> fallback, JournalSend send);

}  // namespace cli
