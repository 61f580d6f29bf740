#include "queue/dispatcher_loop.hpp"

#include <algorithm>

#include "queue/daily_cap.hpp"

namespace queue::detail {

bool Dispatcher::cap_blocked(std::chrono::system_clock::time_point wall, std::optional<Steady>& wake, Steady now) {
    DailyCap* cap = m_parts.daily_cap;
    if (cap == nullptr) {
        return false;
    }
    long long used = cap->sent_in_window(wall) + static_cast<long long>(busy());
    if (used < cap->per_day()) {
        return false;
    }
    auto until = cap->blocked_until(wall);
    if (until) {
        // Only then is it a pause; before, requests in flight hold the last slots and may
        // still fail and give them back.
        m_pause_reason = "daily cap reached";
        m_paused_until = until;
        announce_pause();
    }
    // Re-check at least every second: in-flight requests may end without a send.
    auto step = until ? std::min<std::chrono::system_clock::duration>(*until - wall, std::chrono::seconds(1))
                      : std::chrono::system_clock::duration(std::chrono::seconds(1));
    wake = now + std::chrono::duration_cast<Steady::duration>(step);
    return true;
}

bool Dispatcher::gate_closed(std::chrono::system_clock::time_point wall, std::optional<Steady>& wake, Steady now) {
    if (m_parts.gate == nullptr) {
        return false;
    }
    auto until = m_parts.gate->closed_until(wall);
    if (!until) {
        return false;
    }
    m_pause_reason = m_parts.gate->reason();
    m_paused_until = *until == std::chrono::system_clock::time_point::max() ? std::nullopt : until;
    announce_pause();
    // Wake at the opening, re-checking every second meanwhile: the wall clock may be set.
    auto step = std::min<std::chrono::system_clock::duration>(*until - wall, std::chrono::seconds(1));
    wake = now + std::chrono::duration_cast<Steady::duration>(step);
    return true;
}

bool Dispatcher::account_blocked(std::optional<Steady>& wake, Steady now) {
    if (m_deferred.empty() || now >= m_account_retry) {
        return false;
    }
    m_pause_reason = m_account_reason;
    m_paused_until = m_account_until;
    announce_pause();
    wake = m_account_retry;
    return true;
}

bool Dispatcher::pace_blocked(std::optional<Steady>& wake, Steady now) {
    if (m_parts.pace == nullptr || now >= m_pace_retry) {
        return false;
    }
    if (!m_pace_reason.empty()) {
        m_pause_reason = m_pace_reason;
        m_paused_until = m_pace_until;
        if (m_pace_notice) {
            announce_pause();
        }
    }
    wake = m_pace_retry;
    return true;
}

// Tells the observer once per wait (the checks above repeat while it lasts).
void Dispatcher::announce_pause() {
    if (m_announced && m_announced->first == m_pause_reason && m_announced->second == m_paused_until) {
        return;
    }
    m_announced.emplace(m_pause_reason, m_paused_until);
    Progress p = m_result.progress;
    p.started = m_taken;
    p.in_flight = m_in_flight.size();
    p.in_flight_limit = in_flight_limit();
    p.pause_reason = m_pause_reason;
    p.paused_until = m_paused_until;
    m_parts.observer->on_pause(p);
}

std::size_t Dispatcher::in_flight_limit() const {
    if (m_settings.concurrency) {
        return static_cast<std::size_t>(std::max(*m_settings.concurrency, 1));
    }
    return static_cast<std::size_t>(m_window.limit(m_parts.limiter->current_rate()));
}

// How many starts to gather into one wake-up while the rate holds them back. With a burst the
// limiter lets several start together without losing any of the rate, so one wake-up can serve
// them: half the burst plus one (a wake-up late by the other half's intervals still loses
// nothing), no more than the in-flight limit has room for, and no more than fit in
// k_hold_answers (the answers of the last batch wait unread until the next).
int Dispatcher::gather_count() const {
    const std::size_t limit = in_flight_limit();
    const auto room = static_cast<long long>(limit > busy() ? limit - busy() : 1);
    const long long fit = std::max<long long>(1, k_hold_answers / m_parts.limiter->interval());
    return static_cast<int>(std::clamp<long long>(1 + m_parts.limiter->burst() / 2, 1, std::min(room, fit)));
}

// Whether a job could start now; otherwise `wake` says when it might.
bool Dispatcher::startable_now(Steady now, std::optional<Steady>& wake) {
    if (busy() >= in_flight_limit()) {
        return false;
    }
    bool retry_due = !m_waiting.empty() && m_waiting.top().due <= now;
    bool fresh = !m_held.empty() || !m_deferred.empty() ||
                 (!(m_settings.limit > 0 && m_taken >= m_settings.limit) && !source_exhausted());
    if (!retry_due && !fresh) {
        if (!m_waiting.empty()) {
            wake = m_waiting.top().due;
        }
        return false;
    }
    if (gate_closed(m_parts.clock->wall_now(), wake, now) || cap_blocked(m_parts.clock->wall_now(), wake, now) ||
        account_blocked(wake, now) || pace_blocked(wake, now)) {
        return false;
    }
    Steady allowed = m_parts.limiter->next_allowed(now);
    if (allowed > now) {
        wake = m_parts.limiter->next_allowed(now, gather_count());
        if (auto pause = m_parts.limiter->paused_until(now)) {
            m_pause_reason = "rate limited by the service";
            m_paused_until = m_parts.clock->wall_now() + (*pause - now);
        }
        return false;
    }
    if (m_pace_reason.empty()) {
        // The shared pace's reason lasts until it grants a slot (start_paced): asking again is
        // no end of the pause.
        m_pause_reason.clear();
        m_paused_until.reset();
        m_announced.reset();
    }
    return true;
}

}  // namespace queue::detail
