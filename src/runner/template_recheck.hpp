#pragma once
// message.recheck: the template list read again while a template campaign sends, following the
// record (`_id`) chosen at the start. A change the campaign cannot send through ends the run: the
// template no longer APPROVED (template_paused, template_disabled, or `template` when it is gone
// or in another state), its category changed (template_changed: its price changed with it), the
// key refused (auth). A list that cannot be read is read again soon; after
// k_failures_to_pause failures in a row sending waits until a read succeeds. The read is one
// GET the dispatcher carries beside the sends (queue::SideRequest): it holds no slot and is
// not logged. As an admission step (asked after the deadline) it refuses every job once the run
// must end, and holds every job back while paused. Pure: the answers are handed in.

#include <chrono>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "campaign/campaign.hpp"
#include "queue/admission.hpp"
#include "queue/side_request.hpp"
#include "service/templates.hpp"
#include "util/redact.hpp"

namespace runner {

class TemplateRecheck final : public queue::Admitter, public queue::SideRequest {
public:
    // Failed reads in a row after which sending waits for a read that succeeds.
    static constexpr int k_failures_to_pause = 3;
    // The most a failed read waits before the next (message.recheck when shorter).
    static constexpr std::chrono::seconds k_retry_after{30};

    // For template campaign `c`, whose template was found in the list (its id and category)
    // before the first send, read again every `every` from `start`.
    TemplateRecheck(const campaign::Campaign& c, std::chrono::milliseconds every, queue::SteadyTime start);

    // The category the template list gives the template now (upper-case): the one it had at the
    // start until a read shows another.
    const std::string& category() const { return m_category; }
    // The category it had at the start (upper-case).
    const std::string& started_as() const { return m_started_as; }

    // queue::SideRequest: the list's GET once `every` has passed since the last read (or a
    // failed read's wait), one at a time.
    std::optional<service::HttpRequest> due(queue::Instant at) override;
    std::optional<queue::SteadyTime> next_due() const override;
    void answered(const service::Completion& completion, queue::Instant at) override;

    // queue::Admitter: none once the run must end (never, Refusal::stop, why), none while
    // paused (later, until the next read), else any.
    std::size_t room(queue::Instant at, queue::Admission& why) const override;
    // Every job as room() says.
    util::Result<void> admit(std::span<const queue::Job* const> jobs, queue::Instant at,
                             std::vector<queue::Admission>& out) override;

private:
    // Takes note of a read that failed for `why`.
    void failed(std::string why, queue::Instant at);
    // Ends the run with `reason`, saying `why`.
    void end(queue::StopReason reason, std::string why);
    // Looks at the record the list holds now (none: gone).
    void compare(const std::optional<service::TemplateInfo>& now);

    service::HttpRequest m_request;
    util::Redactor m_secrets;  // the service may echo them in its answers
    std::string m_name;
    std::string m_id;
    std::string m_started_as;
    std::string m_category;
    std::chrono::milliseconds m_every;
    queue::SteadyTime m_next;
    bool m_in_flight = false;
    int m_failures = 0;     // failed reads in a row
    std::string m_failure;  // why the last one failed
    std::optional<queue::Admission::Never> m_end;
};

}  // namespace runner
