#pragma once
// Whether the result log a writer holds open is still the file at its path, whole: a log
// deleted, moved away, replaced or truncated under a run would let the next run send again.

#include <cstdint>
#include <string>

#include "util/result.hpp"

namespace results {

enum class LogFate {
    intact,     // the file at the path, at least as long as written
    deleted,    // unlinked: no name leads to it any more
    moved,      // renamed away (or hard-linked elsewhere and unlinked); nothing at the path
    replaced,   // another file is at the path now
    truncated,  // shorter than what was written to it
};

struct LogCheck {
    LogFate fate = LogFate::intact;
    std::int64_t size = 0;  // the open file's size now
};

// Compares the open file `fd` with the file at `path` now and with the `written` bytes it
// should hold at least: one fstat(2) and one stat(2). Fails only when fstat fails.
util::Result<LogCheck> check_open_log(int fd, const std::string& path, std::int64_t written);

// Returns the name the open file `fd` has now ("" when unknown, or when it has none).
std::string current_name(int fd);

// Copies the open file `fd` (a deleted or moved log) into a new file at `path`, or at
// "`path`.recovered" when something is at `path` already: written to a temporary file,
// synced, then linked into place, so the place is never taken from anyone and never holds a
// partial copy. Returns where the copy is. Fails with the OS reason.
util::Result<std::string> restore_log(int fd, const std::string& path);

// The message for a log that is not `intact` (`restored`: where restore_log copied it).
std::string describe_fate(const std::string& path, const LogCheck& check, std::int64_t written, int fd,
                          const std::string& restored);

}  // namespace results
