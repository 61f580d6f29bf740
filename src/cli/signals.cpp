#include "cli/signals.hpp"

#include <csignal>

namespace cli {

namespace {

std::atomic<int> g_stop_requests{0};

extern "C" void on_stop_signal(int /*signal*/) {
    g_stop_requests.fetch_add(1);
}

}  // namespace

const std::atomic<int>& install_stop_handlers() {
    struct sigaction action {};
    action.sa_handler = on_stop_signal;
    sigemptyset(&action.sa_mask);
    sigaction(SIGINT, &action, nullptr);
    sigaction(SIGTERM, &action, nullptr);
    sigaction(SIGHUP, &action, nullptr);  // the terminal closed or ssh dropped: stop as gracefully
    std::signal(SIGPIPE, SIG_IGN);
    std::signal(SIGXFSZ, SIG_IGN);  // a file size limit: the write fails (EFBIG) and the run stops with log_error
    return g_stop_requests;
}

}  // namespace cli
