#pragma once
// A real Redis for tests: Debian's redis-server on a free 127.0.0.1 port, no persistence, its
// files in a temporary folder; stopped by pid (SIGKILL, as a crash) and restartable on the
// same port. Tests skip (printing "wacamp-test-skipped: …") when redis-server is missing.

#include <sys/types.h>

#include <filesystem>
#include <string>
#include <vector>

namespace test_support {

class RedisServer {
public:
    // Whether redis-server is installed (/usr/bin/redis-server, or on PATH).
    static bool available();
    // The shared server of this test binary, started on first use (no password).
    static RedisServer& shared();

    // Starts a server (with `--requirepass password` when not empty) and waits until it answers.
    // Throws std::runtime_error when it does not come up.
    explicit RedisServer(std::string password = {});
    ~RedisServer();
    RedisServer(const RedisServer&) = delete;
    RedisServer& operator=(const RedisServer&) = delete;

    int port() const { return m_port; }
    pid_t pid() const { return m_pid; }
    // redis://127.0.0.1:PORT/0, with ":password@" when `with_password`.
    std::string url(bool with_password = true) const;
    // Kills the server (SIGKILL) and reaps it.
    void stop();
    // Starts it again on the same port (empty: nothing kept) and waits until it answers.
    void start();
    // Runs one command (e.g. {"SCRIPT", "FLUSH"}) and returns the reply as text ("" on error).
    std::string command(const std::vector<std::string>& args) const;

private:
    bool answers() const;

    std::filesystem::path m_dir;
    std::string m_password;
    int m_port = 0;
    pid_t m_pid = -1;
};

}  // namespace test_support
