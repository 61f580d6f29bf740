#include "results/wa_id_set.hpp"

#include <algorithm>
#include <optional>

namespace results {

namespace {

constexpr std::size_t k_max_digits = 18;  // "1" + 18 digits < 2^63

}  // namespace

std::optional<std::uint64_t> wa_id_code(std::string_view wa_id) {
    if (wa_id.empty() || wa_id.size() > k_max_digits) {
        return std::nullopt;
    }
    std::uint64_t key = 1;
    for (const char c : wa_id) {
        if (c < '0' || c > '9') {
            return std::nullopt;
        }
        key = key * 10 + static_cast<std::uint64_t>(c - '0');
    }
    return key;
}

namespace {

template <typename V, typename T>
bool find(const V& values, std::size_t sorted, const T& value) {
    if (std::binary_search(values.begin(), values.begin() + static_cast<std::ptrdiff_t>(sorted), value)) {
        return true;
    }
    return std::find(values.begin() + static_cast<std::ptrdiff_t>(sorted), values.end(), value) != values.end();
}

template <typename V>
void sort_unique(V& values, std::size_t& sorted) {
    std::sort(values.begin(), values.end());
    values.erase(std::unique(values.begin(), values.end()), values.end());
    values.shrink_to_fit();
    sorted = values.size();
}

}  // namespace

void WaIdSet::insert(std::string_view wa_id) {
    if (const auto key = wa_id_code(wa_id)) {
        m_numbers.push_back(*key);
    } else {
        m_others.emplace_back(wa_id);
    }
}

bool WaIdSet::contains(std::string_view wa_id) const {
    if (const auto key = wa_id_code(wa_id)) {
        return find(m_numbers, m_numbers_sorted, *key);
    }
    return find(m_others, m_others_sorted, wa_id);
}

void WaIdSet::compact() {
    sort_unique(m_numbers, m_numbers_sorted);
    sort_unique(m_others, m_others_sorted);
}

}  // namespace results
