#include "campaign/duplicates.hpp"

namespace campaign {

namespace {

constexpr std::size_t k_max_code_digits = 17;  // 10^17 × 32 still fits 64 bits

// A digit string of 1 to 17 digits as one number that keeps its length, so that "091" and
// "91" differ. Every wa_id (E.164: at most 15 digits) has one.
std::optional<std::uint64_t> number_code(std::string_view wa_id) {
    if (wa_id.empty() || wa_id.size() > k_max_code_digits) {
        return std::nullopt;
    }
    std::uint64_t value = 0;
    for (char ch : wa_id) {
        if (ch < '0' || ch > '9') {
            return std::nullopt;
        }
        value = value * 10 + static_cast<std::uint64_t>(ch - '0');
    }
    return value * 32 + wa_id.size();
}

}  // namespace

util::Result<std::optional<long long>> DuplicateRows::first_row_of(long long row) {
    if (!m_has_pairs || m_done) {
        return std::optional<long long>();
    }
    const auto wanted = static_cast<std::uint64_t>(row);
    while (!m_loaded || m_current.first < wanted) {
        TRY_ASSIGN(const bool found, m_pairs.next(m_current));
        if (!found) {
            m_done = true;
            return std::optional<long long>();
        }
        m_loaded = true;
    }
    if (m_current.first == wanted) {
        return std::optional<long long>(static_cast<long long>(m_current.second));
    }
    return std::optional<long long>();
}

DuplicateFinder::DuplicateFinder(util::ExternalSortOptions options)
    : DuplicateFinder(DuplicateOptions{options, options}) {}

DuplicateFinder::DuplicateFinder(DuplicateOptions options)
    : m_by_number(std::move(options.numbers)), m_repeats(std::move(options.repeats)) {}

util::Result<void> DuplicateFinder::add(std::string_view wa_id, long long row) {
    const auto r = static_cast<std::uint64_t>(row);
    if (auto code = number_code(wa_id)) {
        return m_by_number.add({*code, r});
    }
    auto [it, inserted] = m_other.try_emplace(std::string(wa_id), row);
    if (!inserted) {
        return m_repeats.add({r, static_cast<std::uint64_t>(it->second)});
    }
    return {};
}

util::Result<DuplicateRows> DuplicateFinder::finish() {
    TRY_ASSIGN(auto sorted, m_by_number.finish());
    // Sorted by (code, row): the first of a run of equal codes is the row that keeps the number.
    util::SortPair pair;
    util::SortPair first{~std::uint64_t{0}, 0};
    for (;;) {
        TRY_ASSIGN(const bool found, sorted.next(pair));
        if (!found) {
            break;
        }
        if (pair.first == first.first) {
            TRY(m_repeats.add({pair.second, first.second}));
        } else {
            first = pair;
        }
    }
    TRY_ASSIGN(auto repeats, m_repeats.finish());
    return DuplicateRows(std::move(repeats));
}

}  // namespace campaign
