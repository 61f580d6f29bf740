#pragma once
// A tiny HTTP/1.1 server on 127.0.0.1 for tests of the wire: it counts the requests it
// receives and answers each as a script says, including the ways a broken server misbehaves
// (closing a kept-alive connection without an answer, a huge or endless body).

#include <atomic>
#include <functional>
#include <memory>
#include <string>

namespace test_support {

// One request as the server received it.
struct ReceivedRequest {
    int index = 0;          // 0 for the first request the server received
    int on_connection = 0;  // 0 for the first request on its connection
    std::string head;       // request line and headers
    std::string body;
};

// What the server does with a request.
struct Reply {
    enum class Kind {
        answer,   // writes `bytes` (a whole response) and keeps the connection
        hang_up,  // closes the connection without a byte
        stream,   // writes `bytes` (status line and headers), then `body_bytes` of filler
                  // (endless when negative) in 16 KiB writes, then closes
    };
    Kind kind = Kind::answer;
    std::string bytes;
    long long body_bytes = -1;
    int pause_ms = 0;  // between the writes of a stream, to pace it
};

// Opens a socket listening on a free port of 127.0.0.1, sets `port` to it and returns the socket;
// throws std::runtime_error naming `server` when it cannot.
int listen_on_loopback(const std::string& server, int& port);

// Returns a whole response: `status`, `content_type`, Content-Length, `body`.
std::string http_response(int status, const std::string& body, const std::string& content_type = "application/json");

// A reply that answers with http_response(`status`, `body`, `content_type`).
inline Reply answer(int status, const std::string& body, const std::string& content_type = "application/json") {
    return {Reply::Kind::answer, http_response(status, body, content_type)};
}

// The path of `request`'s request line, without the query.
std::string path_of(const ReceivedRequest& request);

class ScriptedServer {
public:
    using Script = std::function<Reply(const ReceivedRequest&)>;

    // Listens on a free port of 127.0.0.1 and serves each connection on its own thread;
    // throws std::runtime_error when it cannot listen.
    explicit ScriptedServer(Script script);
    ~ScriptedServer();
    ScriptedServer(const ScriptedServer&) = delete;
    ScriptedServer& operator=(const ScriptedServer&) = delete;

    int port() const;
    std::string url() const { return "http://127.0.0.1:" + std::to_string(port()); }
    // How many complete requests arrived so far.
    int requests() const;

private:
    struct Impl;
    std::unique_ptr<Impl> m_impl;
};

}  // namespace test_support
