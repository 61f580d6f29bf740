#pragma once
// The real HttpTransport: libcurl's multi interface, many requests in flight on one thread,
// connections kept alive and reused across requests.

#include <functional>
#include <memory>
#include <string>

#include "service/config.hpp"
#include "service/http.hpp"

namespace service {

struct CurlOptions {
    std::string ca_file;        // extra CA bundle; peer verification always stays on
    long max_connections = 64;  // connections kept in the cache for reuse
    // The most connections open to one host at once; 0: no limit. Requests past it wait in
    // libcurl for a connection (over HTTP/2 they share one instead).
    long max_host_connections = 0;
    HttpVersion http = HttpVersion::automatic;
    // Told once per transport when `http` is http2 and the service answered over HTTP/1.1.
    std::function<void(const std::string&)> warn = nullptr;
};

class CurlTransport final : public HttpTransport {
public:
    explicit CurlTransport(CurlOptions options = {});
    ~CurlTransport() override;
    CurlTransport(const CurlTransport&) = delete;
    CurlTransport& operator=(const CurlTransport&) = delete;

    void start(std::uint64_t id, HttpRequest request) override;
    std::vector<Completion> poll(std::chrono::microseconds max_wait, Wait wait = Wait::first_progress) override;
    std::size_t in_flight() const override;

private:
    struct Impl;
    std::unique_ptr<Impl> m_impl;
};

}  // namespace service
