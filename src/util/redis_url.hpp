#pragma once
// A Redis server's URL: redis://[[user]:password@]host[:port][/db].

#include <string_view>

#include <string>

#include "util/result.hpp"

namespace util {

// A Redis server as a redis:// URL names it.
struct RedisUrl {
    std::string host;
    int port = 6379;
    int db = 0;
    std::string user;      // empty: AUTH with the password alone (Redis's `default` user)
    std::string password;  // empty: no AUTH; a secret, never shown
    std::string shown;     // "redis://host:port/db", without credentials, for messages
};

// Parses `url`. User and password may be percent-encoded (%40 for "@"); a host may be an
// IPv6 address in brackets. The error never repeats the URL (it may hold a password): it says
// what is wrong, e.g. "expected redis://[[user]:password@]host[:port][/db]".
Result<RedisUrl> parse_redis_url(std::string_view url);

}  // namespace util
