#include "util/sha256.hpp"

#include <array>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <memory>
#include <openssl/evp.h>

namespace util {

namespace {

struct CtxDeleter {
    void operator()(EVP_MD_CTX* ctx) const { EVP_MD_CTX_free(ctx); }
};
using Ctx = std::unique_ptr<EVP_MD_CTX, CtxDeleter>;

std::string to_hex(const unsigned char* digest, unsigned int length) {
    static constexpr char k_digits[] = "0123456789abcdef";
    std::string out;
    out.reserve(length * 2);
    for (unsigned int i = 0; i < length; ++i) {
        out.push_back(k_digits[digest[i] >> 4]);
        out.push_back(k_digits[digest[i] & 0xF]);
    }
    return out;
}

} // namespace

std::string sha256_hex(std::string_view data) {
    Ctx ctx(EVP_MD_CTX_new());
    std::array<unsigned char, EVP_MAX_MD_SIZE> digest{};
    unsigned int length = 0;
    EVP_DigestInit_ex(ctx.get(), EVP_sha256(), nullptr);
    EVP_DigestUpdate(ctx.get(), data.data(), data.size());
    EVP_DigestFinal_ex(ctx.get(), digest.data(), &length);
    return to_hex(digest.data(), length);
}

Result<std::string> sha256_file(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    if (!in) {
        return fail(path + ": cannot read: " + std::strerror(errno));
    }
    Ctx ctx(EVP_MD_CTX_new());
    EVP_DigestInit_ex(ctx.get(), EVP_sha256(), nullptr);
    std::array<char, 1 << 16> buffer{};
    while (in) {
        in.read(buffer.data(), buffer.size());
        EVP_DigestUpdate(ctx.get(), buffer.data(), static_cast<size_t>(in.gcount()));
    }
    if (in.bad()) {
        return fail(path + ": read error");
    }
    std::array<unsigned char, EVP_MAX_MD_SIZE> digest{};
    unsigned int length = 0;
    EVP_DigestFinal_ex(ctx.get(), digest.data(), &length);
    return to_hex(digest.data(), length);
}

} // namespace util
