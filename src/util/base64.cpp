#include "util/base64.hpp"

#include <openssl/evp.h>

#include <algorithm>
#include <vector>

namespace util {

std::string base64(std::string_view bytes) {
    std::vector<unsigned char> out(4 * ((bytes.size() + 2) / 3) + 1);
    const int n = EVP_EncodeBlock(out.data(), reinterpret_cast<const unsigned char*>(bytes.data()),
                                  static_cast<int>(bytes.size()));
    return std::string(reinterpret_cast<const char*>(out.data()), static_cast<std::size_t>(std::max(n, 0)));
}

}  // namespace util
