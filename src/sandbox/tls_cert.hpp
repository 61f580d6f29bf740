#pragma once
// The certificate `wacamp sandbox --tls` serves: one made at start (a certificate authority
// of its own and a server certificate it signed), or one given as files and checked first.

#include <chrono>
#include <filesystem>
#include <memory>

#include "util/result.hpp"

namespace sandbox {

// Where a TLS server's certificate (followed by its chain, if any) and its private key are,
// as PEM files.
struct TlsFiles {
    std::filesystem::path cert;
    std::filesystem::path key;
};

// Checks that `files.cert` holds a PEM certificate, `files.key` an unencrypted PEM private key,
// and that the key is the certificate's. Fails naming the file and what is wrong with it.
util::Result<void> check_tls_files(const TlsFiles& files);

// A certificate authority made for one run and a server certificate for 127.0.0.1 and
// localhost signed by it, in a private folder removed (with everything in it) on destruction.
class GeneratedTls {
public:
    // Makes fresh EC P-256 keys, the CA's certificate and the server's, both valid from `now`
    // minus an hour for 30 days, and writes them into a new folder under `parent` (mode 0700):
    // ca.pem (the CA's certificate: what a client trusts), cert.pem (the server's certificate,
    // then the CA's) and key.pem (the server's key, mode 0600). The CA's key is never written:
    // nothing else can be signed with it. Fails saying what could not be made or written.
    static util::Result<std::unique_ptr<GeneratedTls>> make(const std::filesystem::path& parent,
                                                            std::chrono::system_clock::time_point now);
    ~GeneratedTls();
    GeneratedTls(const GeneratedTls&) = delete;
    GeneratedTls& operator=(const GeneratedTls&) = delete;

    // The server's certificate and key.
    const TlsFiles& files() const { return m_files; }
    // The CA's certificate.
    const std::filesystem::path& ca() const { return m_ca; }
    // The folder holding all three.
    const std::filesystem::path& folder() const { return m_folder; }

private:
    explicit GeneratedTls(std::filesystem::path folder);
    std::filesystem::path m_folder;
    std::filesystem::path m_ca;
    TlsFiles m_files;
};

}  // namespace sandbox
