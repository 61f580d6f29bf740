#pragma once
// `account.rate_store`'s URL: redis://[[user]:password@]host[:port][/db].

#include <string_view>

#include "campaign/campaign.hpp"
#include "util/result.hpp"

namespace pace {

// Parses `url`. User and password may be percent-encoded (%40 for "@"); a host may be an
// IPv6 address in brackets. The error never repeats the URL (it may hold a password): it says
// what is wrong, e.g. "expected redis://[[user]:password@]host[:port][/db]".
util::Result<campaign::RateStore> parse_redis_url(std::string_view url);

}  // namespace pace
