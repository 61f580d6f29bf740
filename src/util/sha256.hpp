#pragma once
// SHA-256 of files, for the result log's record of which inputs a campaign ran on.

#include <string>

#include "util/result.hpp"

namespace util {

// Returns the lowercase hex SHA-256 of the file at `path`; fails if it cannot be read or
// OpenSSL fails.
Result<std::string> sha256_file(const std::string& path);

// Returns the lowercase hex SHA-256 of `data`; throws std::runtime_error when OpenSSL fails.
std::string sha256_hex(std::string_view data);

}  // namespace util
