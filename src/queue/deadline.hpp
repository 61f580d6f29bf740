#pragma once
// `schedule.not_after` and `schedule.max_delay`: when a campaign is too late to send. Whole
// campaign, not per zone. As an admission step, asked first, it refuses every job once too late
// (`never`, Refusal::too_late): the dispatcher then stops the run (StopReason::too_late) and the
// rows not sent stay as they were, for a resume. Pure: every answer is for a given instant; it
// remembers only whether this run has sent a request (note_sent), which ends max_delay's hold.

#include <chrono>
#include <optional>
#include <string>

#include "campaign/campaign.hpp"
#include "queue/admission.hpp"

namespace queue {

class Deadline final : public Admitter {
public:
    // The deadlines `schedule` sets; with neither not_after nor max_delay it never refuses.
    explicit Deadline(const campaign::Schedule& schedule);

    // Why no request of this run may leave at `now`, for people; nullopt when one may. Too late
    // at or after not_after, and, before this run has sent a request, at or after
    // start_at + max_delay.
    std::optional<std::string> too_late(WallTime now) const;

    // Admitter: this run has sent a request: max_delay no longer holds it (not_after still does).
    void first_sent() override { m_sent = true; }

    // Admitter: none once too late (`why`: never, Refusal::too_late, the reason), else any.
    std::size_t room(Instant at, Admission& why) const override;
    // Every job never once too late, as room() says, else now. Never fails.
    util::Result<void> admit(std::span<const Job* const> jobs, Instant at, std::vector<Admission>& out) override;

private:
    // The first instant that is too late, as things stand; nullopt: none.
    std::optional<WallTime> next_end() const;

    std::optional<WallTime> m_not_after;
    std::optional<WallTime> m_start_by;  // start_at + max_delay
    bool m_sent = false;
};

}  // namespace queue
