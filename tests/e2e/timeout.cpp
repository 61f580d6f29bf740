#include "timeout.hpp"

#include <cerrno>
#include <csignal>
#include <cstring>
#include <fcntl.h>
#include <poll.h>
#include <spawn.h>
#include <stdexcept>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>

extern char** environ;

namespace e2e {

namespace {

// The parent's environment with `overrides` applied (k_unset removes a variable).
std::vector<std::string> environment_with(const EnvOverrides& overrides) {
    std::vector<std::string> out;
    for (char** e = environ; *e != nullptr; ++e) {
        const std::string entry(*e);
        if (overrides.count(entry.substr(0, entry.find('='))) == 0) {
            out.push_back(entry);
        }
    }
    for (const auto& [name, value] : overrides) {
        if (value != k_unset) {
            out.push_back(name + "=" + value);
        }
    }
    return out;
}

std::vector<char*> pointers(std::vector<std::string>& strings) {
    std::vector<char*> out;
    for (auto& s : strings) {
        out.push_back(s.data());
    }
    out.push_back(nullptr);
    return out;
}

pid_t spawn(std::vector<std::string> argv, const EnvOverrides& env, int out_fd, int err_fd) {
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
    posix_spawn_file_actions_adddup2(&actions, out_fd, 1);
    posix_spawn_file_actions_adddup2(&actions, err_fd, 2);
    auto envs = environment_with(env);
    auto argp = pointers(argv);
    auto envp = pointers(envs);
    pid_t pid = -1;
    const int rc = posix_spawn(&pid, argp[0], &actions, nullptr, argp.data(), envp.data());
    posix_spawn_file_actions_destroy(&actions);
    if (rc != 0) {
        throw std::runtime_error(std::string("posix_spawn: ") + std::strerror(rc));
    }
    return pid;
}

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

} // namespace

TimedResult run_wacamp_within(std::chrono::milliseconds limit, const std::vector<std::string>& args,
                              const EnvOverrides& env) {
    int out_pipe[2];
    int err_pipe[2];
    if (pipe2(out_pipe, O_CLOEXEC) != 0 || pipe2(err_pipe, O_CLOEXEC) != 0) {
        throw std::runtime_error("pipe failed");
    }
    std::vector<std::string> argv{WACAMP_BINARY};
    argv.insert(argv.end(), args.begin(), args.end());
    const pid_t pid = spawn(argv, env, out_pipe[1], err_pipe[1]);
    close(out_pipe[1]);
    close(err_pipe[1]);

    TimedResult result;
    const auto deadline = std::chrono::steady_clock::now() + limit;
    pollfd fds[2] = {{out_pipe[0], POLLIN, 0}, {err_pipe[0], POLLIN, 0}};
    std::string* sinks[2] = {&result.out, &result.err};
    int open_fds = 2;
    char buffer[65536];
    while (open_fds > 0) {
        const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
            deadline - std::chrono::steady_clock::now());
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
        for (int i = 0; i < 2; ++i) {
            if (fds[i].fd >= 0 && (fds[i].revents & (POLLIN | POLLHUP | POLLERR)) != 0) {
                const ssize_t n = read(fds[i].fd, buffer, sizeof buffer);
                if (n > 0) {
                    sinks[i]->append(buffer, static_cast<size_t>(n));
                } else {
                    close(fds[i].fd);
                    fds[i].fd = -1;
                    --open_fds;
                }
            }
        }
    }
    for (const auto& fd : fds) {
        if (fd.fd >= 0) {
            close(fd.fd);
        }
    }
    result.exit_code = wait_until(pid, deadline, result);
    return result;
}

} // namespace e2e
