#include "queue/admission.hpp"

#include <algorithm>

namespace queue {

Admission::Later later_until(Instant at, std::optional<WallTime> until, std::chrono::seconds poll) {
    auto wait = std::chrono::duration_cast<SteadyTime::duration>(poll);
    if (until) {
        wait = std::min(wait, std::chrono::duration_cast<SteadyTime::duration>(*until - at.wall));
    }
    return Admission::Later{.retry_at = at.steady + wait, .until = until};
}

}  // namespace queue
