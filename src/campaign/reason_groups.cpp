#include "campaign/reason_groups.hpp"

#include <fmt/format.h>

#include <algorithm>

namespace campaign {

std::string reason_kind(std::string_view reason) {
    const auto is_digit = [](char c) { return c >= '0' && c <= '9'; };
    std::string out;
    for (std::size_t i = 0; i < reason.size();) {
        if (reason[i] == '"') {
            if (const std::size_t close = reason.find('"', i + 1); close != std::string_view::npos) {
                const bool column_name = out.ends_with("column ");
                out += column_name ? reason.substr(i, close + 1 - i) : "\"…\"";
                i = close + 1;
                continue;
            }
        }
        std::size_t end = i;
        while (end < reason.size() && is_digit(reason[end])) {
            ++end;
        }
        if (end - i >= 4) {
            out += "…";
        } else {
            out.append(reason.substr(i, std::max<std::size_t>(end - i, 1)));
        }
        i = std::max(end, i + 1);
    }
    return out;
}

void ReasonGroups::add(std::string_view reason, long long row) {
    ++m_total;
    std::string kind = reason_kind(reason);
    auto found = m_index.find(kind);
    if (found == m_index.end()) {
        if (m_groups.size() >= k_max_kinds) {
            kind = "other reasons";
            found = m_index.find(kind);
        }
        if (found == m_index.end()) {
            found = m_index.emplace(kind, m_groups.size()).first;
            m_groups.push_back(Group{std::move(kind), 0, {}});
        }
    }
    Group& group = m_groups[found->second];
    ++group.count;
    if (group.rows.size() < k_rows_kept) {
        group.rows.push_back(row);
    }
}

std::vector<ReasonGroups::Group> ReasonGroups::most_common() const {
    std::vector<Group> groups = m_groups;
    std::stable_sort(groups.begin(), groups.end(), [](const Group& a, const Group& b) { return a.count > b.count; });
    return groups;
}

std::string rows_of(const ReasonGroups::Group& group) {
    const auto shown = static_cast<long long>(group.rows.size());
    std::string text = fmt::format("{} {}", group.count == 1 ? "row" : "rows", fmt::join(group.rows, ", "));
    if (group.count > shown) {
        text += fmt::format(" and {} more", group.count - shown);
    }
    return text;
}

}  // namespace campaign
