#include "timeout.hpp"

#include <fcntl.h>
#include <poll.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cerrno>
#include <csignal>
#include <cstring>
#include <stdexcept>
#include <thread>

namespace e2e {

namespace {

int exit_code_of(int status) {
    return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

// Waits for `pid` to end, killing it at `deadline` (a process may close its output and
// still hang).
int wait_until(pid_t pid, std::chrono::steady_clock::time_point deadline, TimedResult& result) {
    int status = 0;
    for (;;) {
        const pid_t got = waitpid(pid, &status, WNOHANG);
        if (got == pid) {
            return exit_code_of(status);
        }
        if (got < 0 && errno != EINTR) {
            throw std::runtime_error(std::string("waitpid: ") + std::strerror(errno));
        }
        if (!result.timed_out && std::chrono::steady_clock::now() >= deadline) {
            result.timed_out = true;
            kill(pid, SIGKILL);
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
}

}  // namespace

TimedResult run_wacamp_within(std::chrono::milliseconds limit, const std::vector<std::string>& args,
                              const EnvOverrides& env) {
    int out_pipe[2];
    int err_pipe[2];
    if (pipe2(out_pipe, O_CLOEXEC) != 0 || pipe2(err_pipe, O_CLOEXEC) != 0) {
        throw std::runtime_error("pipe failed");
    }
    std::vector<std::string> argv{WACAMP_BINARY};
    argv.insert(argv.end(), args.begin(), args.end());
    const int devnull = open("/dev/null", O_RDONLY | O_CLOEXEC);
    const pid_t pid = spawn_process(argv, env, devnull, out_pipe[1], err_pipe[1]);
    close(devnull);
    close(out_pipe[1]);
    close(err_pipe[1]);

    TimedResult result;
    const auto deadline = std::chrono::steady_clock::now() + limit;
    pollfd fds[2] = {{out_pipe[0], POLLIN, 0}, {err_pipe[0], POLLIN, 0}};
    std::string* const sinks[2] = {&result.out, &result.err};
    int open_fds = 2;
    while (open_fds > 0) {
        const auto left =
            std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
        if (left.count() <= 0) {
            // Killed, its pipes close, and the loop drains what is left.
            if (!result.timed_out) {
                result.timed_out = true;
                kill(pid, SIGKILL);
            }
        }
        const int timeout_ms = result.timed_out ? -1 : static_cast<int>(left.count());
        if (::poll(fds, 2, timeout_ms) < 0 && errno != EINTR) {
            break;
        }
        read_ready(fds, sinks, open_fds);
    }
    for (const auto& fd : fds) {
        if (fd.fd >= 0) {
            close(fd.fd);
        }
    }
    result.exit_code = wait_until(pid, deadline, result);
    return result;
}

}  // namespace e2e
