#pragma once
// Keeps secrets (API key, access token) out of anything printed or logged.

#include <array>
#include <string>
#include <string_view>
#include <vector>

namespace util {

// Replaces registered secrets in text with "***", in every form a service may echo them:
// as they are, JSON-escaped ("\"", "\/", "\u00e9"), percent-encoded (upper- or lower-case hex,
// '+' for a space, whichever characters the encoder chose to encode) and HTML-escaped
// ("&quot;", "&#34;"), in base64 (alone, or inside a longer encoding such as Basic
// authentication's "user:password", standard or URL-safe alphabet); and a secret cut short by a
// clipped text ending in "…".
class Redactor {
public:
    // Registers `secret`; empty or very short values (under 4 characters) are ignored, as
    // masking them would garble ordinary text.
    void add(std::string secret);
    // Returns `text` with every occurrence of every secret replaced by "***".
    std::string apply(std::string_view text) const;
    // Whether no secret is registered (apply() then copies its text unchanged).
    bool empty() const { return m_secrets.empty(); }

private:
    void add_form(std::string secret);

    std::vector<std::string> m_secrets;  // longest first
    std::array<bool, 256> m_starts{};    // bytes a masked occurrence may start with
};

}  // namespace util
