#pragma once
// A compact set of wa_ids: the numbers a campaign already sent to, which must never get the
// message again, even after the CSV was edited and its rows moved.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace results {

// A wa_id of up to 18 digits (every real one: E.164 has at most 15) as one number, "1" followed
// by the digits so that "012" ≠ "12"; nothing for anything else.
std::optional<std::uint64_t> wa_id_code(std::string_view wa_id);

// Numbers of up to 18 digits (every real wa_id: E.164 has at most 15) cost 8 bytes each;
// anything else is kept as a string. Inserting is O(1); compact() sorts what was inserted
// since the last call, and lookups stay correct (only slower) before it.
class WaIdSet {
public:
    void insert(std::string_view wa_id);
    // Returns whether `wa_id` was inserted.
    bool contains(std::string_view wa_id) const;
    // Sorts and removes duplicates, for fast lookups and the least memory.
    void compact();
    // Returns how many distinct wa_ids the set holds (after compact(); before it, duplicates
    // may be counted).
    std::size_t size() const { return m_numbers.size() + m_others.size(); }

private:
    std::vector<std::uint64_t> m_numbers;  // "1" followed by the digits, so "012" ≠ "12"
    std::vector<std::string> m_others;
    std::size_t m_numbers_sorted = 0;  // m_numbers[0, m_numbers_sorted) is sorted
    std::size_t m_others_sorted = 0;
};

}  // namespace results
