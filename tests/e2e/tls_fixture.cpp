#include "tls_fixture.hpp"

#include <doctest/doctest.h>

namespace e2e {

namespace {

// The folder of the certificate outlives the server that reads it.
struct SharedTlsServer {
    TempDir dir;
    TlsServer server{dir};
};

}  // namespace

const TlsServer* untrusted_tls_server() {
    static const SharedTlsServer shared;
    if (shared.server.port() == 0) {
        MESSAGE("openssl is not available: TLS verification not tested");
        return nullptr;
    }
    return &shared.server;
}

void trust(const CampaignFixture& fixture, const std::filesystem::path& ca_file) {
    add_service_line(fixture, "  ca_file: " + ca_file.string());
}

}  // namespace e2e
