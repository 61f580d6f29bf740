#pragma once
// Owning pointers to OpenSSL's objects, for the sandbox's TLS files (tls_cert.cpp, tls_files.cpp).

#include <openssl/bio.h>
#include <openssl/evp.h>
#include <openssl/x509.h>
#include <memory>
#include <string>

namespace sandbox::openssl {

template <auto Free>
struct Deleter {
    template <typename T>
    void operator()(T* p) const {
        Free(p);
    }
};

using Bio = std::unique_ptr<BIO, Deleter<BIO_free_all>>;
using Key = std::unique_ptr<EVP_PKEY, Deleter<EVP_PKEY_free>>;
using KeyContext = std::unique_ptr<EVP_PKEY_CTX, Deleter<EVP_PKEY_CTX_free>>;
using Cert = std::unique_ptr<X509, Deleter<X509_free>>;
using Extension = std::unique_ptr<X509_EXTENSION, Deleter<X509_EXTENSION_free>>;

// Returns a read-only memory BIO over `text`, which must outlive it; null when out of memory.
inline Bio memory_reader(const std::string& text) {
    return Bio(BIO_new_mem_buf(text.data(), static_cast<int>(text.size())));
}

}  // namespace sandbox::openssl
