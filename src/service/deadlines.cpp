#include "service/deadlines.hpp"

namespace service {

Deadlines::Deadlines(std::chrono::milliseconds max_lateness) : m_max_lateness(max_lateness) {}

void Deadlines::add(std::uint64_t id, Steady now, std::chrono::milliseconds timeout) {
    remove(id);
    const Steady at = now - m_stopped + timeout;
    m_order.emplace(at, id);
    m_by_id.emplace(id, at);
}

void Deadlines::remove(std::uint64_t id) {
    auto it = m_by_id.find(id);
    if (it == m_by_id.end()) {
        return;
    }
    m_order.erase({it->second, id});
    m_by_id.erase(it);
}

void Deadlines::woke(Steady asked, Steady now) {
    if (now - asked > m_max_lateness) {
        m_stopped += now - asked;
    }
}

std::optional<Deadlines::Steady> Deadlines::next() const {
    if (m_order.empty()) {
        return std::nullopt;
    }
    return m_order.begin()->first + m_stopped;
}

std::vector<std::uint64_t> Deadlines::expired(Steady now) const {
    std::vector<std::uint64_t> out;
    const Steady running = now - m_stopped;
    for (const auto& [at, id] : m_order) {
        if (at > running) {
            break;
        }
        out.push_back(id);
    }
    return out;
}

}  // namespace service
