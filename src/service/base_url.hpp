#pragma once
// The service's base address as a user gives it: what is accepted, and when plain HTTP is.

#include <string>
#include <string_view>

#include "util/result.hpp"

namespace service {

// Whether plain http:// to a host other than loopback is allowed (service.allow_insecure_http).
enum class InsecureHttp { refuse, allow };

// Whether the base URL `url` speaks plain HTTP to a host that is not loopback (127.0.0.0/8,
// ::1, localhost): the API key would cross the network unencrypted.
bool insecure_http(std::string_view url);

// The warning printed on every run that sends over plain HTTP to a host that is not loopback.
std::string insecure_http_warning(std::string_view url);

// Returns `url` without trailing slashes when it is usable as the service's base address:
// http:// or https://, a host, no query, fragment or spaces, no user name or password, and not
// plain HTTP to a host other than loopback unless `insecure` allows it. Fails saying what is
// wrong; the message never repeats a user name or password found in `url`.
util::Result<std::string> check_base_url(std::string_view url, InsecureHttp insecure);

// How the default account spells this machine's loopback host, whichever of localhost,
// 127.0.0.1 or [::1] the base URL names.
inline constexpr std::string_view k_loopback_account_host = "127.0.0.1";

// The account a checked base URL stands for when the campaign names none: its host in lower
// case, with ":PORT" when the port is not the scheme's default ("api.example.com",
// "127.0.0.1:8080"); localhost and [::1] read as 127.0.0.1 ("http://localhost:8080" and
// "http://[::1]:8080" are "127.0.0.1:8080").
std::string account_of(std::string_view url);

}  // namespace service
