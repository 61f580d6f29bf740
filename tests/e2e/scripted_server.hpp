#pragma once
// An HTTP server on 127.0.0.1 that answers every request as a test's function says: for
// services that misbehave in ways the sandbox does not (echoing credentials back, sending
// escape sequences).

#include <functional>
#include <map>
#include <memory>
#include <string>

namespace e2e {

struct ScriptedRequest {
    std::string method;
    std::string path;  // without the query
    std::string body;
};

struct ScriptedReply {
    int status = 200;
    std::string body;
    std::string content_type = "application/json";
};

class ScriptedServer {
public:
    using Answer = std::function<ScriptedReply(const ScriptedRequest&)>;
    // Starts serving on a free port; `answer` is called for each request, one at a time.
    explicit ScriptedServer(Answer answer);
    ~ScriptedServer();
    ScriptedServer(const ScriptedServer&) = delete;
    ScriptedServer& operator=(const ScriptedServer&) = delete;

    std::string url() const;
    // How many requests were answered, per path.
    std::map<std::string, int> requests() const;

private:
    struct Impl;
    std::unique_ptr<Impl> m_impl;
};

} // namespace e2e
