#pragma once
// Keeps secrets (API key, access token) out of anything printed or logged.

#include <string>
#include <string_view>
#include <vector>

namespace util {

// Replaces registered secrets in text with "***".
class Redactor {
public:
    // Registers `secret`; empty or very short values (under 4 characters) are ignored, as
    // masking them would garble ordinary text.
    void add(std::string secret);
    // Returns `text` with every occurrence of every secret replaced by "***".
    std::string apply(std::string_view text) const;

private:
    std::vector<std::string> m_secrets;
};

} // namespace util
