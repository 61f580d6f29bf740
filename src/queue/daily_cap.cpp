#include "queue/daily_cap.hpp"

#include <algorithm>
#include <functional>

namespace queue {

namespace {

constexpr auto k_window = std::chrono::hours(24);

}  // namespace

DailyCap::DailyCap(long long per_day) : m_per_day(std::max(per_day, 0LL)) {}

void DailyCap::record(WallTime at) {
    if (m_per_day == 0) {
        return;
    }
    if (static_cast<long long>(m_newest.size()) == m_per_day) {
        if (at <= m_newest.front()) {
            return;  // older than every kept send: it can no longer decide anything
        }
        std::pop_heap(m_newest.begin(), m_newest.end(), std::greater<>{});
        m_newest.pop_back();
    }
    m_newest.push_back(at);
    std::push_heap(m_newest.begin(), m_newest.end(), std::greater<>{});
}

std::optional<WallTime> DailyCap::blocked_until(WallTime now) const {
    if (m_per_day == 0) {
        return WallTime::max();
    }
    // Full and its oldest still counting: every kept send is in the window, so the cap is
    // reached, and it lifts when that oldest one ages out.
    if (static_cast<long long>(m_newest.size()) == m_per_day && now < m_newest.front() + k_window) {
        return m_newest.front() + k_window;
    }
    return std::nullopt;
}

long long DailyCap::sent_in_window(WallTime now) const {
    const auto counts = [now](WallTime at) { return now < at + k_window; };
    return static_cast<long long>(std::count_if(m_newest.begin(), m_newest.end(), counts));
}

}  // namespace queue
