#include "runner/screened_rows.hpp"

#include <utility>

namespace runner {

namespace {

// Rows read ahead at a time: one ledger query each, and a bounded amount of memory.
constexpr std::size_t k_batch = 256;

}  // namespace

util::Result<void> ScreenedRows::read_batch() {
    const std::size_t batch = m_book != nullptr ? k_batch : 1;
    m_rows.resize(batch);
    m_screenings.assign(batch, Screening{});
    m_count = 0;
    m_next = 0;
    std::vector<account::Send> sends;
    std::vector<std::size_t> screened;  // their indexes in m_rows
    while (!m_done && m_count < batch) {
        campaign::Recipient& row = m_rows[m_count];
        TRY_ASSIGN(const bool found, m_stream.next(row));
        if (!found) {
            m_done = true;
            break;
        }
        if (row.verdict == campaign::Verdict::ok && m_paused != nullptr && m_paused->paused(row.message.wa_id)) {
            m_screenings[m_count] = region_paused(*m_paused, row.message.wa_id);
        } else if (m_book != nullptr && row.verdict == campaign::Verdict::ok) {
            sends.push_back(account::Send{row.message.wa_id, m_key, row.row, std::nullopt});
            screened.push_back(m_count);
        }
        ++m_count;
    }
    if (sends.empty()) {
        return {};
    }
    TRY_ASSIGN(auto screenings, m_book->screen(sends, m_clock.wall_now(), Recency::read));
    for (std::size_t i = 0; i < screened.size() && i < screenings.size(); ++i) {
        m_screenings[screened[i]] = std::move(screenings[i]);
    }
    return {};
}

util::Result<bool> ScreenedRows::next(campaign::Recipient& row, Screening& screening) {
    if (m_next == m_count) {
        TRY(read_batch());
        if (m_count == 0) {
            return false;
        }
    }
    std::swap(row, m_rows[m_next]);
    screening = std::move(m_screenings[m_next]);
    ++m_next;
    return true;
}

}  // namespace runner
