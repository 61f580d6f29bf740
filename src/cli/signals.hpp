#pragma once
// SIGINT/SIGTERM/SIGHUP for a run: the first asks for a graceful stop, the second for an
// immediate one. SIGPIPE is ignored: a closed output stream is a failed write, not an end.

#include <atomic>

namespace cli {

// Installs the handlers and returns the counter they increment. A signal handler can only
// reach static storage, hence the one process-wide counter.
const std::atomic<int>& install_stop_handlers();

}  // namespace cli
