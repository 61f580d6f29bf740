#pragma once
// `wacamp sandbox` over HTTP or HTTPS: cpp-httplib on 127.0.0.1 in front of a FakeService.

#include <array>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>

#include "sandbox/journal.hpp"
#include "sandbox/options.hpp"
#include "util/result.hpp"

namespace sandbox {

class Server {
public:
    ~Server();
    Server(const Server&) = delete;
    Server& operator=(const Server&) = delete;

    // Loads the templates (failing on a --paused-template that names none of them), opens the journal, sets up TLS when
    // `options.tls` asks (checking the files given, or making a certificate in a private folder removed with the
    // Server) and binds 127.0.0.1:`options.port` (0: a free port). Fails naming the file or the port that could not be
    // used.
    static util::Result<std::unique_ptr<Server>> bind(const SandboxOptions& options);
    // Returns the port bound.
    int port() const;
    // With TLS: the certificate a client must trust (the CA made at start, or the certificate
    // given); without: nothing.
    std::optional<std::filesystem::path> ca_file() const;
    // Answers requests until stop(). Ignores SIGPIPE for the process: a client hanging up
    // mid-answer must not end it. Fails when the listening socket fails.
    util::Result<void> serve();
    // Makes serve() return once the requests in progress are answered; safe from any
    // thread, before or during serve().
    void stop();
    // Returns how many requests ended with each outcome, indexed by Outcome.
    std::array<long, k_outcome_count> counts() const;
    // Returns the first failure to write the journal, or nothing.
    std::optional<std::string> journal_error() const;

private:
    struct Impl;
    explicit Server(std::unique_ptr<Impl> impl);
    std::unique_ptr<Impl> m_impl;
};

}  // namespace sandbox
