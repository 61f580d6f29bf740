#include "sandbox/tls_cert.hpp"

#include <fcntl.h>
#include <openssl/bn.h>
#include <openssl/crypto.h>
#include <openssl/ec.h>
#include <openssl/obj_mac.h>
#include <openssl/pem.h>
#include <openssl/rand.h>
#include <openssl/x509v3.h>
#include <sys/stat.h>
#include <unistd.h>
#include <array>
#include <cerrno>
#include <cstring>
#include <string>
#include <system_error>
#include <vector>

#include "sandbox/tls_openssl.hpp"

namespace sandbox {

namespace {

constexpr std::chrono::hours k_backdate{1};  // a client clock a little behind still accepts it
constexpr std::chrono::hours k_lifetime{24 * 30};

// Returns a fresh EC P-256 key, or null when OpenSSL fails.
openssl::Key make_key() {
    openssl::KeyContext ctx(EVP_PKEY_CTX_new_id(EVP_PKEY_EC, nullptr));
    EVP_PKEY* key = nullptr;
    if (ctx == nullptr || EVP_PKEY_keygen_init(ctx.get()) != 1 ||
        EVP_PKEY_CTX_set_ec_paramgen_curve_nid(ctx.get(), NID_X9_62_prime256v1) != 1 ||
        EVP_PKEY_CTX_set_ec_param_enc(ctx.get(), OPENSSL_EC_NAMED_CURVE) != 1 ||
        EVP_PKEY_keygen(ctx.get(), &key) != 1) {
        return nullptr;
    }
    return openssl::Key(key);
}

// What one certificate says, and who signs it.
struct CertSpec {
    EVP_PKEY* key = nullptr;         // the certificate's own key
    X509* issuer = nullptr;          // null: self-signed
    EVP_PKEY* issuer_key = nullptr;  // signs it (the own key when self-signed)
    const char* common_name = "";
    std::vector<std::pair<int, const char*>> extensions;  // NID and OpenSSL's config text
    std::chrono::system_clock::time_point now;
};

// Sets a random positive 127-bit serial number, as RFC 5280 asks (unique, at most 20 bytes).
bool set_serial(X509* cert) {
    std::array<unsigned char, 16> bytes{};
    if (RAND_bytes(bytes.data(), static_cast<int>(bytes.size())) != 1) {
        return false;
    }
    bytes[0] &= 0x7f;
    BIGNUM* number = BN_bin2bn(bytes.data(), static_cast<int>(bytes.size()), nullptr);
    const bool ok = number != nullptr && BN_to_ASN1_INTEGER(number, X509_get_serialNumber(cert)) != nullptr;
    BN_free(number);
    return ok;
}

bool set_validity(X509* cert, std::chrono::system_clock::time_point now) {
    const auto from = std::chrono::system_clock::to_time_t(now - k_backdate);
    const auto until = std::chrono::system_clock::to_time_t(now - k_backdate + k_lifetime);
    return ASN1_TIME_set(X509_getm_notBefore(cert), from) != nullptr &&
           ASN1_TIME_set(X509_getm_notAfter(cert), until) != nullptr;
}

bool set_names(X509* cert, const CertSpec& spec) {
    X509_NAME* subject = X509_get_subject_name(cert);
    const auto* cn = reinterpret_cast<const unsigned char*>(spec.common_name);
    const auto* org = reinterpret_cast<const unsigned char*>("wacamp sandbox");
    if (X509_NAME_add_entry_by_txt(subject, "O", MBSTRING_ASC, org, -1, -1, 0) != 1 ||
        X509_NAME_add_entry_by_txt(subject, "CN", MBSTRING_ASC, cn, -1, -1, 0) != 1) {
        return false;
    }
    X509_NAME* issuer = spec.issuer != nullptr ? X509_get_subject_name(spec.issuer) : subject;
    return X509_set_issuer_name(cert, issuer) == 1;
}

bool add_extensions(X509* cert, const CertSpec& spec) {
    X509V3_CTX ctx;
    X509V3_set_ctx(&ctx, spec.issuer != nullptr ? spec.issuer : cert, cert, nullptr, nullptr, 0);
    for (const auto& [nid, value] : spec.extensions) {
        openssl::Extension extension(X509V3_EXT_conf_nid(nullptr, &ctx, nid, value));
        if (extension == nullptr || X509_add_ext(cert, extension.get(), -1) != 1) {
            return false;
        }
    }
    return true;
}

// Returns the certificate `spec` describes, signed; null when OpenSSL fails.
openssl::Cert make_cert(const CertSpec& spec) {
    openssl::Cert cert(X509_new());
    const bool ok = cert != nullptr && X509_set_version(cert.get(), 2) == 1 && set_serial(cert.get()) &&
                    set_validity(cert.get(), spec.now) && X509_set_pubkey(cert.get(), spec.key) == 1 &&
                    set_names(cert.get(), spec) && add_extensions(cert.get(), spec) &&
                    X509_sign(cert.get(), spec.issuer_key, EVP_sha256()) > 0;
    return ok ? std::move(cert) : nullptr;
}

// Returns what `write` put into a memory BIO, or "" when it failed.
template <typename Write>
std::string to_pem(Write write) {
    openssl::Bio bio(BIO_new(BIO_s_mem()));
    if (bio == nullptr || !write(bio.get())) {
        return {};
    }
    char* data = nullptr;
    const long size = BIO_get_mem_data(bio.get(), &data);
    std::string out(data, static_cast<size_t>(size));
    OPENSSL_cleanse(data, static_cast<size_t>(size));  // it may be a private key
    return out;
}

std::string cert_pem(X509* cert) {
    return to_pem([cert](BIO* bio) { return PEM_write_bio_X509(bio, cert) == 1; });
}

// The three files' contents.
struct Pems {
    std::string ca;
    std::string chain;  // the server's certificate, then the CA's
    std::string key;
    ~Pems() { OPENSSL_cleanse(key.data(), key.size()); }
};

util::Result<void> make_pems(std::chrono::system_clock::time_point now, Pems& out) {
    openssl::Key ca_key = make_key();
    openssl::Key server_key = make_key();
    if (ca_key == nullptr || server_key == nullptr) {
        return util::fail("cannot make an EC P-256 key with OpenSSL");
    }
    openssl::Cert ca = make_cert({.key = ca_key.get(),
                                  .issuer = nullptr,
                                  .issuer_key = ca_key.get(),
                                  .common_name = "wacamp sandbox CA",
                                  .extensions = {{NID_basic_constraints, "critical,CA:TRUE,pathlen:0"},
                                                 {NID_key_usage, "critical,keyCertSign,cRLSign"},
                                                 {NID_subject_key_identifier, "hash"}},
                                  .now = now});
    if (ca == nullptr) {
        return util::fail("cannot make the sandbox's CA certificate with OpenSSL");
    }
    openssl::Cert server = make_cert({.key = server_key.get(),
                                      .issuer = ca.get(),
                                      .issuer_key = ca_key.get(),
                                      .common_name = "127.0.0.1",
                                      .extensions = {{NID_basic_constraints, "critical,CA:FALSE"},
                                                     {NID_key_usage, "critical,digitalSignature"},
                                                     {NID_ext_key_usage, "serverAuth"},
                                                     {NID_subject_alt_name, "IP:127.0.0.1,DNS:localhost"},
                                                     {NID_subject_key_identifier, "hash"},
                                                     {NID_authority_key_identifier, "keyid:always"}},
                                      .now = now});
    if (server == nullptr) {
        return util::fail("cannot make the sandbox's server certificate with OpenSSL");
    }
    out.ca = cert_pem(ca.get());
    out.chain = cert_pem(server.get()) + out.ca;
    out.key = to_pem([&](BIO* bio) {
        return PEM_write_bio_PrivateKey(bio, server_key.get(), nullptr, nullptr, 0, nullptr, nullptr) == 1;
    });
    if (out.ca.empty() || out.key.empty()) {
        return util::fail("cannot write the sandbox's certificate as PEM with OpenSSL");
    }
    return {};
}

// Creates `path` with exactly `mode` and writes `text` into it; fails naming the file.
util::Result<void> write_new_file(const std::filesystem::path& path, const std::string& text, mode_t mode) {
    const int fd = open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, mode);
    bool ok = fd >= 0 && fchmod(fd, mode) == 0;  // exactly `mode`, whatever the umask
    for (size_t done = 0; ok && done < text.size();) {
        const ssize_t n = write(fd, text.data() + done, text.size() - done);
        ok = n > 0 || (n < 0 && errno == EINTR);
        done += n > 0 ? static_cast<size_t>(n) : 0;
    }
    const int error = errno;
    if (fd >= 0 && close(fd) != 0 && ok) {
        ok = false;
    }
    if (!ok) {
        return util::fail("cannot write " + path.string() + ": " + std::strerror(error));
    }
    return {};
}

}  // namespace

