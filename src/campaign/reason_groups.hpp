#pragma once
// Rows' problems grouped by kind of reason, for a person who reads a list's problems as a few
// lines rather than one line a row: validate's summary and the list survey's most common
// reasons. Memory is bounded whatever the length of the list.

#include <cstddef>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace campaign {

// Returns `reason` with what differs from row to row left out, so that reasons of one kind
// count together: quoted values (but a column's name) become "…", and so do numbers of four
// digits or more ("column \"phone\": \"12345\" is not …" → "column \"phone\": \"…\" is not …").
std::string reason_kind(std::string_view reason);

class ReasonGroups {
public:
    static constexpr std::size_t k_rows_kept = 5;    // row numbers kept per group
    static constexpr std::size_t k_max_kinds = 256;  // past this, new kinds count as "other reasons"

    struct Group {
        std::string reason;           // the kind (reason_kind), or "other reasons"
        long long count = 0;          // rows of this kind
        std::vector<long long> rows;  // the first k_rows_kept of them, in the order added
    };

    // Counts row `row` under the kind of `reason`.
    void add(std::string_view reason, long long row);
    // Returns the groups, most rows first (ties: the kind seen first).
    std::vector<Group> most_common() const;
    // Returns how many rows were added.
    long long total() const { return m_total; }

private:
    std::vector<Group> m_groups;                           // in the order their kinds were first seen
    std::unordered_map<std::string, std::size_t> m_index;  // kind → its group in m_groups
    long long m_total = 0;
};

// Returns "row 4", "rows 2, 17, 30" or "rows 2, 17, 30, 41, 58 and 407 more": the rows of `group`.
std::string rows_of(const ReasonGroups::Group& group);

}  // namespace campaign
