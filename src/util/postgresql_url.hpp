#pragma once
// A PostgreSQL URL (postgresql://user:password@host:port/db?…): telling one from a path, and
// finding its password so that it is never shown. No libpq here: the campaign file reads these
// URLs too (`account.ledger`).

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

namespace util {

// Whether `text` is a PostgreSQL URL ("postgresql://" or "postgres://") rather than a path.
bool is_postgresql_url(std::string_view text);

// Where the password of `url` is: the `password` of its `user:password@` part (as libpq reads
// it: the user part ends at the first '@' or '/'), else the value of a `password=` parameter.
// nullopt when it has none.
struct UrlPassword {
    std::size_t at = 0;     // offset of the password
    std::size_t size = 0;   // its length (0 for `user:@host`)
    bool in_query = false;  // a `password=` parameter rather than `user:password@`
};
std::optional<UrlPassword> url_password(std::string_view url);

// `url` with its password left out (`user@host`, no `password=`): what every message names, and
// what a campaign keeps once it has taken the password out.
std::string url_without_password(std::string_view url);

}  // namespace util
