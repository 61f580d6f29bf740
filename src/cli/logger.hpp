#pragma once
// The spdlog logger every diagnostic goes through, built from a list of sinks. The logger is
// passed by reference, never registered in spdlog's global registry.

#include <spdlog/fwd.h>
#include <memory>
#include <vector>

#include "cli/log_format.hpp"

namespace cli {

class Stream;

// One place diagnostics go, and in which format. Today: a stream (stderr). A log file or
// journald would be another kind of choice here.
struct SinkChoice {
    LogFormat format = LogFormat::text;
    std::shared_ptr<Stream> stream;
};

// Returns a sink that writes each diagnostic to `stream` in `format`, secrets in `redactor`
// masked. Its formatter is fixed: set_pattern and set_formatter are ignored, so nothing can
// replace the masking and escaping.
std::shared_ptr<spdlog::sinks::sink> make_stream_sink(LogFormat format, std::shared_ptr<Stream> stream,
                                                      std::shared_ptr<const util::Redactor> redactor);

// Returns a logger named "wacamp" that writes every diagnostic (info and above) to each of
// `sinks`, masking the secrets in `redactor`. It never throws and never aborts: a write that
// fails is dropped (the stream remembers it failed), and spdlog's error handler is silent.
std::shared_ptr<spdlog::logger> make_logger(const std::vector<SinkChoice>& sinks,
                                            std::shared_ptr<const util::Redactor> redactor);

}  // namespace cli
