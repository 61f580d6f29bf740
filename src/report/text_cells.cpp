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