GeneratedTls::GeneratedTls(std::filesystem::path folder)
    : m_folder(std::move(folder)), m_ca(m_folder / "ca.pem"), m_files{m_folder / "cert.pem", m_folder / "key.pem"} {}

GeneratedTls::~GeneratedTls() {
    std::error_code ignored;
    std::filesystem::remove_all(m_folder, ignored);
}

util::Result<std::unique_ptr<GeneratedTls>> GeneratedTls::make(const std::filesystem::path& parent,
                                                               std::chrono::system_clock::time_point now) {
    Pems pems;
    TRY(make_pems(now, pems));
    std::string pattern = (parent / "wacamp-sandbox-tls-XXXXXX").string();
    if (mkdtemp(pattern.data()) == nullptr) {  // mode 0700
        return util::fail("cannot make a folder in " + parent.string() +
                          " for the sandbox's certificate: " + std::strerror(errno));
    }
    // From here the folder is removed with `tls` however this ends.
    std::unique_ptr<GeneratedTls> tls(new GeneratedTls(pattern));
    if (chmod(pattern.c_str(), 0700) != 0) {
        return util::fail("cannot make " + pattern + " private: " + std::strerror(errno));
    }
    TRY(write_new_file(tls->m_ca, pems.ca, 0644));
    TRY(write_new_file(tls->m_files.cert, pems.chain, 0644));
    TRY(write_new_file(tls->m_files.key, pems.key, 0600));
    return tls;
}

}  // namespace sandbox
