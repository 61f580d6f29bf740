#include "campaign/dedupe.hpp"

namespace campaign {

namespace {

constexpr std::size_t k_initial_slots = 1024;  // a power of two; the mask relies on it
constexpr int k_length_shift = 50;             // 10^15 < 2^50

// The digits of `wa_id` as a key that also records their count (so "091" ≠ "91");
// 0 when `wa_id` is not 1–15 ASCII digits.
std::uint64_t key_of(std::string_view wa_id)
{
    if (wa_id.empty() || wa_id.size() > 15) {
        return 0;
    }
    std::uint64_t value = 0;
    for (const char c : wa_id) {
        if (c < '0' || c > '9') {
            return 0;
        }
        value = value * 10 + static_cast<std::uint64_t>(c - '0');
    }
    return (static_cast<std::uint64_t>(wa_id.size()) << k_length_shift) | value;
}

// splitmix64's finaliser: consecutive numbers land far apart.
std::uint64_t mix(std::uint64_t x)
{
    x ^= x >> 30;
    x *= 0xbf58476d1ce4e5b9ULL;
    x ^= x >> 27;
    x *= 0x94d049bb133111ebULL;
    x ^= x >> 31;
    return x;
}

} // namespace

DuplicateFilter::DuplicateFilter() : m_slots(k_initial_slots) {}

std::optional<long long> DuplicateFilter::seen_before(std::string_view wa_id, long long row)
{
    const std::uint64_t key = key_of(wa_id);
    if (key == 0) {
        const auto [it, fresh] = m_other.emplace(std::string(wa_id), row);
        return fresh ? std::nullopt : std::optional<long long>(it->second);
    }
    const std::size_t mask = m_slots.size() - 1;
    for (std::size_t i = mix(key) & mask;; i = (i + 1) & mask) {
        Slot& slot = m_slots[i];
        if (slot.key == key) {
            return slot.row;
        }
        if (slot.key == 0) {
            slot = Slot{key, row};
            ++m_size;
            if (m_size * 4 > m_slots.size() * 3) {
                grow();
            }
            return std::nullopt;
        }
    }
}

void DuplicateFilter::grow()
{
    std::vector<Slot> old(m_slots.size() * 2);
    old.swap(m_slots);
    const std::size_t mask = m_slots.size() - 1;
    for (const Slot& slot : old) {
        if (slot.key == 0) {
            continue;
        }
        std::size_t i = mix(slot.key) & mask;
        while (m_slots[i].key != 0) {
            i = (i + 1) & mask;
        }
        m_slots[i] = slot;
    }
}

} // namespace campaign
