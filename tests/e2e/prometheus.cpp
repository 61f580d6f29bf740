#include "prometheus.hpp"

#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>
#include <chrono>
#include <cstdlib>
#include <sstream>
#include <thread>

#include "fixtures.hpp"
#include "service/curl_transport.hpp"

namespace e2e {

std::string find_tool(const std::string& name) {
    const char* path = std::getenv("PATH");
    std::istringstream folders(path != nullptr ? path : "/usr/bin:/bin");
    for (std::string folder; std::getline(folders, folder, ':');) {
        const std::string candidate = (folder.empty() ? "." : folder) + "/" + name;
        if (::access(candidate.c_str(), X_OK) == 0) {
            return candidate;
        }
    }
    return {};
}

ProcessResult promtool_check(const std::string& path) {
    TempDir dir;
    const auto said = dir.path() / "said";
    const std::string command = "promtool check metrics < " + quoted(path) + " > " + quoted(said.string()) + " 2>&1";
    const int status = std::system(command.c_str());
    ProcessResult r;
    r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    r.out = read_file(said);
    return r;
}

std::optional<double> sample(const std::string& exposition, const std::string& name,
                             const std::vector<std::string>& labels) {
    std::istringstream in(exposition);
    for (std::string line; std::getline(in, line);) {
        if (!line.starts_with(name + "{")) {
            continue;
        }
        const auto close = line.rfind('}');
        const std::string inside = line.substr(name.size() + 1, close - name.size() - 1);
        bool all = true;
        for (const auto& label : labels) {
            // Each label stands after '{' or ',' and before ',' or the end.
            const std::string padded = "," + inside + ",";
            all = all && padded.find("," + label + ",") != std::string::npos;
        }
        if (all) {
            return std::stod(line.substr(close + 2));
        }
    }
    return std::nullopt;
}

Pushgateway::Pushgateway() {
    const std::string program = find_tool("prometheus-pushgateway");
    if (program.empty()) {
        return;
    }
    const int port = free_port();
    const int devnull = ::open("/dev/null", O_RDWR | O_CLOEXEC);
    m_pid = spawn_process({program, "--web.listen-address=127.0.0.1:" + std::to_string(port), "--persistence.file="},
                          {}, devnull, devnull, devnull);
    ::close(devnull);
    for (int i = 0; i < 1000 && m_port == 0; ++i) {
        if (accepts_connections(port)) {
            m_port = port;
        } else {
            std::this_thread::sleep_for(std::chrono::milliseconds(10));
        }
    }
}

Pushgateway::~Pushgateway() {
    if (m_pid > 0) {
        ::kill(m_pid, SIGTERM);
        ::waitpid(m_pid, nullptr, 0);
    }
}

std::string Pushgateway::metrics() const {
    service::CurlTransport transport;
    service::HttpRequest request;
    request.url = url() + "/metrics";
    request.max_body = 64 * 1024;
    auto done = service::perform(transport, request);
    const auto* response = std::get_if<service::HttpResponse>(&done.result);
    return response != nullptr && response->status == 200 ? response->body : std::string();
}

}  // namespace e2e
