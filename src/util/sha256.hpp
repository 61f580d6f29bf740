#pragma once
// SHA-256 of files, for the result log's record of which inputs a campaign ran on.

#include <string>

#include "util/result.hpp"

namespace util {

// Returns the lowercase hex SHA-256 of the file at `path`; fails if it cannot be read or
// OpenSSL fails.
Result<std::string> sha256_file(const std::string& path);

}  // namespace util
