#include "queue/daily_cap.hpp"

#include <algorithm>

namespace queue {

namespace {

constexpr auto k_window = std::chrono::hours(24);
// While the cap holds, how often to look again: the wall clock may be set meanwhile.
constexpr auto k_poll = std::chrono::seconds(1);

// The second a send at `at` is kept in.
auto second_of(WallTime at) {
    return std::chrono::floor<std::chrono::seconds>(at);
}

}  // namespace

DailyCap::DailyCap(long long per_day) : m_per_day(std::max(per_day, 0LL)) {}

void DailyCap::record(WallTime at, long long count) {
    if (m_per_day == 0 || count < 1) {
        return;
    }
    count = std::min(count, m_per_day);  // more than per_day at once: only per_day of them can count
    // Sends come in time order but for the log's at startup: at the back, else in their place.
    auto it = m_runs.end();
    if (!m_runs.empty() && second_of(at) <= second_of(m_runs.back().at)) {
        it = std::lower_bound(m_runs.begin(), m_runs.end(), second_of(at),
                              [](const Run& run, auto second) { return second_of(run.at) < second; });
    }
    if (it != m_runs.end() && second_of(it->at) == second_of(at)) {
        it->at = std::max(it->at, at);
        it->count += count;
    } else {
        const long long before =
            it == m_runs.begin() ? (m_runs.empty() ? 0 : it->through - it->count) : std::prev(it)->through;
        it = m_runs.insert(it, Run{at, count, before});
    }
    for (; it != m_runs.end(); ++it) {
        it->through += count;
    }
    trim();
}

void DailyCap::trim() {
    for (long long excess = since(m_runs.begin()) - m_per_day; excess > 0;) {
        Run& oldest = m_runs.front();
        if (oldest.count > excess) {
            oldest.count -= excess;  // `through` stays: it counts from the offset
            break;
        }
        excess -= oldest.count;
        m_runs.pop_front();
    }
    // A send a day older than the newest no longer counts at any time the newest was made.
    while (!m_runs.empty() && m_runs.front().at + k_window <= m_runs.back().at) {
        m_runs.pop_front();
    }
}

long long DailyCap::since(std::deque<Run>::const_iterator first) const {
    if (first == m_runs.end()) {
        return 0;
    }
    return m_runs.back().through - (first->through - first->count);
}

std::optional<WallTime> DailyCap::blocked_until(WallTime now) const {
    if (m_per_day == 0) {
        return WallTime::max();
    }
    // Full and its oldest still counting: every kept send is in the window, so the cap is
    // reached, and it lifts when that oldest one ages out.
    if (since(m_runs.begin()) == m_per_day && now < m_runs.front().at + k_window) {
        return m_runs.front().at + k_window;
    }
    return std::nullopt;
}

long long DailyCap::sent_in_window(WallTime now) const {
    // Sorted: those still counting are the ones after the last that aged out (now >= at + 24 h).
    const auto first_counting = std::upper_bound(m_runs.begin(), m_runs.end(), now - k_window,
                                                 [](WallTime t, const Run& run) { return t < run.at; });
    return since(first_counting);
}

std::size_t DailyCap::room(Instant at, Admission& why) const {
    const long long used = sent_in_window(at.wall) + m_started;
    if (used < m_per_day || m_free > 0) {
        return static_cast<std::size_t>(std::max(m_per_day - used, 0LL) + m_free);
    }
    why = full(at);
    return 0;
}

Admission::Later DailyCap::full(Instant at) const {
    const auto until = blocked_until(at.wall);
    Admission::Later why = later_until(at, until, k_poll);
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
        if (m_free > 0) {
            --m_free;
            ++m_free_started;
            out.emplace_back();
        } else if (used < m_per_day) {
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
    // Free jobs were admitted first and end first: neither their room nor their sends count.
    const auto free_ended = std::min<long long>(m_free_started, static_cast<long long>(ended));
    m_free_started -= free_ended;
    ended -= static_cast<std::size_t>(free_ended);
    sent -= std::min(sent, static_cast<std::size_t>(free_ended));
    m_started = std::max(0LL, m_started - static_cast<long long>(ended));
    record(at.wall, static_cast<long long>(sent));
}

}  // namespace queue
