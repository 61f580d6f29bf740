#include "queue/pace.hpp"

#include <algorithm>

namespace queue {

void admissions_of(const PaceAnswer& answer, std::size_t asked, std::vector<Admission>& out) {
    const auto granted = std::min(static_cast<std::size_t>(std::max(answer.granted, 0)), asked);
    Admission::Later later{.retry_at = answer.retry_at};
    if (granted == 0) {
        // Part granted: no wait to name, only when to ask again.
        later.until = answer.paused_until;
        later.reason = answer.reason;
        later.notice = answer.notice;
    }
    out.assign(granted, Admission::Now{.use_by = answer.use_by});
    out.resize(asked, later);
}

}  // namespace queue
