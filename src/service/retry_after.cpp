#include "service/retry_after.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdlib>
#include <string>

#include "util/text.hpp"
#include "util/time.hpp"

namespace service {

std::optional<std::chrono::milliseconds> parse_retry_after(std::string_view value,
                                                           std::chrono::system_clock::time_point now) {
    value = util::trim(value);
    if (value.empty()) {
        return std::nullopt;
    }
    if (std::isdigit(static_cast<unsigned char>(value.front()))) {
        std::string text(value);
        char* end = nullptr;
        double seconds = std::strtod(text.c_str(), &end);
        if (end != text.c_str() + text.size() || !std::isfinite(seconds) || seconds < 0) {
            return std::nullopt;
        }
        seconds = std::min(seconds, 86'400.0);  // a day at most: beyond that it's a broken header
        return std::chrono::milliseconds(static_cast<long long>(std::llround(seconds * 1000)));
    }
    // An HTTP date (RFC 9110 §5.6.7).
    const auto at = util::parse_http_date(value, now);
    if (!at) {
        return std::nullopt;
    }
    if (*at <= now) {
        return std::chrono::milliseconds(0);
    }
    auto delta = std::chrono::duration_cast<std::chrono::milliseconds>(*at - now);
    return std::min(delta, std::chrono::milliseconds(86'400'000));
}

}  // namespace service
