#include <arpa/inet.h>
#include <doctest/doctest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>
#include <thread>

#include "sandbox/server.hpp"

namespace {

// Sends `request` on a new connection to 127.0.0.1:`port` and returns all the server wrote
// before closing ("" when it hung up without a word).
std::string exchange(int port, const std::string& request) {
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    REQUIRE(fd >= 0);
    timeval timeout{5, 0};
    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, sizeof timeout);
    sockaddr_in address{};
    address.sin_family = AF_INET;
    address.sin_port = htons(static_cast<uint16_t>(port));
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    REQUIRE(connect(fd, reinterpret_cast<sockaddr*>(&address), sizeof address) == 0);
    REQUIRE(send(fd, request.data(), request.size(), MSG_NOSIGNAL) == static_cast<ssize_t>(request.size()));
    std::string out;
    char buffer[4096];
    for (ssize_t n; (n = recv(fd, buffer, sizeof buffer, 0)) > 0;) {
        out.append(buffer, static_cast<size_t>(n));
    }
    close(fd);
    return out;
}

std::string post_send(const std::string& wa_id) {
    std::string body = R"({"userName":"Asha","wa_id":")" + wa_id + R"(","type":"text","message":{"text":"Hi"}})";
    return "POST /whatsapp-automation/wa/send-message?apiKey=sandbox-key HTTP/1.1\r\nHost: x\r\n"
           "Connection: close\r\nContent-Type: application/json\r\nContent-Length: " +
           std::to_string(body.size()) + "\r\n\r\n" + body;
}

// A sandbox serving on a free port in a thread of this process, stopped at the end.
struct Running {
    explicit Running(sandbox::SandboxOptions options = {}) {
        auto bound = sandbox::Server::bind(options);
        REQUIRE(bound.ok());
        server = std::move(bound.value());
        thread = std::thread([this] { served = server->serve().ok(); });
    }
    ~Running() {
        server->stop();
        thread.join();
    }
    std::unique_ptr<sandbox::Server> server;
    std::thread thread;
    bool served = false;
};

}  // namespace

TEST_SUITE("sandbox::Server") {
    TEST_CASE("binds a free port on 127.0.0.1 and answers over HTTP") {
        Running running;
        CHECK(running.server->port() > 0);
        std::string reply = exchange(running.server->port(),
                                     "GET /whatsapp-automation/wa/templates HTTP/1.1\r\nHost: x\r\n"
                                     "apiKey: sandbox-key\r\nConnection: close\r\n\r\n");
        CHECK(reply.rfind("HTTP/1.1 200", 0) == 0);
        CHECK(reply.find("Content-Type: application/json; charset=utf-8\r\n") != std::string::npos);
        CHECK(reply.find("_user: ") != std::string::npos);
        CHECK(reply.find("\"appointment_update\"") != std::string::npos);
    }
    TEST_CASE("a throttled send carries Retry-After") {
        sandbox::SandboxOptions options;
        options.faults.rate_limit = 1;
        options.faults.retry_after_s = 4;
        Running running(options);
        CHECK(exchange(running.server->port(), post_send("919812345678")).rfind("HTTP/1.1 200", 0) == 0);
        std::string reply = exchange(running.server->port(), post_send("919812345678"));
        CHECK(reply.rfind("HTTP/1.1 429", 0) == 0);
        CHECK(reply.find("Retry-After: 4\r\n") != std::string::npos);
    }
    TEST_CASE("a dropped send gets its connection closed without a byte") {
        sandbox::SandboxOptions options;
        options.faults.drop_rate = 1.0;
        Running running(options);
        CHECK(exchange(running.server->port(), post_send("919812345678")) == "");
        auto counts = running.server->counts();
        CHECK(counts[static_cast<size_t>(sandbox::Outcome::dropped)] == 1);
    }
    TEST_CASE("stop ends serve cleanly, also when called before it") {
        auto bound = sandbox::Server::bind({});
        REQUIRE(bound.ok());
        bound.value()->stop();
        CHECK(bound.value()->serve().ok());
    }
    TEST_CASE("a port in use is an error naming it") {
        Running running;
        sandbox::SandboxOptions options;
        options.port = running.server->port();
        auto second = sandbox::Server::bind(options);
        REQUIRE_FALSE(second.ok());
        CHECK(second.error().message.find(std::to_string(options.port)) != std::string::npos);
    }
}
