#pragma once
// Base64 (RFC 4648), as HTTP's Basic authentication writes credentials.

#include <string>
#include <string_view>

namespace util {

// Returns `bytes` in base64 with the standard alphabet and '=' padding.
std::string base64(std::string_view bytes);

}  // namespace util
