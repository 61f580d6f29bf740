#include "sandbox/faults.hpp"

namespace sandbox {

RateWindow::RateWindow(int limit, std::chrono::milliseconds window)
    : m_limit(limit > 0 ? static_cast<size_t>(limit) : 0), m_window(window) {}

bool RateWindow::admit(SteadyTime now) {
    if (m_limit == 0) {
        return true;
    }
    // A window is half-open: an event exactly one window ago no longer counts.
    while (!m_admitted.empty() && now - m_admitted.front() >= m_window) {
        m_admitted.pop_front();
    }
    if (m_admitted.size() >= m_limit) {
        return false;
    }
    m_admitted.push_back(now);
    return true;
}

FaultInjector::FaultInjector(const FaultOptions& options)
    : m_options(options),
      m_reject(options.reject_numbers.begin(), options.reject_numbers.end()),
      m_meta_errors(options.meta_errors),
      m_window(options.rate_limit, std::chrono::seconds(1)),
      m_rng(options.seed) {}

bool FaultInjector::key_revoked() const {
    return m_options.auth_fail_after && m_accepted >= *m_options.auth_fail_after;
}

SendDecision FaultInjector::decide_send(std::string_view wa_id, SteadyTime now) {
    if (key_revoked()) {
        return {SendVerdict::revoked};
    }
    if (!m_window.admit(now)) {
        return {SendVerdict::rate_limited};
    }
    if (m_options.spam_limit_after && m_accepted >= *m_options.spam_limit_after) {
        return {SendVerdict::spam_limit};
    }
    if (const int code = m_meta_errors.next(wa_id); code != 0) {
        return {SendVerdict::meta_error, code};
    }
    if (m_reject.count(std::string(wa_id)) > 0) {
        return {SendVerdict::rejected};
    }
    if (m_options.error_rate > 0.0 || m_options.drop_rate > 0.0) {
        // One draw for both, so the two shares never overlap.
        double u = draw_unit();
        if (u < m_options.error_rate) {
            return {SendVerdict::error};
        }
        if (u < m_options.error_rate + m_options.drop_rate) {
            return {SendVerdict::dropped};
        }
    }
    ++m_accepted;
    return {SendVerdict::accept};
}

bool FaultInjector::lose_answer(ConnectionUse use) {
    return use == ConnectionUse::reused && m_options.lost_answer_rate > 0.0 && draw_unit() < m_options.lost_answer_rate;
}

std::chrono::milliseconds FaultInjector::draw_latency() {
    auto jitter = m_options.latency_jitter.count();
    if (jitter <= 0) {
        return m_options.latency;
    }
    auto extra = static_cast<long long>(m_rng() % static_cast<unsigned long long>(jitter + 1));
    return m_options.latency + std::chrono::milliseconds(extra);
}

int FaultInjector::draw_error_status() {
    return (m_rng() & 1U) != 0 ? 503 : 500;
}

double FaultInjector::draw_unit() {
    // 53 random bits: the same sequence for a seed on every standard library.
    return static_cast<double>(m_rng() >> 11) * 0x1.0p-53;
}

}  // namespace sandbox
