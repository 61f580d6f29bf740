#pragma once
// Credential checks. What they return names the problem, never a key or token.

#include <optional>
#include <string>
#include <string_view>

#include "sandbox/options.hpp"

namespace sandbox {

// The API key as a request presented it (either may be absent).
struct PresentedKey {
    std::optional<std::string> header;  // the `apiKey` header
    std::optional<std::string> query;   // the `apiKey` query parameter
};

// Returns what is wrong with `presented` against `expected` when the key is read from
// `where` (for `either`: at least one present, and every one present right), or nothing.
std::optional<std::string> check_api_key(KeyIn where, const PresentedKey& presented, std::string_view expected);

// Returns what is wrong with an `authorization` header ("Bearer TOKEN", scheme in any
// case) against `expected`, or nothing when it carries that token.
std::optional<std::string> check_bearer(const std::optional<std::string>& authorization, std::string_view expected);

}  // namespace sandbox
