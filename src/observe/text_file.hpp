#pragma once
// The metrics file of --metrics-file, for node_exporter's textfile collector: checked before
// anything is sent, and replaced whole each time so that the collector never reads half of it.

#include <optional>
#include <string>
#include <string_view>

#include "util/result.hpp"

namespace observe {

// Checks `path` as a metrics file: it ends in ".prom" (the textfile collector reads only
// those), its folder exists, is a folder and can be written to, and `path` is not a folder.
// Fails saying what is wrong, naming `path`.
util::Result<void> check_metrics_path(const std::string& path);

// Replaces the file at `path` with `text`: written to a temporary file in the same folder
// (".NAME.XXXXXX", which the collector ignores), forced to disk, made readable by all (0644)
// and renamed over `path`, so that a reader sees the old file or the new one, never a part.
// Fails naming `path` and why, and leaves no temporary file behind.
util::Result<void> write_atomically(const std::string& path, std::string_view text);

// Returns the content of the file at `path` when it is a regular file of at most `max_bytes`;
// nothing otherwise.
std::optional<std::string> read_small_file(const std::string& path, std::size_t max_bytes);

}  // namespace observe
