#include "queue/admission.hpp"

#include <algorithm>

namespace queue {

Admission later_until(Instant at, std::optional<WallTime> until, std::chrono::seconds poll) {
    auto wait = std::chrono::duration_cast<SteadyTime::duration>(poll);
    if (until) {
        wait = std::min(wait, std::chrono::duration_cast<SteadyTime::duration>(*until - at.wall));
    }
    Admission answer;
    answer.verdict = Admission::Verdict::later;
    answer.retry_at = at.steady + wait;
    answer.until = until;
    return answer;
}

}  // namespace queue
