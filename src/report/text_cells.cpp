#include "report/text_cells.hpp"

#include <fmt/format.h>
#include <algorithm>

namespace report {

std::string group_digits(std::int64_t n) {
    const std::string digits = fmt::format("{}", n < 0 ? -(n + 1) + std::uint64_t{1} : n);
    std::string out;
    for (std::size_t i = 0; i < digits.size(); ++i) {
        if (i > 0 && (digits.size() - i) % 3 == 0) {
            out += ',';
        }
        out += digits[i];
    }
    return n < 0 ? "-" + out : out;
}

std::string format_duration(util::Millis d) {
    const std::int64_t ms = std::max<std::int64_t>(d.count(), 0);
    if (ms < 1'000) {
        return fmt::format("{} ms", ms);
    }
    if (ms < 60'000) {
        return fmt::format("{:.1f} s", static_cast<double>(ms) / 1000.0);
    }
    const std::int64_t s = ms / 1000;
    if (s < 3600) {
        return fmt::format("{}m {:02}s", s / 60, s % 60);
    }
    if (s < 86'400) {
        return fmt::format("{}h {:02}m {:02}s", s / 3600, s / 60 % 60, s % 60);
    }
    return fmt::format("{}d {:02}h {:02}m", s / 86'400, s / 3600 % 24, s / 60 % 60);
}

std::string table(const std::vector<std::array<std::string, 5>>& rows, std::initializer_list<Align> align) {
    std::array<std::size_t, 5> width{};
    for (const auto& row : rows) {
        for (std::size_t i = 0; i < row.size(); ++i) {
            width[i] = std::max(width[i], row[i].size());
        }
    }
    std::string out;
    for (const auto& row : rows) {
        out += "  ";
        for (std::size_t i = 0; i < row.size(); ++i) {
            const Align a = i < align.size() ? *(align.begin() + i) : Align::left;
            if (i + 1 == row.size()) {
                out += row[i];
            } else if (a == Align::right) {
                out += fmt::format("{:>{}}  ", row[i], width[i]);
            } else {
                out += fmt::format("{:<{}}  ", row[i], width[i]);
            }
        }
        // The last column may be empty (no sample): no trailing blanks.
        while (!out.empty() && out.back() == ' ') {
            out.pop_back();
        }
        out += '\n';
    }
    return out;
}

}  // namespace report
