#include "queue/daily_cap.hpp"

#include <algorithm>

namespace queue {

namespace {

constexpr auto k_window = std::chrono::hours(24);
// While the cap holds, how often to look again: the wall clock may be set meanwhile.
constexpr auto k_poll = std::chrono::seconds(1);

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
        m_newest.pop_front();
    }
    // Sends come in time order but for the log's at startup: at the back, else in its place.
    if (m_newest.empty() || m_newest.back() <= at) {
        m_newest.push_back(at);
    } else {
        m_newest.insert(std::upper_bound(m_newest.begin(), m_newest.end(), at), at);
    }
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
    // Sorted: those still counting are the ones after the last that aged out (now >= at + 24 h).
    const auto first_counting = std::upper_bound(m_newest.begin(), m_newest.end(), now - k_window);
    return static_cast<long long>(m_newest.end() - first_counting);
}

std::size_t DailyCap::room(Instant at, Admission& why) const {
    const long long used = sent_in_window(at.wall) + m_started;
    if (used < m_per_day) {
        return static_cast<std::size_t>(m_per_day - used);
    }
    why = full(at);
    return 0;
}

Admission DailyCap::full(Instant at) const {
    const auto until = blocked_until(at.wall);
    Admission why = later_until(at, until, k_poll);
    if (until) {
        // Only then is it a pause; before, requests in flight hold the last room and may still
        // fail and give it back.
        why.reason = "daily cap reached";
        why.notice = true;
    }
    return why;
}

util::Result<void> DailyCap::admit(std::span<const Job* const> jobs, Instant at, std::vector<Admission>& out) {
    long long used = sent_in_window(at.wall) + m_started;
    out.clear();
    for (std::size_t i = 0; i < jobs.size(); ++i) {
        if (used < m_per_day) {
            ++used;
            ++m_started;
            out.emplace_back();
        } else {
            out.push_back(full(at));
        }
    }
    return {};
}

void DailyCap::settle(std::size_t ended, std::size_t sent, Instant at) {
    m_started = std::max(0LL, m_started - static_cast<long long>(ended));
    for (std::size_t i = 0; i < sent; ++i) {
        record(at.wall);
    }
}

}  // namespace queue
