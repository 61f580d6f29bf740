#include "util/redis_url.hpp"

#include <charconv>
#include <optional>
#include <string>

#include "util/text.hpp"

namespace util {

namespace {

constexpr std::string_view k_form = "expected redis://[[user]:password@]host[:port][/db]";

std::optional<int> number_in(std::string_view text, int min, int max) {
    int value = 0;
    const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
    if (text.empty() || ec != std::errc() || end != text.data() + text.size() || value < min || value > max) {
        return std::nullopt;
    }
    return value;
}

}  // namespace

Result<RedisUrl> parse_redis_url(std::string_view url) {
    RedisUrl out;
    if (url.starts_with("rediss://")) {
        return fail(
            "rediss:// (TLS) is not supported: this wacamp's hiredis has no TLS; reach Redis on a "
            "private network or through a tunnel with redis://");
    }
    if (!url.starts_with("redis://")) {
        return fail(std::string(k_form));
    }
    std::string_view rest = url.substr(8);
    const std::size_t slash = rest.find('/');
    std::string_view authority = rest.substr(0, slash);
    if (slash != std::string_view::npos) {
        const std::string_view db = rest.substr(slash + 1);
        if (!db.empty()) {
            auto number = number_in(db, 0, 1'000'000);
            if (!number) {
                return fail("the database after the host must be a number, e.g. redis://host:6379/0");
            }
            out.db = *number;
        }
    }
    if (const std::size_t at = authority.rfind('@'); at != std::string_view::npos) {
        const std::string_view credentials = authority.substr(0, at);
        authority = authority.substr(at + 1);
        const std::size_t colon = credentials.find(':');
        if (colon == std::string_view::npos) {
            return fail("credentials must be user:password@ or :password@ (a password alone after a colon)");
        }
        auto user = percent_decoded(credentials.substr(0, colon));
        auto password = percent_decoded(credentials.substr(colon + 1));
        if (!user || !password) {
            return fail("malformed %-escape in the credentials");
        }
        out.user = std::move(*user);
        out.password = std::move(*password);
    }
    std::string_view port;
    if (authority.starts_with('[')) {
        const std::size_t close = authority.find(']');
        if (close == std::string_view::npos) {
            return fail("an IPv6 host must be closed with ]");
        }
        out.host = std::string(authority.substr(1, close - 1));
        const std::string_view after = authority.substr(close + 1);
        if (!after.empty()) {
            if (!after.starts_with(':')) {
                return fail(std::string(k_form));
            }
            port = after.substr(1);
        }
    } else {
        const std::size_t colon = authority.find(':');
        out.host = std::string(authority.substr(0, colon));
        if (colon != std::string_view::npos) {
            port = authority.substr(colon + 1);
        }
    }
    if (out.host.empty()) {
        return fail("no host: " + std::string(k_form));
    }
    if (out.host.find_first_of(" \t%") != std::string::npos) {
        return fail("the host contains a space or %");
    }
    if (!port.empty() || authority.ends_with(':')) {
        auto number = number_in(port, 1, 65535);
        if (!number) {
            return fail("the port must be a number from 1 to 65535");
        }
        out.port = *number;
    }
    const bool ipv6 = out.host.find(':') != std::string::npos;
    out.shown = "redis://" + (ipv6 ? "[" + out.host + "]" : out.host) + ":" + std::to_string(out.port) + "/" +
                std::to_string(out.db);
    return out;
}

}  // namespace util
