// check_tls_files: a certificate and key given with --tls-cert and --tls-key, checked before
// cpp-httplib loads them (it only says whether it could).
#include <openssl/pem.h>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>

#include "sandbox/tls_cert.hpp"
#include "sandbox/tls_openssl.hpp"

namespace sandbox {

namespace {

constexpr std::streamsize k_max_pem_bytes = 1 << 20;

util::Result<std::string> read_small_file(const std::filesystem::path& path) {
    std::ifstream in(path, std::ios::binary);
    if (!in) {
        return util::fail("cannot read " + path.string() + ": " + std::strerror(errno));
    }
    std::string text(static_cast<size_t>(k_max_pem_bytes) + 1, '\0');
    in.read(text.data(), k_max_pem_bytes + 1);
    if (in.bad()) {
        return util::fail("cannot read " + path.string() + ": " + std::strerror(errno));
    }
    text.resize(static_cast<size_t>(in.gcount()));
    if (text.size() > static_cast<size_t>(k_max_pem_bytes)) {
        return util::fail(path.string() + ": over 1 MB, not a PEM file");
    }
    return text;
}

// A password callback that gives none: an encrypted key is refused, never asked for on the terminal.
int no_password(char*, int, int, void*) {
    return -1;
}

}  // namespace

util::Result<void> check_tls_files(const TlsFiles& files) {
    TRY_ASSIGN(const auto cert_text, read_small_file(files.cert));
    auto cert_bio = openssl::memory_reader(cert_text);
    openssl::Cert cert(cert_bio ? PEM_read_bio_X509(cert_bio.get(), nullptr, no_password, nullptr) : nullptr);
    if (cert == nullptr) {
        return util::fail(files.cert.string() + ": no PEM certificate in it (\"-----BEGIN CERTIFICATE-----\")");
    }
    TRY_ASSIGN(auto key_text, read_small_file(files.key));
    auto key_bio = openssl::memory_reader(key_text);
    openssl::Key key(key_bio ? PEM_read_bio_PrivateKey(key_bio.get(), nullptr, no_password, nullptr) : nullptr);
    OPENSSL_cleanse(key_text.data(), key_text.size());
    if (key == nullptr) {
        return util::fail(files.key.string() + ": no unencrypted PEM private key in it");
    }
    if (X509_check_private_key(cert.get(), key.get()) != 1) {
        return util::fail(files.key.string() + ": not the private key of the certificate in " + files.cert.string());
    }
    return {};
}

}  // namespace sandbox
