#include "util/redact.hpp"

#include <algorithm>
#include <optional>
#include <utility>

#include "util/base64.hpp"
#include "util/text.hpp"

namespace util {

namespace {

constexpr std::size_t k_min_secret = 4;
constexpr std::size_t k_min_core = 8;        // base64 characters of a secret inside a longer encoding
constexpr std::string_view k_clipped = "…";  // how a clipped error text ends

// One character of `text` at `at` as the bytes it stands for, and its length in `text`.
struct Unit {
    std::string bytes;
    std::size_t length = 0;
};

// The number written with `digits` hex digits at `at`; nothing when they are not all there.
std::optional<unsigned> hex_at(std::string_view text, std::size_t at, std::size_t digits) {
    if (at + digits > text.size()) {
        return std::nullopt;
    }
    unsigned value = 0;
    for (std::size_t i = 0; i < digits; ++i) {
        const int d = hex_value(text[at + i]);
        if (d < 0) {
            return std::nullopt;
        }
        value = value * 16 + static_cast<unsigned>(d);
    }
    return value;
}

std::string utf8(unsigned cp) {
    std::string out;
    if (cp < 0x80) {
        out += static_cast<char>(cp);
    } else if (cp < 0x800) {
        out += static_cast<char>(0xC0 | (cp >> 6));
        out += static_cast<char>(0x80 | (cp & 0x3F));
    } else if (cp < 0x10000) {
        out += static_cast<char>(0xE0 | (cp >> 12));
        out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
        out += static_cast<char>(0x80 | (cp & 0x3F));
    } else {
        out += static_cast<char>(0xF0 | (cp >> 18));
        out += static_cast<char>(0x80 | ((cp >> 12) & 0x3F));
        out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
        out += static_cast<char>(0x80 | (cp & 0x3F));
    }
    return out;
}

// A JSON escape at `at` (which holds '\\').
std::optional<Unit> json_escape(std::string_view text, std::size_t at) {
    if (at + 1 >= text.size()) {
        return std::nullopt;
    }
    constexpr std::string_view k_from = "\"\\/bfnrt";
    constexpr std::string_view k_to = "\"\\/\b\f\n\r\t";
    if (const auto i = k_from.find(text[at + 1]); i != std::string_view::npos) {
        return Unit{std::string(1, k_to[i]), 2};
    }
    if (text[at + 1] != 'u') {
        return std::nullopt;
    }
    auto cp = hex_at(text, at + 2, 4);
    if (!cp) {
        return std::nullopt;
    }
    if (*cp >= 0xD800 && *cp <= 0xDBFF && at + 7 < text.size() && text[at + 6] == '\\' && text[at + 7] == 'u') {
        if (auto low = hex_at(text, at + 8, 4); low && *low >= 0xDC00 && *low <= 0xDFFF) {
            return Unit{utf8(0x10000 + ((*cp - 0xD800) << 10) + (*low - 0xDC00)), 12};
        }
    }
    return Unit{utf8(*cp), 6};
}

// An HTML character reference at `at` (which holds '&').
std::optional<Unit> html_reference(std::string_view text, std::size_t at) {
    static constexpr std::pair<std::string_view, char> k_named[] = {
        {"&quot;", '"'}, {"&amp;", '&'}, {"&lt;", '<'}, {"&gt;", '>'}, {"&apos;", '\''}};
    const auto rest = text.substr(at);
    for (const auto& [name, c] : k_named) {
        if (rest.starts_with(name)) {
            return Unit{std::string(1, c), name.size()};
        }
    }
    if (!rest.starts_with("&#")) {
        return std::nullopt;
    }
    const bool hex = rest.size() > 2 && (rest[2] == 'x' || rest[2] == 'X');
    std::size_t i = hex ? 3 : 2;
    unsigned cp = 0;
    const std::size_t first = i;
    for (; i < rest.size() && i < first + 7; ++i) {
        const int d = hex ? hex_value(rest[i]) : (rest[i] >= '0' && rest[i] <= '9' ? rest[i] - '0' : -1);
        if (d < 0) {
            break;
        }
        cp = cp * (hex ? 16 : 10) + static_cast<unsigned>(d);
    }
    if (i == first || i >= rest.size() || rest[i] != ';' || cp > 0x10FFFF) {
        return std::nullopt;
    }
    return Unit{utf8(cp), i + 1};
}

// The byte percent-encoded twice at `at` ("%2541" for 'A'); nothing when there is none.
std::optional<unsigned> percent_twice(std::string_view text, std::size_t at) {
    if (text.substr(at, 3) != "%25") {
        return std::nullopt;
    }
    return hex_at(text, at + 3, 2);
}

// The ways the character of `text` at `at` may be read: as itself, or as what an escape or
// an encoding starting there stands for.
std::vector<Unit> readings(std::string_view text, std::size_t at) {
    std::vector<Unit> out{{std::string(1, text[at]), 1}};
    switch (text[at]) {
    case '%':
        if (auto byte = hex_at(text, at + 1, 2)) {
            out.push_back({std::string(1, static_cast<char>(*byte)), 3});
        }
        if (auto twice = percent_twice(text, at)) {
            out.push_back({std::string(1, static_cast<char>(*twice)), 5});
        }
        break;
    case '+': out.push_back({" ", 1}); break;
    case '\\':
        if (auto unit = json_escape(text, at)) {
            out.push_back(std::move(*unit));
        }
        break;
    case '&':
        if (auto unit = html_reference(text, at)) {
            out.push_back(std::move(*unit));
        }
        break;
    default: break;
    }
    return out;
}

// Whether `c` is white space a text may fold a secret at.
bool is_fold(char c) {
    return c == ' ' || c == '\n' || c == '\r' || c == '\t';
}

// Whether `c` may start the UTF-8 of a format character (format_length()): the bytes a secret
// with such a character inside may go on with after its first.
bool may_start_format(char c) {
    return c == '\xC2' || c == '\xE2' || c == '\xEF';
}

// The length of the invisible format character at `at` of `text` (U+00AD soft hyphen, U+200B-U+200F
// zero-width spaces, joiners and marks, U+2060-U+2064, U+FEFF), which a text may carry inside a
// secret and still show it readable; 0 when there is none.
std::size_t format_length(std::string_view text, std::size_t at) {
    if (!may_start_format(text[at]) || at + 1 >= text.size()) {
        return 0;
    }
    const auto byte = [&](std::size_t i) { return static_cast<unsigned char>(text[at + i]); };
    if (byte(0) == 0xC2) {
        return byte(1) == 0xAD ? 2 : 0;
    }
    if (at + 2 >= text.size()) {
        return 0;
    }
    const bool format = (byte(0) == 0xE2 && byte(1) == 0x80 && byte(2) >= 0x8B && byte(2) <= 0x8F) ||
                        (byte(0) == 0xE2 && byte(1) == 0x81 && byte(2) >= 0xA0 && byte(2) <= 0xA4) ||
                        (byte(0) == 0xEF && byte(1) == 0xBB && byte(2) == 0xBF);
    return format ? 3 : 0;
}

// Where an occurrence of `secret` that starts at `start` of `text` ends (the farthest, when
// it can be read in several ways); nothing when none starts there.
std::optional<std::size_t> match_at(std::string_view text, std::size_t start, std::string_view secret) {
    // Every (bytes of the secret matched, position in the text) still possible; each step
    // reads one character of the text in each of its readings. Few branch, so few states.
    std::vector<std::pair<std::size_t, std::size_t>> states{{0, start}};
    auto seen = states;  // readings of different lengths may meet again
    std::optional<std::size_t> end;
    while (!states.empty()) {
        auto [matched, at] = states.back();
        states.pop_back();
        if (matched == secret.size()) {
            end = std::max(end.value_or(0), at);
            continue;
        }
        if (at >= text.size()) {
            continue;
        }
        if (matched >= k_min_secret && text.substr(at).starts_with(k_clipped)) {
            end = std::max(end.value_or(0), at);  // the text was cut inside the secret
            continue;
        }
        const auto go = [&](std::pair<std::size_t, std::size_t> next) {
            if (std::find(seen.begin(), seen.end(), next) == seen.end()) {
                states.push_back(next);
                seen.push_back(next);
            }
        };
        // A format character inside a secret, as it is, reads as nothing.
        if (const std::size_t length = matched > 0 ? format_length(text, at) : 0; length > 0) {
            go({matched, at + length});
        }
        for (auto& unit : readings(text, at)) {
            if (secret.substr(matched).starts_with(unit.bytes)) {
                go({matched + unit.bytes.size(), at + unit.length});
            }
            // White space inside a secret (a line folded in two, "\n" in JSON) may read as nothing,
            // and so may an escaped format character ("\u200b", "&#8203;").
            if ((matched >= k_min_secret && unit.bytes.size() == 1 && is_fold(unit.bytes[0])) ||
                (matched > 0 && unit.length > 1 && format_length(unit.bytes, 0) == unit.bytes.size())) {
                go({matched, at + unit.length});
            }
        }
    }
    return end;
}

// What a plain reading of `text` from `start` tells of `secret` there, without the readings of
// match_at: a match that ends at `end`, none (`end` empty), or `unsure` when an escape, an
// encoding or a clipped ending comes first (match_at then decides).
struct Quick {
    std::optional<std::size_t> end;
    bool unsure = false;
};

Quick quick_match(std::string_view text, std::size_t start, std::string_view secret) {
    std::size_t matched = 0;
    for (std::size_t at = start;; ++at, ++matched) {
        if (matched == secret.size()) {
            return {at, false};
        }
        if (at >= text.size()) {
            return {};
        }
        const char c = text[at];
        if (c == '%' || c == '+' || c == '\\' || c == '&' || text.substr(at).starts_with(k_clipped) ||
            (matched >= k_min_secret && is_fold(c) && c != secret[matched])) {
            return {std::nullopt, true};
        }
        if (c != secret[matched]) {
            // An invisible format character inside the secret: match_at reads it as nothing.
            return {std::nullopt, matched > 0 && may_start_format(c) && format_length(text, at) > 0};
        }
    }
}

}  // namespace

// The base64 forms `secret` takes in an encoded text (Basic authentication's "user:password", a
// token encoded alone): its whole encoding, and for each of the three alignments it may have
// inside a longer encoding, the characters that only its own bytes decide; each in the standard
// and the URL-safe alphabet.
namespace {

std::vector<std::string> base64_forms(const std::string& secret) {
    std::vector<std::string> forms{base64(secret)};
    for (std::size_t align = 0; align < 3; ++align) {
        const std::string encoded = base64(std::string(align, '\0') + secret);
        const std::size_t first = (8 * align + 5) / 6;  // the first character of the secret's bits alone
        const std::size_t last = 8 * (align + secret.size()) / 6;
        if (last > first && last - first >= k_min_core) {
            forms.push_back(encoded.substr(first, last - first));
        }
    }
    const std::size_t standard = forms.size();
    for (std::size_t i = 0; i < standard; ++i) {
        std::string url_safe = forms[i];
        std::replace(url_safe.begin(), url_safe.end(), '+', '-');
        std::replace(url_safe.begin(), url_safe.end(), '/', '_');
        forms.push_back(std::move(url_safe));
    }
    return forms;
}

// The other forms a server may echo `secret` in: upper- or lower-cased (a hex key upper-cased
// is still the key), each byte in hex, and its UTF-8 read as Latin-1 and encoded again (what a
// server that decodes header bytes as Latin-1 echoes). Percent-encoding, once or twice, is read
// by the matcher itself.
std::vector<std::string> echo_forms(const std::string& secret) {
    std::vector<std::string> forms;
    std::string upper = secret;
    std::string lower = secret;
    for (std::size_t i = 0; i < secret.size(); ++i) {
        const unsigned char c = static_cast<unsigned char>(secret[i]);
        upper[i] = c >= 'a' && c <= 'z' ? static_cast<char>(c - 32) : secret[i];
        lower[i] = c >= 'A' && c <= 'Z' ? static_cast<char>(c + 32) : secret[i];
    }
    forms.push_back(std::move(upper));
    forms.push_back(std::move(lower));
    std::string latin1;
    for (const char ch : secret) {
        const auto c = static_cast<unsigned char>(ch);
        if (c < 0x80) {
            latin1 += ch;
        } else {
            latin1 += static_cast<char>(0xC0 | (c >> 6));
            latin1 += static_cast<char>(0x80 | (c & 0x3F));
        }
    }
    forms.push_back(std::move(latin1));
    for (const HexCase letters : {HexCase::lower, HexCase::upper}) {
        std::string hex;
        for (const char ch : secret) {
            hex.append(hex_digits(static_cast<unsigned char>(ch), letters).data(), 2);
        }
        forms.push_back(std::move(hex));
    }
    return forms;
}

}  // namespace

std::string credential_too_short(std::string_view credential) {
    if (credential.empty() || credential.size() >= k_min_credential) {
        return {};
    }
    return "is shorter than 8 characters: too short to be masked reliably in what wacamp writes; use the real "
           "credential";
}

void Redactor::add(std::string secret) {
    if (secret.size() < k_min_secret) {
        return;
    }
    for (auto& form : base64_forms(secret)) {
        add_form(std::move(form));
    }
    for (auto& form : echo_forms(secret)) {
        add_form(std::move(form));
    }
    add_form(std::move(secret));
}

void Redactor::add_form(std::string secret) {
    if (std::find(m_secrets.begin(), m_secrets.end(), secret) != m_secrets.end()) {
        return;
    }
    const auto first = static_cast<unsigned char>(secret[0]);
    m_starts[first] = true;
    m_firsts[first] = true;
    for (const char c : std::string_view("%+\\&")) {
        m_starts[static_cast<unsigned char>(c)] = true;  // an encoded first character
    }
    m_pairs.set(first * 256u + static_cast<unsigned char>(secret[1]));
    for (const char c : std::string_view("%+\\&\xC2\xE2\xEF")) {
        // An encoded second character, or a format character before it.
        m_pairs.set(first * 256u + static_cast<unsigned char>(c));
    }
    m_secrets.push_back(std::move(secret));
    // Longest first, so a secret that contains another is masked whole.
    std::sort(m_secrets.begin(), m_secrets.end(),
              [](const std::string& a, const std::string& b) { return a.size() > b.size(); });
}

bool Redactor::first_byte_may_start(std::string_view text, std::size_t at) const {
    std::optional<Unit> unit;
    switch (text[at]) {
    case '%':
        if (auto twice = percent_twice(text, at); twice && m_firsts[*twice]) {
            return true;
        }
        if (auto byte = hex_at(text, at + 1, 2)) {
            return m_firsts[*byte];
        }
        return false;
    case '+': return m_firsts[static_cast<unsigned char>(' ')];
    case '\\': unit = json_escape(text, at); break;
    case '&': unit = html_reference(text, at); break;
    default: return false;
    }
    return unit && m_firsts[static_cast<unsigned char>(unit->bytes[0])];
}

std::optional<std::pair<std::size_t, std::size_t>> Redactor::next_match(std::string_view text, std::size_t from) const {
    for (std::size_t at = from; at < text.size(); ++at) {
        const char c = text[at];
        if (!m_starts[static_cast<unsigned char>(c)]) {
            continue;
        }
        const bool may_encode = c == '%' || c == '+' || c == '\\' || c == '&';
        if (may_encode) {
            if (!m_firsts[static_cast<unsigned char>(c)] && !first_byte_may_start(text, at)) {
                continue;  // neither the character nor what it encodes starts a secret
            }
        } else if (at + 1 == text.size() ||
                   !m_pairs[static_cast<unsigned char>(c) * 256u + static_cast<unsigned char>(text[at + 1])]) {
            continue;  // every secret has four bytes or more, and none can go on here
        }
        for (const auto& secret : m_secrets) {
            if (c != secret[0] && !may_encode) {
                continue;
            }
            const Quick quick = quick_match(text, at, secret);
            if (const auto end = quick.unsure ? match_at(text, at, secret) : quick.end) {
                return std::pair{at, *end};
            }
        }
    }
    return std::nullopt;
}

std::string Redactor::apply(std::string_view text) const {
    std::string out;
    std::size_t copied = 0;  // text[0, copied) is in `out`
    while (const auto match = next_match(text, copied)) {
        out.append(text, copied, match->first - copied);
        out += "***";
        copied = match->second;
    }
    if (copied == 0) {
        return std::string(text);  // nothing masked: the common case, one copy
    }
    out.append(text, copied);
    return out;
}

bool Redactor::mask(std::string& text) const {
    if (!next_match(text, 0)) {
        return false;  // nothing to mask: no copy
    }
    text = apply(text);
    return true;
}

}  // namespace util
