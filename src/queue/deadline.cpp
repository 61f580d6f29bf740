#include "queue/deadline.hpp"

#include <fmt/format.h>

#include "util/time.hpp"

namespace queue {

Deadline::Deadline(const campaign::Schedule& schedule) : m_not_after(schedule.not_after) {
    if (schedule.start_at && schedule.max_delay) {
        m_start_by = *schedule.start_at + *schedule.max_delay;
    }
}

std::optional<std::string> Deadline::too_late(WallTime now) const {
    if (m_not_after && now >= *m_not_after) {
        return fmt::format("too late: schedule.not_after ({}) has passed, and no request leaves after it",
                           util::format_timestamp(*m_not_after));
    }
    if (!m_sent && m_start_by && now >= *m_start_by) {
        return fmt::format("too late: nothing was sent by schedule.start_at + schedule.max_delay ({})",
                           util::format_timestamp(*m_start_by));
    }
    return std::nullopt;
}

std::optional<WallTime> Deadline::next_end() const {
    std::optional<WallTime> end = m_not_after;
    if (!m_sent && m_start_by && (!end || *m_start_by < *end)) {
        end = m_start_by;
    }
    return end;
}

std::size_t Deadline::room(Instant at, Admission& why) const {
    auto reason = too_late(at.wall);
    if (!reason) {
        return k_any_room;
    }
    why = Admission::Never{.refusal = Admission::Refusal::too_late, .reason = std::move(*reason)};
    return 0;
}

util::Result<void> Deadline::admit(std::span<const Job* const> jobs, Instant at, std::vector<Admission>& out) {
    Admission answer;
    if (room(at, answer) > 0) {
        // Admitted, but to start before the deadline: not one left after it.
        if (const auto end = next_end()) {
            // use_by is the last instant allowed; the deadline itself is already too late.
            const auto left = std::chrono::duration_cast<SteadyTime::duration>(*end - at.wall);
            answer = Admission::Now{.use_by = at.steady + left - SteadyTime::duration(1)};
        }
    }
    out.assign(jobs.size(), answer);
    return {};
}

}  // namespace queue
