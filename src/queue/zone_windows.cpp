#include "queue/zone_windows.hpp"

#include <fmt/format.h>

#include "queue/job.hpp"

namespace queue {

ZoneWindows::ZoneWindows(campaign::Window window) : m_window(std::move(window)) {}

util::Result<int> ZoneWindows::zone(const std::string& name) {
    if (const auto it = m_index.find(name); it != m_index.end()) {
        return it->second;
    }
    campaign::Window one = m_window;
    one.timezone = name;
    one.per_recipient = false;
    TRY_ASSIGN(auto made, SendWindow::make(one));
    const auto index = static_cast<int>(m_windows.size());
    m_windows.push_back(std::move(made));
    m_index.emplace(name, index);
    return index;
}

util::Result<void> ZoneWindows::admit(std::span<const Job* const> jobs, Instant at, std::vector<Admission>& out) {
    out.assign(jobs.size(), Admission{});
    for (std::size_t i = 0; i < jobs.size(); ++i) {
        if (jobs[i]->zone < 0) {
            continue;
        }
        const SendWindow& window = this->window(jobs[i]->zone);
        if (window.room(at, out[i]) == k_any_room) {
            // Admitted while the window lasts: a job held up after it (by the pace, the daily
            // cap) is asked again, never sent outside its recipient's window.
            if (const auto closes = window.closes_at(at.wall)) {
                const auto open_for = std::chrono::duration_cast<SteadyTime::duration>(*closes - at.wall);
                out[i] = Admission::Now{.use_by = at.steady + open_for - SteadyTime::duration(1)};
            }
            continue;
        }
        Admission::Later* wait = out[i].later();  // the window's answer while closed
        wait->set_aside = true;
        wait->reason = fmt::format("outside the send window in {}", window.zone().name());
    }
    return {};
}

std::string ZoneWindows::describe() const {
    return SendWindow::describe(m_window, "in each recipient's zone");
}

}  // namespace queue
