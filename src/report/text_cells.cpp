#include "report/text_cells.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <algorithm>

#include "report/summary.hpp"
#include "util/text.hpp"

namespace report {

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

namespace report {

std::string retried_line(const Summary& summary) {
    std::string kinds;
    for (const auto& k : summary.retried_by_kind) {
        kinds += fmt::format("{}{} {}", kinds.empty() ? "" : ", ", util::printable(k.kind), group_digits(k.count));
    }
    return fmt::format("{} request{} — {}", group_digits(summary.retried), summary.retried == 1 ? "" : "s", kinds);
}

std::string without_user_id_line(const Summary& summary) {
    const auto& rows = summary.without_user_id_rows;
    const bool more = summary.without_user_id > static_cast<std::int64_t>(rows.size());
    return fmt::format(
        "{} row{} to delete {} an empty user_id (row{} {}{}): their contacts cannot be deleted; fill in "
        "recipients.columns.user_id and run wacamp delete-contacts",
        group_digits(summary.without_user_id), summary.without_user_id == 1 ? "" : "s",
        summary.without_user_id == 1 ? "has" : "have", rows.size() == 1 && !more ? "" : "s", fmt::join(rows, ", "),
        more ? ", …" : "");
}

}  // namespace report
