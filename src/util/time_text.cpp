#include "util/time_text.hpp"

#include <fmt/chrono.h>

namespace util {

std::string format_wall_time(TimePoint t, TimePoint now) {
    const auto seconds = std::chrono::floor<std::chrono::seconds>(t);
    if (std::chrono::floor<std::chrono::days>(t) == std::chrono::floor<std::chrono::days>(now)) {
        return fmt::format("{:%H:%M:%S} UTC", seconds);
    }
    return fmt::format("{:%Y-%m-%d %H:%M:%S} UTC", seconds);
}

}  // namespace util
