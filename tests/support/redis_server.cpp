#include "redis_server.hpp"

#include <arpa/inet.h>
#include <fcntl.h>
#include <hiredis/hiredis.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <stdexcept>
#include <thread>

namespace test_support {

namespace {

int free_port() {
    const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t length = sizeof addr;
    const bool ok = ::bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0 &&
                    ::getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &length) == 0;
    ::close(fd);
    if (!ok) {
        throw std::runtime_error("redis_server: no free port on 127.0.0.1");
    }
    return ntohs(addr.sin_port);
}

std::string redis_binary() {
    if (::access("/usr/bin/redis-server", X_OK) == 0) {
        return "/usr/bin/redis-server";
    }
    return "redis-server";
}

}  // namespace

bool RedisServer::available() {
    if (::access("/usr/bin/redis-server", X_OK) == 0) {
        return true;
    }
    return std::system("command -v redis-server >/dev/null 2>&1") == 0;
}

RedisServer& RedisServer::shared() {
    static RedisServer server;
    return server;
}

RedisServer::RedisServer(std::string password) : m_password(std::move(password)) {
    char pattern[] = "/tmp/wacamp-redis-XXXXXX";
    if (::mkdtemp(pattern) == nullptr) {
        throw std::runtime_error("redis_server: cannot make a temporary folder");
    }
    m_dir = pattern;
    m_port = free_port();
    start();
}

RedisServer::~RedisServer() {
    stop();
    std::error_code ec;
    std::filesystem::remove_all(m_dir, ec);
}

std::string RedisServer::url(bool with_password) const {
    const std::string credentials = with_password && !m_password.empty() ? ":" + m_password + "@" : "";
    return "redis://" + credentials + "127.0.0.1:" + std::to_string(m_port) + "/0";
}

void RedisServer::start() {
    if (m_pid > 0) {
        return;
    }
    std::vector<std::string> args{redis_binary(),
                                  "--port",
                                  std::to_string(m_port),
                                  "--bind",
                                  "127.0.0.1",
                                  "--save",
                                  "",
                                  "--appendonly",
                                  "no",
                                  "--dir",
                                  m_dir.string(),
                                  "--daemonize",
                                  "no",
                                  "--logfile",
                                  (m_dir / "log").string()};
    if (!m_password.empty()) {
        args.insert(args.end(), {"--requirepass", m_password});
    }
    const pid_t pid = ::fork();
    if (pid < 0) {
        throw std::runtime_error("redis_server: fork failed");
    }
    if (pid == 0) {
        const int null = ::open("/dev/null", O_RDWR);
        ::dup2(null, 0);
        ::dup2(null, 1);
        ::dup2(null, 2);
        std::vector<char*> argv;
        for (auto& a : args) {
            argv.push_back(a.data());
        }
        argv.push_back(nullptr);
        ::execvp(argv[0], argv.data());
        ::_exit(127);
    }
    m_pid = pid;
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
    while (!answers()) {
        int status = 0;
        if (::waitpid(m_pid, &status, WNOHANG) == m_pid) {
            m_pid = -1;
            throw std::runtime_error("redis_server: redis-server exited at start (see " + (m_dir / "log").string() +
                                     ")");
        }
        if (std::chrono::steady_clock::now() > deadline) {
            stop();
            throw std::runtime_error("redis_server: redis-server did not answer within 10 s");
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
}

void RedisServer::stop() {
    if (m_pid <= 0) {
        return;
    }
    ::kill(m_pid, SIGKILL);
    int status = 0;
    ::waitpid(m_pid, &status, 0);
    m_pid = -1;
}

bool RedisServer::answers() const {
    return command({"PING"}) == "PONG";
}

std::string RedisServer::command(const std::vector<std::string>& args) const {
    timeval timeout{1, 0};
    redisContext* context = redisConnectWithTimeout("127.0.0.1", m_port, timeout);
    if (context == nullptr || context->err != 0) {
        if (context != nullptr) {
            redisFree(context);
        }
        return "";
    }
    redisSetTimeout(context, timeout);
    std::string out;
    if (!m_password.empty()) {
        auto* auth = static_cast<redisReply*>(redisCommand(context, "AUTH %s", m_password.c_str()));
        if (auth != nullptr) {
            freeReplyObject(auth);
        }
    }
    std::vector<const char*> argv;
    std::vector<std::size_t> lengths;
    for (const auto& a : args) {
        argv.push_back(a.data());
        lengths.push_back(a.size());
    }
    auto* reply =
        static_cast<redisReply*>(redisCommandArgv(context, static_cast<int>(argv.size()), argv.data(), lengths.data()));
    if (reply != nullptr) {
        if (reply->type == REDIS_REPLY_STRING || reply->type == REDIS_REPLY_STATUS) {
            out.assign(reply->str, reply->len);
        } else if (reply->type == REDIS_REPLY_INTEGER) {
            out = std::to_string(reply->integer);
        }
        freeReplyObject(reply);
    }
    redisFree(context);
    return out;
}

}  // namespace test_support
