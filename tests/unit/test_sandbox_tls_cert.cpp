#include <doctest/doctest.h>
#include <openssl/pem.h>
#include <openssl/x509.h>
#include <openssl/x509_vfy.h>
#include <openssl/x509v3.h>
#include <sys/stat.h>
#include <unistd.h>
#include <fstream>
#include <memory>
#include <vector>

#include "sandbox/tls_cert.hpp"

namespace {

using namespace std::chrono_literals;

struct TempFolder {
    TempFolder() {
        std::string pattern = (std::filesystem::temp_directory_path() / "wacamp-unit-tls-XXXXXX").string();
        REQUIRE(mkdtemp(pattern.data()) != nullptr);
        path = pattern;
    }
    ~TempFolder() { std::filesystem::remove_all(path); }
    std::filesystem::path path;
};

struct X509Free {
    void operator()(X509* cert) const { X509_free(cert); }
};
using Cert = std::unique_ptr<X509, X509Free>;

// Every certificate in the PEM file at `path`, in order.
std::vector<Cert> read_certs(const std::filesystem::path& path) {
    std::vector<Cert> out;
    FILE* file = std::fopen(path.c_str(), "r");
    REQUIRE(file != nullptr);
    while (X509* cert = PEM_read_X509(file, nullptr, nullptr, nullptr)) {
        out.emplace_back(cert);
    }
    std::fclose(file);
    return out;
}

// What the server's certificate (the first of cert.pem) is checked for.
struct Verify {
    std::string host;  // a DNS name, or an IP address when `ip`
    bool ip = false;
    std::chrono::system_clock::time_point at = std::chrono::system_clock::now();
};

// Whether the first certificate of `chain` verifies for `v` against the CA certificate in
// `ca` alone, as a TLS client trusting `ca` checks it. Sets `error` to OpenSSL's reason.
bool verifies(const std::filesystem::path& chain, const std::filesystem::path& ca, const Verify& v,
              std::string& error) {
    auto certs = read_certs(chain);
    auto anchors = read_certs(ca);
    REQUIRE(!certs.empty());
    REQUIRE(anchors.size() == 1);
    X509_STORE* store = X509_STORE_new();
    X509_STORE_add_cert(store, anchors[0].get());
    X509_STORE_CTX* ctx = X509_STORE_CTX_new();
    X509_STORE_CTX_init(ctx, store, certs[0].get(), nullptr);
    X509_VERIFY_PARAM* param = X509_STORE_CTX_get0_param(ctx);
    X509_VERIFY_PARAM_set_purpose(param, X509_PURPOSE_SSL_SERVER);
    X509_VERIFY_PARAM_set_time(param, std::chrono::system_clock::to_time_t(v.at));
    if (v.ip) {
        X509_VERIFY_PARAM_set1_ip_asc(param, v.host.c_str());
    } else {
        X509_VERIFY_PARAM_set1_host(param, v.host.c_str(), v.host.size());
    }
    const bool ok = X509_verify_cert(ctx) == 1;
    error = X509_verify_cert_error_string(X509_STORE_CTX_get_error(ctx));
    X509_STORE_CTX_free(ctx);
    X509_STORE_free(store);
    return ok;
}

bool verifies(const std::filesystem::path& chain, const std::filesystem::path& ca, const Verify& v) {
    std::string error;
    const bool ok = verifies(chain, ca, v, error);
    CAPTURE(error);
    return ok;
}

mode_t mode_of(const std::filesystem::path& path) {
    struct stat info {};
    REQUIRE(stat(path.c_str(), &info) == 0);
    return info.st_mode & 07777;
}

}  // namespace

