#pragma once
// What a result-log path may name before wacamp writes there: a regular file (directly or
// through symlinks), or nothing yet. Anything else is refused untouched.

#include <string>
#include <string_view>

#include "util/result.hpp"

namespace results {

struct LogPath {
    std::string resolved;  // the path with every symlink followed: where the log really is (or will be)
    bool exists = false;   // a regular file is there now
};

// Returns where `path` resolves to. Fails, touching nothing, when `path` is a symlink whose
// target does not exist (or a symlink loop), or names something that is not a regular file
// (a folder, a FIFO, a device, a socket), saying which. A path that does not exist yet (or
// whose folder does not) passes: the writer creates it.
util::Result<LogPath> resolve_log_path(const std::string& path);

// What a file written like the result log is, for messages: {"journal", "a journal"}.
struct OutputKind {
    std::string_view name;
    std::string_view noun;
};
// resolve_log_path for another file written the same way (the sandbox's journal).
util::Result<LogPath> resolve_output_path(const std::string& path, const OutputKind& kind);

}  // namespace results
