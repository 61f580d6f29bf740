#include "util/sha256.hpp"

#include <openssl/evp.h>
#include <array>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <memory>
#include <optional>

#include "util/text.hpp"

namespace util {

namespace {

struct CtxDeleter {
    void operator()(EVP_MD_CTX* ctx) const { EVP_MD_CTX_free(ctx); }
};

std::string to_hex(const unsigned char* digest, unsigned int length) {
    std::string out;
    out.reserve(length * 2);
    for (unsigned int i = 0; i < length; ++i) {
        const auto hex = hex_digits(digest[i]);
        out.append(hex.data(), hex.size());
    }
    return out;
}

// One SHA-256 computation through OpenSSL's EVP interface; every call's return code checked
// (a provider that refuses SHA-256, or no memory, must not yield a digest of nothing).
class Digest {
public:
    Digest() : m_ctx(EVP_MD_CTX_new()) {
        m_ok = m_ctx != nullptr && EVP_DigestInit_ex(m_ctx.get(), EVP_sha256(), nullptr) == 1;
    }
    void update(const void* data, size_t size) { m_ok = m_ok && EVP_DigestUpdate(m_ctx.get(), data, size) == 1; }
    // The lowercase hex digest, or nothing when OpenSSL failed at any step.
    std::optional<std::string> finish() {
        std::array<unsigned char, EVP_MAX_MD_SIZE> digest{};
        unsigned int length = 0;
        if (!m_ok || EVP_DigestFinal_ex(m_ctx.get(), digest.data(), &length) != 1) {
            return std::nullopt;
        }
        return to_hex(digest.data(), length);
    }

private:
    std::unique_ptr<EVP_MD_CTX, CtxDeleter> m_ctx;
    bool m_ok = false;
};

constexpr const char* k_openssl_failed = "OpenSSL could not compute a SHA-256 digest";

}  // namespace

Result<std::string> sha256_file(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    if (!in) {
        return fail(path + ": cannot read: " + std::strerror(errno));
    }
    Digest digest;
    std::array<char, 1 << 16> buffer{};
    while (in) {
        in.read(buffer.data(), buffer.size());
        digest.update(buffer.data(), static_cast<size_t>(in.gcount()));
    }
    if (in.bad()) {
        return fail(path + ": read error");
    }
    auto hex = digest.finish();
    if (!hex) {
        return fail(path + ": " + k_openssl_failed);
    }
    return std::move(*hex);
}

}  // namespace util
