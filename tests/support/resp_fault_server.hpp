#pragma once
// A broken Redis for tests: it listens on a free 127.0.0.1 port and answers whatever command
// arrives on a connection with one misbehaviour, to test that a client bounds what a rate store
// may cost it (docs/pace.md, "When Redis is down").

#include <memory>

namespace test_support {

enum class RespFault {
    trickle,  // a reply that never ends, one byte every 300 ms
    huge,     // "$2000000000\r\n" then bytes without end, as fast as the client reads
};

class RespFaultServer {
public:
    // Listens on 127.0.0.1 and serves each connection on its own thread; throws
    // std::runtime_error when it cannot listen.
    explicit RespFaultServer(RespFault fault);
    ~RespFaultServer();
    RespFaultServer(const RespFaultServer&) = delete;
    RespFaultServer& operator=(const RespFaultServer&) = delete;

    int port() const;
    // redis://127.0.0.1:PORT/0
    std::string url() const;
    // How many connections it accepted so far.
    int connections() const;
    // How many reply bytes it managed to write so far, over all connections.
    long long bytes_written() const;

private:
    struct Impl;
    std::unique_ptr<Impl> m_impl;
};

}  // namespace test_support