TEST_SUITE("sandbox::GeneratedTls") {
    TEST_CASE("the server certificate verifies against the CA for 127.0.0.1 and for localhost") {
        TempFolder temp;
        auto made = sandbox::GeneratedTls::make(temp.path, std::chrono::system_clock::now());
        REQUIRE(made.ok());
        const auto& tls = **made;
        CHECK(verifies(tls.files().cert, tls.ca(), {.host = "127.0.0.1", .ip = true}));
        CHECK(verifies(tls.files().cert, tls.ca(), {.host = "localhost"}));
    }
    TEST_CASE("it verifies for no other name or address") {
        TempFolder temp;
        auto made = sandbox::GeneratedTls::make(temp.path, std::chrono::system_clock::now());
        REQUIRE(made.ok());
        const auto& tls = **made;
        CHECK_FALSE(verifies(tls.files().cert, tls.ca(), {.host = "example.com"}));
        CHECK_FALSE(verifies(tls.files().cert, tls.ca(), {.host = "127.0.0.2", .ip = true}));
    }
    TEST_CASE("each one is a CA of its own: another's CA does not verify it") {
        TempFolder temp;
        auto one = sandbox::GeneratedTls::make(temp.path, std::chrono::system_clock::now());
        auto two = sandbox::GeneratedTls::make(temp.path, std::chrono::system_clock::now());
        REQUIRE(one.ok());
        REQUIRE(two.ok());
        CHECK((*one)->folder() != (*two)->folder());
        CHECK_FALSE(verifies((*one)->files().cert, (*two)->ca(), {.host = "localhost"}));
    }
    TEST_CASE("the CA is a CA and the server certificate is not; cert.pem carries the CA after it") {
        TempFolder temp;
        auto made = sandbox::GeneratedTls::make(temp.path, std::chrono::system_clock::now());
        REQUIRE(made.ok());
        auto chain = read_certs((*made)->files().cert);
        auto ca = read_certs((*made)->ca());
        REQUIRE(chain.size() == 2);
        REQUIRE(ca.size() == 1);
        CHECK(X509_check_ca(ca[0].get()) != 0);
        CHECK(X509_check_ca(chain[0].get()) == 0);
        CHECK(X509_cmp(chain[1].get(), ca[0].get()) == 0);
    }
    TEST_CASE("valid from an hour before `now` for 30 days") {
        TempFolder temp;
        const auto now = std::chrono::system_clock::now() - 24h * 90;  // long expired today
        auto made = sandbox::GeneratedTls::make(temp.path, now);
        REQUIRE(made.ok());
        const auto& tls = **made;
        CHECK(verifies(tls.files().cert, tls.ca(), {.host = "localhost", .ip = false, .at = now - 59min}));
        CHECK(verifies(tls.files().cert, tls.ca(), {.host = "localhost", .ip = false, .at = now + 24h * 29}));
        CHECK_FALSE(verifies(tls.files().cert, tls.ca(), {.host = "localhost", .ip = false, .at = now - 61min}));
        CHECK_FALSE(verifies(tls.files().cert, tls.ca(), {.host = "localhost", .ip = false, .at = now + 24h * 30}));
        CHECK_FALSE(verifies(tls.files().cert, tls.ca(), {.host = "localhost"}));
    }
    TEST_CASE("the key matches the certificate, and check_tls_files accepts the pair") {
        TempFolder temp;
        auto made = sandbox::GeneratedTls::make(temp.path, std::chrono::system_clock::now());
        REQUIRE(made.ok());
        const auto& files = (*made)->files();
        auto chain = read_certs(files.cert);
        REQUIRE(!chain.empty());
        FILE* file = std::fopen(files.key.c_str(), "r");
        REQUIRE(file != nullptr);
        EVP_PKEY* key = PEM_read_PrivateKey(file, nullptr, nullptr, nullptr);
        std::fclose(file);
        REQUIRE(key != nullptr);
        CHECK(X509_check_private_key(chain[0].get(), key) == 1);
        EVP_PKEY_free(key);
        CHECK(sandbox::check_tls_files(files).ok());
    }
    TEST_CASE("the folder is private, the key readable by its owner only, and all removed on destruction") {
        TempFolder temp;
        std::filesystem::path folder;
        {
            const mode_t old_mask = umask(0);  // a permissive umask changes nothing
            auto made = sandbox::GeneratedTls::make(temp.path, std::chrono::system_clock::now());
            umask(old_mask);
            REQUIRE(made.ok());
            folder = (*made)->folder();
            CHECK(folder.parent_path() == temp.path);
            CHECK(mode_of(folder) == 0700);
            CHECK(mode_of((*made)->files().key) == 0600);
            CHECK(mode_of((*made)->files().cert) == 0644);
            CHECK(mode_of((*made)->ca()) == 0644);
        }
        CHECK_FALSE(std::filesystem::exists(folder));
    }
    TEST_CASE("a parent folder that does not exist fails, naming it") {
        TempFolder temp;
        auto made = sandbox::GeneratedTls::make(temp.path / "missing", std::chrono::system_clock::now());
        REQUIRE_FALSE(made.ok());
        CHECK(made.error().message.find((temp.path / "missing").string()) != std::string::npos);
    }
}

TEST_SUITE("sandbox::check_tls_files") {
    TEST_CASE("each unusable file is named with what is wrong") {
        TempFolder temp;
        auto one = sandbox::GeneratedTls::make(temp.path, std::chrono::system_clock::now());
        auto two = sandbox::GeneratedTls::make(temp.path, std::chrono::system_clock::now());
        REQUIRE(one.ok());
        REQUIRE(two.ok());
        const auto& files = (*one)->files();
        const auto missing = temp.path / "missing.pem";
        const auto text = temp.path / "text.pem";
        std::ofstream(text) << "not a certificate\n";
        struct Case {
            sandbox::TlsFiles files;
            std::filesystem::path named;
            std::string says;
        };
        const std::vector<Case> cases{
            {{missing, files.key}, missing, "cannot read"},
            {{files.cert, missing}, missing, "cannot read"},
            {{text, files.key}, text, "no PEM certificate"},
            {{files.cert, text}, text, "no unencrypted PEM private key"},
            {{files.cert, files.cert}, files.cert, "no unencrypted PEM private key"},
            {{files.cert, (*two)->files().key}, (*two)->files().key, "not the private key"},
        };
        for (const auto& c : cases) {
            auto checked = sandbox::check_tls_files(c.files);
            REQUIRE_FALSE(checked.ok());
            const auto& message = checked.error().message;
            CAPTURE(message);
            CHECK(message.find(c.named.string()) != std::string::npos);
            CHECK(message.find(c.says) != std::string::npos);
            CHECK(message.find("PRIVATE KEY") == std::string::npos);
        }
    }
}
