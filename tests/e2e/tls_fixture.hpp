#pragma once
// The TLS ends of the fault and wire tests: a server whose certificate wacamp does not trust,
// shared by the cases of a test file, and campaigns told which CA to trust.

#include <filesystem>

#include "fixtures.hpp"

namespace e2e {

// `openssl s_server -www` with a self-signed certificate for 127.0.0.1, started at the first call
// and shared by every case after it: it keeps no state that one case could see of another.
// Null, with a MESSAGE that the case is not tested, when the openssl tool is missing.
const TlsServer* untrusted_tls_server();

// Adds `ca_file: ca_file` to `fixture`'s service section: the CA its TLS connections trust.
void trust(const CampaignFixture& fixture, const std::filesystem::path& ca_file);

}  // namespace e2e
