#include "pg_cluster.hpp"

#include <libpq-fe.h>
#include <netinet/in.h>
#include <pwd.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <fcntl.h>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <mutex>
#include <stdexcept>
#include <thread>
#include <vector>

namespace test_support::pg_cluster {

namespace {

namespace fs = std::filesystem;

// The folder of initdb and postgres: the newest /usr/lib/postgresql/N/bin (Debian keeps them
// out of PATH), else PATH's.
std::optional<fs::path> binaries() {
    std::optional<fs::path> best;
    int best_version = -1;
    std::error_code ec;
    for (const auto& entry : fs::directory_iterator("/usr/lib/postgresql", ec)) {
        const fs::path bin = entry.path() / "bin";
        const int version = std::atoi(entry.path().filename().c_str());
        if (fs::exists(bin / "initdb", ec) && fs::exists(bin / "postgres", ec) && version > best_version) {
            best = bin;
            best_version = version;
        }
    }
    if (best) {
        return best;
    }
    if (const char* path = std::getenv("PATH")) {
        std::string rest = path;
        for (std::size_t start = 0; start <= rest.size();) {
            const std::size_t end = std::min(rest.find(':', start), rest.size());
            const fs::path dir = rest.substr(start, end - start);
            if (!dir.empty() && fs::exists(dir / "initdb", ec) && fs::exists(dir / "postgres", ec)) {
                return dir;
            }
            start = end + 1;
        }
    }
    return std::nullopt;
}

int free_port() {
    const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    addr.sin_port = 0;
    socklen_t size = sizeof addr;
    if (fd < 0 || ::bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0 ||
        ::getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &size) != 0) {
        throw std::runtime_error("pg_cluster: no free port");
    }
    ::close(fd);
    return ntohs(addr.sin_port);
}

// Starts `args` with its output into `log`, as the postgres user when we are root; the child is
// sent SIGINT (a fast shutdown) if this process dies first.
pid_t spawn(const std::vector<std::string>& args, const fs::path& log) {
    const passwd* postgres = ::geteuid() == 0 ? ::getpwnam("postgres") : nullptr;
    if (::geteuid() == 0 && postgres == nullptr) {
        throw std::runtime_error("pg_cluster: running as root and there is no `postgres` user to run PostgreSQL as");
    }
    const pid_t pid = ::fork();
    if (pid < 0) {
        throw std::runtime_error("pg_cluster: fork failed");
    }
    if (pid == 0) {
        const int out = ::open(log.c_str(), O_WRONLY | O_CREAT | O_APPEND, 0644);
        if (out >= 0) {
            ::dup2(out, 1);
            ::dup2(out, 2);
        }
        if (postgres != nullptr && (::setgid(postgres->pw_gid) != 0 || ::setuid(postgres->pw_uid) != 0)) {
            ::_exit(126);
        }
        ::prctl(PR_SET_PDEATHSIG, SIGINT);  // after setuid, which clears it
        std::vector<char*> argv;
        for (const auto& arg : args) {
            argv.push_back(const_cast<char*>(arg.c_str()));
        }
        argv.push_back(nullptr);
        ::execv(argv[0], argv.data());
        ::_exit(127);
    }
    return pid;
}

class Cluster {
public:
    Cluster(const fs::path& bin) {
        std::string pattern = (fs::temp_directory_path() / "wacamp-pg-XXXXXX").string();
        if (::mkdtemp(pattern.data()) == nullptr) {
            throw std::runtime_error("pg_cluster: mkdtemp failed");
        }
        m_dir = pattern;
        if (const passwd* postgres = ::geteuid() == 0 ? ::getpwnam("postgres") : nullptr) {
            if (::chown(m_dir.c_str(), postgres->pw_uid, postgres->pw_gid) != 0) {
                throw std::runtime_error("pg_cluster: cannot chown " + m_dir.string());
            }
        }
        const fs::path log = m_dir / "server.log";
        const pid_t init = spawn({(bin / "initdb").string(), "-D", (m_dir / "data").string(), "-A", "trust",
                                  "--no-sync", "-U", k_user, "-E", "UTF8", "--locale=C"},
                                 log);
        int status = 0;
        ::waitpid(init, &status, 0);
        if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
            throw std::runtime_error("pg_cluster: initdb failed; see " + log.string());
        }
        m_port = free_port();
        m_pid = spawn({(bin / "postgres").string(), "-D", (m_dir / "data").string(), "-p", std::to_string(m_port), "-k",
                       m_dir.string(), "-c", "listen_addresses=127.0.0.1", "-c", "fsync=off", "-c",
                       "full_page_writes=off", "-c", "max_connections=200"},
                      log);
        const std::string conninfo =
            "host=127.0.0.1 port=" + std::to_string(m_port) + " user=" + k_user + " dbname=postgres connect_timeout=5";
        const auto give_up = std::chrono::steady_clock::now() + std::chrono::seconds(60);
        while (PQping(conninfo.c_str()) != PQPING_OK) {
            if (std::chrono::steady_clock::now() > give_up || ::waitpid(m_pid, &status, WNOHANG) == m_pid) {
                throw std::runtime_error("pg_cluster: the server did not start; see " + log.string());
            }
            std::this_thread::sleep_for(std::chrono::milliseconds(50));
        }
        m_admin = PQconnectdb(conninfo.c_str());
        if (PQstatus(m_admin) != CONNECTION_OK) {
            throw std::runtime_error(std::string("pg_cluster: ") + PQerrorMessage(m_admin));
        }
    }
    ~Cluster() {
        PQfinish(m_admin);
        ::kill(m_pid, SIGINT);  // fast shutdown
        int status = 0;
        ::waitpid(m_pid, &status, 0);
        std::error_code ec;
        fs::remove_all(m_dir, ec);
    }
    Cluster(const Cluster&) = delete;
    Cluster& operator=(const Cluster&) = delete;

    std::string fresh_database() {
        const std::string name = "t" + std::to_string(++m_databases);
        PGresult* result = PQexec(m_admin, ("CREATE DATABASE " + name).c_str());
        const bool ok = PQresultStatus(result) == PGRES_COMMAND_OK;
        PQclear(result);
        if (!ok) {
            throw std::runtime_error(std::string("pg_cluster: CREATE DATABASE: ") + PQerrorMessage(m_admin));
        }
        return "postgresql://" + std::string(k_user) + "@127.0.0.1:" + std::to_string(m_port) + "/" + name;
    }
    int port() const { return m_port; }

private:
    fs::path m_dir;
    int m_port = 0;
    pid_t m_pid = -1;
    PGconn* m_admin = nullptr;
    int m_databases = 0;
};

std::mutex g_mutex;
std::unique_ptr<Cluster> g_cluster;  // destroyed (the server stopped) when the binary exits
bool g_skipped = false;

}  // namespace

std::optional<std::string> fresh_database() {
    std::lock_guard lock(g_mutex);
    if (!g_cluster && !g_skipped) {
        const auto bin = binaries();
        if (!bin) {
            g_skipped = true;
            std::printf(
                "wacamp-test-skipped: PostgreSQL is not installed (no initdb and postgres in "
                "/usr/lib/postgresql/*/bin or PATH; scripts/setup.sh installs the `postgresql` package)\n");
            std::fflush(stdout);
        } else {
            g_cluster = std::make_unique<Cluster>(*bin);
        }
    }
    if (g_skipped) {
        return std::nullopt;
    }
    return g_cluster->fresh_database();
}

int port() {
    std::lock_guard lock(g_mutex);
    return g_cluster ? g_cluster->port() : 0;
}

}  // namespace test_support::pg_cluster
