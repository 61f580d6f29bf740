#include "harness.hpp"

#include <fcntl.h>
#include <poll.h>
#include <pty.h>
#include <spawn.h>
#include <sys/ioctl.h>
#include <sys/wait.h>
#include <termios.h>
#include <unistd.h>
#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstring>
#include <fstream>
#include <random>
#include <sstream>
#include <stdexcept>
#include <thread>

extern char** environ;

namespace e2e {

namespace {

std::vector<std::string> child_environment(const EnvOverrides& overrides) {
    std::vector<std::string> out;
    for (char** e = environ; *e != nullptr; ++e) {
        std::string entry(*e);
        std::string name = entry.substr(0, entry.find('='));
        if (overrides.count(name) == 0) {
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

int wait_exit(pid_t pid) {
    int status = 0;
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
    if (WIFEXITED(status)) {
        return WEXITSTATUS(status);
    }
    return 128 + WTERMSIG(status);
}

}  // namespace

pid_t spawn_process(std::vector<std::string> argv, const EnvOverrides& env, int in_fd, int out_fd, int err_fd) {
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_adddup2(&actions, in_fd, 0);
    posix_spawn_file_actions_adddup2(&actions, out_fd, 1);
    if (err_fd >= 0) {
        posix_spawn_file_actions_adddup2(&actions, err_fd, 2);
    } else {
        posix_spawn_file_actions_addclose(&actions, 2);
    }
    auto envs = child_environment(env);
    auto argp = pointers(argv);
    auto envp = pointers(envs);
    pid_t pid = -1;
    int rc = posix_spawn(&pid, argp[0], &actions, nullptr, argp.data(), envp.data());
    posix_spawn_file_actions_destroy(&actions);
    if (rc != 0) {
        throw std::runtime_error(std::string("posix_spawn: ") + std::strerror(rc));
    }
    return pid;
}

void read_ready(pollfd (&fds)[2], std::string* const (&sinks)[2], int& open_fds) {
    char buffer[65536];
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

ProcessResult run_wacamp(const std::vector<std::string>& args, const EnvOverrides& env, const std::string& input) {
    std::vector<std::string> argv{WACAMP_BINARY};
    argv.insert(argv.end(), args.begin(), args.end());
    return run_program(argv, env, input);
}

ProcessResult run_program(const std::vector<std::string>& argv, const EnvOverrides& env, const std::string& input) {
    int in_pipe[2], out_pipe[2], err_pipe[2];
    if (pipe2(in_pipe, O_CLOEXEC) != 0 || pipe2(out_pipe, O_CLOEXEC) != 0 || pipe2(err_pipe, O_CLOEXEC) != 0) {
        throw std::runtime_error("pipe failed");
    }
    pid_t pid = spawn_process(argv, env, in_pipe[0], out_pipe[1], err_pipe[1]);
    close(in_pipe[0]);
    close(out_pipe[1]);
    close(err_pipe[1]);
    // Writing stdin first is safe for the small inputs tests use.
    if (!input.empty()) {
        (void)!write(in_pipe[1], input.data(), input.size());
    }
    close(in_pipe[1]);

    ProcessResult result;
    pollfd fds[2] = {{out_pipe[0], POLLIN, 0}, {err_pipe[0], POLLIN, 0}};
    std::string* const sinks[2] = {&result.out, &result.err};
    int open_fds = 2;
    while (open_fds > 0) {
        if (::poll(fds, 2, -1) < 0 && errno != EINTR) {
            break;
        }
        read_ready(fds, sinks, open_fds);
    }
    result.exit_code = wait_exit(pid);
    return result;
}

Background::Background(const std::vector<std::string>& args, const EnvOverrides& env, Stderr err) {
    m_dir = std::filesystem::temp_directory_path() / ("wacamp-bg-" + std::to_string(std::random_device{}()));
    std::filesystem::create_directories(m_dir);
    std::vector<std::string> argv{WACAMP_BINARY};
    argv.insert(argv.end(), args.begin(), args.end());
    int devnull = open("/dev/null", O_RDONLY | O_CLOEXEC);
    int out_fd = open((m_dir / "out").c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    int err_fd =
        err == Stderr::file ? open((m_dir / "err").c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644) : -1;
    m_pid = spawn_process(argv, env, devnull, out_fd, err_fd);
    close(devnull);
    close(out_fd);
    if (err_fd >= 0) {
        close(err_fd);
    }
}

Background::~Background() {
    if (m_pid > 0 && m_exit < 0) {
        kill(m_pid, SIGKILL);
        wait_exit(m_pid);
    }
    std::error_code ec;
    std::filesystem::remove_all(m_dir, ec);
}

void Background::signal(int sig) {
    if (m_exit < 0) {
        kill(m_pid, sig);
    }
}

int Background::wait() {
    if (m_exit < 0) {
        m_exit = wait_exit(m_pid);
    }
    return m_exit;
}

std::optional<int> Background::wait_for(std::chrono::milliseconds bound) {
    const auto end = std::chrono::steady_clock::now() + bound;
    while (m_exit < 0) {
        int status = 0;
        const pid_t done = waitpid(m_pid, &status, WNOHANG);
        if (done == m_pid) {
            m_exit = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
            break;
        }
        if (std::chrono::steady_clock::now() >= end) {
            return std::nullopt;
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    return m_exit;
}

std::string Background::out() const {
    return read_file(m_dir / "out");
}

std::string Background::err() const {
    return read_file(m_dir / "err");
}

TerminalProcess::TerminalProcess(const std::vector<std::string>& args, const EnvOverrides& env,
                                 unsigned short columns) {
    winsize size{};
    size.ws_col = columns;
    size.ws_row = 24;
    int side = -1;
    if (openpty(&m_terminal, &side, nullptr, nullptr, &size) != 0) {
        throw std::runtime_error(std::string("openpty: ") + std::strerror(errno));
    }
    termios mode{};
    tcgetattr(side, &mode);
    cfmakeraw(&mode);  // shown as written: "\n" stays "\n"
    tcsetattr(side, TCSANOW, &mode);
    fcntl(m_terminal, F_SETFD, FD_CLOEXEC);
    fcntl(side, F_SETFD, FD_CLOEXEC);
    std::vector<std::string> argv{WACAMP_BINARY};
    argv.insert(argv.end(), args.begin(), args.end());
    m_pid = spawn_process(argv, env, side, side, side);
    close(side);  // once the process has gone, reading the terminal ends
    m_reader = std::thread([this] { read_all(); });
}

TerminalProcess::~TerminalProcess() {
    if (m_exit < 0) {
        kill(m_pid, SIGKILL);
        wait();
    }
    close(m_terminal);
}

void TerminalProcess::read_all() {
    char buffer[4096];
    for (;;) {
        const ssize_t n = read(m_terminal, buffer, sizeof buffer);
        if (n < 0 && errno == EINTR) {
            continue;
        }
        if (n <= 0) {
            return;  // EIO: no process has the terminal open any more
        }
        std::lock_guard lock(m_mutex);
        m_screen.append(buffer, static_cast<size_t>(n));
    }
}

void TerminalProcess::resize(unsigned short columns) {
    winsize size{};
    size.ws_col = columns;
    size.ws_row = 24;
    ioctl(m_terminal, TIOCSWINSZ, &size);
}

void TerminalProcess::signal(int sig) {
    if (m_exit < 0) {
        kill(m_pid, sig);
    }
}

int TerminalProcess::wait() {
    if (m_exit < 0) {
        m_exit = wait_exit(m_pid);
        m_reader.join();
    }
    return m_exit;
}

std::string TerminalProcess::screen() const {
    std::lock_guard lock(m_mutex);
    return m_screen;
}

TempDir::TempDir() {
    std::random_device rd;
    auto base = std::filesystem::temp_directory_path();
    for (;;) {
        m_path = base / ("wacamp-e2e-" + std::to_string(rd()));
        if (std::filesystem::create_directory(m_path)) {
            break;
        }
    }
}

TempDir::~TempDir() {
    std::error_code ec;
    std::filesystem::remove_all(m_path, ec);
}

std::filesystem::path TempDir::write(const std::string& name, const std::string& content) const {
    auto p = m_path / name;
    std::filesystem::create_directories(p.parent_path());
    std::ofstream(p, std::ios::binary) << content;
    return p;
}

Sandbox::Sandbox(const std::vector<std::string>& args, Scheme scheme)
    : m_scheme(scheme == Scheme::https ? "https" : "http") {
    m_journal = m_dir.path() / "journal.jsonl";
    std::vector<std::string> argv{WACAMP_BINARY, "sandbox", "--port", "0", "--journal", m_journal.string()};
    if (scheme == Scheme::https) {
        argv.emplace_back("--tls");
    }
    argv.insert(argv.end(), args.begin(), args.end());
    int devnull = open("/dev/null", O_RDONLY | O_CLOEXEC);
    auto out_path = m_dir.path() / "stdout.txt";
    int out_fd = open(out_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    int err_fd = open((m_dir.path() / "stderr.txt").c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    m_pid = spawn_process(argv, {}, devnull, out_fd, err_fd);
    close(out_fd);
    close(devnull);
    close(err_fd);
    // The first line is "listening on http://127.0.0.1:PORT" (https with --tls, and then a
    // second line, "ca: PATH").
    const size_t lines_wanted = scheme == Scheme::https ? 2 : 1;
    std::vector<std::string> lines;
    auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(20);
    while (std::chrono::steady_clock::now() < deadline) {
        std::istringstream text(read_file(out_path));
        lines.clear();
        for (std::string line; lines.size() < lines_wanted && std::getline(text, line) && !text.eof();) {
            lines.push_back(line);
        }
        if (lines.size() == lines_wanted) {
            break;
        }
        if (waitpid(m_pid, nullptr, WNOHANG) == m_pid) {
            m_pid = -1;
            throw std::runtime_error("sandbox exited at start: " + stderr_text());
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    const std::string prefix = "listening on " + m_scheme + "://127.0.0.1:";
    const std::string ca_prefix = "ca: ";
    const bool started = lines.size() == lines_wanted && lines[0].rfind(prefix, 0) == 0 &&
                         (lines_wanted == 1 || lines[1].rfind(ca_prefix, 0) == 0);
    if (!started) {
        kill(m_pid, SIGKILL);
        wait_exit(m_pid);
        throw std::runtime_error("sandbox did not start: \"" + (lines.empty() ? "" : lines[0]) + "\" " + stderr_text());
    }
    m_port = std::stoi(lines[0].substr(prefix.size()));
    if (lines_wanted == 2) {
        m_ca_file = lines[1].substr(ca_prefix.size());
    }
}

Sandbox::~Sandbox() {
    if (m_pid > 0) {
        kill(m_pid, SIGTERM);
        wait_exit(m_pid);
    }
}

std::vector<nlohmann::json> Sandbox::journal() const {
    return read_jsonl(m_journal);
}

std::string Sandbox::stderr_text() const {
    return read_file(m_dir.path() / "stderr.txt");
}

std::string read_file(const std::filesystem::path& path) {
    std::ifstream in(path, std::ios::binary);
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
}

std::vector<nlohmann::json> read_jsonl(const std::filesystem::path& path) {
    std::vector<nlohmann::json> out;
    std::ifstream in(path);
    std::string line;
    while (std::getline(in, line)) {
        auto j = nlohmann::json::parse(line, nullptr, false);
        if (!j.is_discarded()) {
            out.push_back(std::move(j));
        }
    }
    return out;
}

}  // namespace e2e
