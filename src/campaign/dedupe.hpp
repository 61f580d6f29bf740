#pragma once
// Remembers each wa_id seen and the row that first had it, so a repeat can be skipped as
// a duplicate of that row. A wa_id is at most 15 digits, so it is kept as a number in an
// open-addressing table: 16 bytes a slot, at most 3/4 full.

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace campaign {

class DuplicateFilter {
public:
    DuplicateFilter();

    // Returns the row that first had `wa_id` when it was seen before; otherwise remembers
    // `wa_id` with `row` and returns nothing. Any string works; digit strings of up to 15
    // digits (every wa_id) take the compact path.
    std::optional<long long> seen_before(std::string_view wa_id, long long row);

    // Returns how many distinct wa_ids have been seen.
    std::size_t size() const { return m_size + m_other.size(); }

    // Returns the bytes held by the table (not counting odd, non-wa_id keys).
    std::size_t memory_bytes() const { return m_slots.capacity() * sizeof(Slot); }

private:
    struct Slot {
        std::uint64_t key = 0;  // 0: empty; otherwise digit count << 50 | value
        long long row = 0;
    };

    void grow();

    std::vector<Slot> m_slots;
    std::size_t m_size = 0;
    std::unordered_map<std::string, long long> m_other;  // keys that are not 1–15 digits
};

} // namespace campaign
