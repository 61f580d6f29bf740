#pragma once
// Runs the real wacamp binary, and a real `wacamp sandbox` on loopback, for end-to-end tests.

#include <poll.h>
#include <sys/types.h>
#include <chrono>
#include <filesystem>
#include <map>
#include <mutex>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <thread>
#include <vector>

namespace e2e {

struct ProcessResult {
    int exit_code = -1;  // 128 + signal number when killed by a signal
    std::string out;
    std::string err;
};

// Environment overrides for a child; a value of std::nullopt-like "\x01unset" removes the variable.
using EnvOverrides = std::map<std::string, std::string>;
inline const std::string k_unset = "\x01unset";

// Starts `argv` (argv[0] a path) with the parent's environment plus `env`, and the given
// descriptors as stdin, stdout and stderr (-1: that one closed, as `2>&-` leaves it). Throws
// std::runtime_error if it cannot start.
pid_t spawn_process(std::vector<std::string> argv, const EnvOverrides& env, int in_fd, int out_fd, int err_fd);

// After poll(): appends what is ready on each open pipe of `fds` to the matching sink; a pipe
// at its end is closed, its fd set to -1 and `open_fds` counted down.
void read_ready(pollfd (&fds)[2], std::string* const (&sinks)[2], int& open_fds);

// Runs `wacamp ARGS…` to completion, feeding `input` on stdin; captures stdout and stderr.
ProcessResult run_wacamp(const std::vector<std::string>& args, const EnvOverrides& env = {},
                         const std::string& input = {});

// The same for any program: argv[0] a path, e.g. {"/usr/bin/prlimit", "--fsize=600", wacamp_path(), …}.
ProcessResult run_program(const std::vector<std::string>& argv, const EnvOverrides& env = {},
                          const std::string& input = {});

// The path of the wacamp binary under test.
inline std::string wacamp_path() {
    return WACAMP_BINARY;
}

// Where a background process's stderr goes: a file (err()), or nowhere, closed.
enum class Stderr { file, closed };

// A wacamp process running in the background (for kill tests).
class Background {
public:
    Background(const std::vector<std::string>& args, const EnvOverrides& env = {}, Stderr err = Stderr::file);
    ~Background();
    Background(const Background&) = delete;
    Background& operator=(const Background&) = delete;
    // Sends `signal` to the process.
    void signal(int signal);
    // Waits for the process to end and returns its exit code (128 + signal if killed).
    int wait();
    // Waits at most `bound` for the process to end: its exit code, or nullopt while it runs.
    std::optional<int> wait_for(std::chrono::milliseconds bound);
    pid_t pid() const { return m_pid; }
    std::string out() const;
    std::string err() const;

private:
    std::filesystem::path m_dir;
    pid_t m_pid = -1;
    int m_exit = -1;
};

// A wacamp process in the background on a pseudo-terminal of its own (stdin, stdout and stderr
// all on it), `columns` wide and 24 rows high, as a person at a terminal of that size runs it.
class TerminalProcess {
public:
    TerminalProcess(const std::vector<std::string>& args, const EnvOverrides& env, unsigned short columns);
    ~TerminalProcess();
    TerminalProcess(const TerminalProcess&) = delete;
    TerminalProcess& operator=(const TerminalProcess&) = delete;
    // Makes the terminal `columns` wide (TIOCSWINSZ), as a person resizing its window does.
    void resize(unsigned short columns);
    // Sends `signal` to the process.
    void signal(int signal);
    // Waits for the process to end and for the terminal to show all it wrote; its exit code.
    int wait();
    // Everything the terminal was shown so far, as written (raw: "\n" stays "\n").
    std::string screen() const;

private:
    void read_all();

    int m_terminal = -1;
    pid_t m_pid = -1;
    int m_exit = -1;
    std::thread m_reader;
    mutable std::mutex m_mutex;
    std::string m_screen;  // guarded by m_mutex
};

// A temporary folder, removed with everything in it on destruction.
class TempDir {
public:
    TempDir();
    ~TempDir();
    TempDir(const TempDir&) = delete;
    TempDir& operator=(const TempDir&) = delete;
    const std::filesystem::path& path() const { return m_path; }
    // Writes `content` to `name` inside the folder and returns its path.
    std::filesystem::path write(const std::string& name, const std::string& content) const;

private:
    std::filesystem::path m_path;
};

// Whether a Sandbox serves plain HTTP, or HTTPS (`--tls`) with the CA it prints on "ca: PATH".
enum class Scheme { http, https };

// `wacamp sandbox --port 0 --journal … ARGS…` (and `--tls` for https), running until destroyed.
class Sandbox {
public:
    explicit Sandbox(const std::vector<std::string>& args = {}, Scheme scheme = Scheme::http);
    ~Sandbox();
    Sandbox(const Sandbox&) = delete;
    Sandbox& operator=(const Sandbox&) = delete;

    int port() const { return m_port; }
    std::string url() const { return m_scheme + "://127.0.0.1:" + std::to_string(m_port); }
    // With https: the certificate a client must trust, from the sandbox's "ca: PATH" line.
    const std::filesystem::path& ca_file() const { return m_ca_file; }
    // Every request the sandbox has journaled so far.
    std::vector<nlohmann::json> journal() const;
    // What the sandbox wrote on stderr so far.
    std::string stderr_text() const;
    const std::filesystem::path& journal_path() const { return m_journal; }

private:
    TempDir m_dir;
    std::filesystem::path m_journal;
    std::string m_scheme;
    std::filesystem::path m_ca_file;
    pid_t m_pid = -1;
    int m_port = 0;
};

// Reads a whole file ("" if missing).
std::string read_file(const std::filesystem::path& path);

// Parses each line of a JSON Lines file (lines that fail to parse are skipped).
std::vector<nlohmann::json> read_jsonl(const std::filesystem::path& path);

}  // namespace e2e
