#pragma once
// Keeps secrets (API key, access token) out of anything printed or logged.

#include <array>
#include <bitset>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace util {

// The shortest credential wacamp takes (an API key, a token, a password): a shorter one could not
// be masked reliably, as its letters turn up in ordinary text.
inline constexpr std::size_t k_min_credential = 8;

// Returns why `credential` (given, not empty) is refused as too short, naming no part of it; empty
// when it is long enough.
std::string credential_too_short(std::string_view credential);

// Replaces registered secrets in text with "***", in every form a service may echo them:
// as they are, JSON-escaped ("\"", "\/", "\u00e9"), percent-encoded once or twice (upper- or
// lower-case hex, '+' for a space, whichever characters the encoder chose to encode) and HTML-escaped
// ("&quot;", "&#34;"), in base64 (alone, or inside a longer encoding such as Basic
// authentication's "user:password", standard or URL-safe alphabet); and a secret cut short by a
// clipped text ending in "…"; upper- or lower-cased, in hex, folded at white space, with
// invisible format characters inside (a zero-width space, a soft hyphen: shown, the secret reads
// whole), and a non-ASCII secret's UTF-8 read as Latin-1.
class Redactor {
public:
    // Registers `secret`; empty or very short values (under 4 characters) are ignored, as
    // masking them would garble ordinary text.
    void add(std::string secret);
    // Returns `text` with every occurrence of every secret replaced by "***".
    std::string apply(std::string_view text) const;
    // Masks every secret in `text` in place, as apply() does; returns whether there was one.
    // Text without a secret is left as it is, without a copy.
    bool mask(std::string& text) const;
    // Whether `text` holds a secret, in any of the forms apply() masks.
    bool holds(std::string_view text) const { return next_match(text, 0).has_value(); }
    // Whether no secret is registered (apply() then copies its text unchanged).
    bool empty() const { return m_secrets.empty(); }

private:
    void add_form(std::string secret);
    // The first secret at or after `from`: where it starts and where it ends.
    std::optional<std::pair<std::size_t, std::size_t>> next_match(std::string_view text, std::size_t from) const;

    // Whether the escape or encoding at `at` (a '%', '+', '\\' or '&') stands for a byte some
    // secret starts with.
    bool first_byte_may_start(std::string_view text, std::size_t at) const;

    std::vector<std::string> m_secrets;  // longest first
    std::array<bool, 256> m_firsts{};    // bytes a secret starts with
    std::array<bool, 256> m_starts{};    // bytes a masked occurrence may start with: those, or an escape's
    // Pairs of bytes (first * 256 + second) a masked occurrence whose first byte is written as
    // itself may start with: a secret's first two, or its first then an escape's or an
    // encoding's first byte (a clipped text keeps four bytes at least). Most candidates fail
    // here, without a loop over the secrets.
    std::bitset<256 * 256> m_pairs;
};

}  // namespace util
