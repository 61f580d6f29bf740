#pragma once
// The spdlog loggers every diagnostic goes through, built from sinks: stderr (text or JSON
// Lines), journald when stderr is connected to the journal, and a rotating log file. The
// loggers are passed by reference, never registered in spdlog's global registry.

#include <spdlog/fwd.h>
#include <cstddef>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "cli/log_format.hpp"
#include "util/result.hpp"

namespace cli {

class Stream;

// Returns a sink that writes each diagnostic to `stream` in `format`, secrets in `redactor`
// masked. Its formatter is fixed: set_pattern and set_formatter are ignored, so nothing can
// replace the masking and escaping.
std::shared_ptr<spdlog::sinks::sink> make_stream_sink(LogFormat format, std::shared_ptr<Stream> stream,
                                                      std::shared_ptr<const util::Redactor> redactor);

// How big a log file grows before it is rotated, and how many rotated files are kept.
struct Rotation {
    std::size_t max_bytes = std::size_t{10} * 1024 * 1024;
    std::size_t max_files = 5;
};

// Returns a sink that appends each diagnostic to the file at `path` in `format`, secrets
// masked, rotating it as `rotation` says (PATH.log → PATH.1.log → … PATH.5.log, the oldest
// dropped). Fails, naming `path`, when its folder does not exist or the file cannot be opened.
// The first write that fails (a full disk) calls `on_failure` once with why; nothing is written
// to the file after that.
util::Result<std::shared_ptr<spdlog::sinks::sink>> make_file_sink(const std::string& path, LogFormat format,
                                                                  std::shared_ptr<const util::Redactor> redactor,
                                                                  Rotation rotation,
                                                                  std::function<void(const std::string&)> on_failure);

// Returns a logger named "wacamp" that writes every diagnostic (info and above) to each of
// `sinks`. It never throws and never aborts: a write that fails is dropped (the sink
// remembers it failed), and spdlog's error handler is silent.
std::shared_ptr<spdlog::logger> make_logger(const std::vector<std::shared_ptr<spdlog::sinks::sink>>& sinks);

}  // namespace cli
