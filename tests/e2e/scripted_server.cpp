#include "scripted_server.hpp"

#include <httplib.h>
#include <mutex>
#include <stdexcept>
#include <thread>

namespace e2e {

struct ScriptedServer::Impl {
    Answer answer;
    httplib::Server http;
    std::thread thread;
    int port = 0;
    mutable std::mutex mutex;
    std::map<std::string, int> requests;

    void handle(const httplib::Request& req, httplib::Response& res) {
        std::lock_guard<std::mutex> lock(mutex);
        ++requests[req.path];
        const ScriptedReply reply = answer({req.method, req.path, req.body});
        res.status = reply.status;
        res.set_content(reply.body, reply.content_type);
    }
};

ScriptedServer::ScriptedServer(Answer answer) : m_impl(std::make_unique<Impl>()) {
    m_impl->answer = std::move(answer);
    const auto handler = [this](const httplib::Request& req, httplib::Response& res) { m_impl->handle(req, res); };
    m_impl->http.Get(".*", handler);
    m_impl->http.Post(".*", handler);
    m_impl->http.Put(".*", handler);
    m_impl->port = m_impl->http.bind_to_any_port("127.0.0.1");
    if (m_impl->port <= 0) {
        throw std::runtime_error("ScriptedServer: cannot listen on 127.0.0.1");
    }
    m_impl->thread = std::thread([this] { m_impl->http.listen_after_bind(); });
    while (!m_impl->http.is_running()) {
        std::this_thread::sleep_for(std::chrono::milliseconds(1));  // stop() before this would be lost
    }
}

ScriptedServer::~ScriptedServer() {
    m_impl->http.stop();
    if (m_impl->thread.joinable()) {
        m_impl->thread.join();
    }
}

std::string ScriptedServer::url() const {
    return "http://127.0.0.1:" + std::to_string(m_impl->port);
}

std::map<std::string, int> ScriptedServer::requests() const {
    std::lock_guard<std::mutex> lock(m_impl->mutex);
    return m_impl->requests;
}

} // namespace e2e
