#pragma once
// Prometheus's own tools for the metrics tests: promtool, a real Pushgateway on loopback, and
// reading a sample out of the text exposition format.

#include <sys/types.h>
#include <optional>
#include <string>
#include <vector>

#include "harness.hpp"

namespace e2e {

// The path of program `name` found on PATH; "" when it is not installed.
std::string find_tool(const std::string& name);

// Runs `promtool check metrics` on the file at `path`: its exit code and what it said.
ProcessResult promtool_check(const std::string& path);

// The value of the sample of family `name` whose labels include every one of `labels`
// (`status="sent"`) in `exposition`; nothing when there is none.
std::optional<double> sample(const std::string& exposition, const std::string& name,
                             const std::vector<std::string>& labels);

// Debian's prometheus-pushgateway on a free port of 127.0.0.1, keeping metrics in memory only,
// until destroyed (then stopped by its pid).
class Pushgateway {
public:
    Pushgateway();
    ~Pushgateway();
    Pushgateway(const Pushgateway&) = delete;
    Pushgateway& operator=(const Pushgateway&) = delete;

    // The port it listens on; 0 when it is not installed or did not start.
    int port() const { return m_port; }
    std::string url() const { return "http://127.0.0.1:" + std::to_string(m_port); }
    // What its /metrics shows now ("" when it did not answer).
    std::string metrics() const;

private:
    pid_t m_pid = -1;
    int m_port = 0;
};

}  // namespace e2e
