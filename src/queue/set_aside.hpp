#pragma once
// Jobs set aside until their recipient's send window opens (schedule.window.timezone:
// recipient): a queue per zone, first in first out, kept in an unnamed temporary file beyond a
// few kilobytes each, so that memory stays flat however many rows wait. A closed zone never
// holds back an open one: the dispatcher takes back the jobs of the zones whose opening has
// come, lowest row first, before fresh ones.

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "queue/admission.hpp"
#include "queue/job.hpp"
#include "util/result.hpp"
#include "util/spill_queue.hpp"

namespace queue {

// The rows of one zone waiting for its window, for people.
struct ZoneWait {
    std::string reason;             // the admission's: "outside the send window in America/New_York"
    std::optional<WallTime> opens;  // nullopt: never (a window without days)
    std::int64_t rows = 0;
    int zone = -1;          // the rows' zone (ZoneWindows::zone); -1: none
    std::string zone_name;  // its IANA name, for people; set by whoever holds the ZoneWindows
};

class SetAside {
public:
    // Sets `job` aside, with the `later` answer that held it back (its `until`: when its zone's
    // window opens). Jobs are kept by Job::zone; a later answer for a zone replaces its opening
    // (the wall clock may have been set). Fails when the temporary file cannot be written.
    util::Result<void> put(const Job& job, const Admission::Later& answer);

    // Takes the job of lowest row among the zones whose opening is at or before `now`: true,
    // or false when none is due. Fails when the temporary file cannot be read back.
    util::Result<bool> take_due(WallTime now, Job& out);

    // The earliest opening of a zone with rows waiting; nullopt when none waits or none opens.
    std::optional<WallTime> next_opening() const;

    // Rows waiting, over every zone.
    std::int64_t size() const { return m_size; }
    bool empty() const { return m_size == 0; }

    // The zones with rows waiting, earliest opening first.
    std::vector<ZoneWait> waits() const;

private:
    // One zone's jobs. Rows come in CSV order, mostly: those go through `head`, then `rest`. A
    // row that comes back lower than the last of those (taken back when the zone opened, then
    // held up past its window's end by the pace or the daily cap; a retry) waits in `early`, in
    // memory (there are only as many as were taken back at once), so that the zone's rows still
    // go lowest first.
    struct Lane {
        // Bytes of records kept in memory before they go to the file, and read back at once:
        // with hundreds of zones waiting, a few MiB in all.
        static constexpr std::size_t k_memory_bytes = 16 * 1024;

        std::optional<Job> head;
        util::ByteSpillQueue rest{k_memory_bytes};  // the rows after head, as push_job writes them
        std::int64_t queued = 0;                    // rows in head and rest
        std::int64_t last_row = 0;                  // the last of those set aside
        std::map<std::int64_t, Job> early;
        Admission::Later answer;  // the later answer that set the last job aside: its reason and opening

        std::int64_t rows() const { return queued + static_cast<std::int64_t>(early.size()); }
        // The lowest row waiting; rows() > 0.
        std::int64_t first_row() const;
        util::Result<void> put(const Job& job);
        // Moves the lowest row out (rows() > 0).
        util::Result<void> take(Job& out);
    };

    std::map<int, Lane> m_lanes;  // by Job::zone (as many as the zones)
    std::int64_t m_size = 0;
};

// A job at the end of `queue`, and back from its front: SetAside's record (exposed for its
// tests). push_job fails as ByteSpillQueue::push, the job then wholly in `queue`; pop_job when
// less than a job waits or the temporary file cannot be read back.
util::Result<void> push_job(util::ByteSpillQueue& queue, const Job& job);
util::Result<void> pop_job(util::ByteSpillQueue& queue, Job& out);

}  // namespace queue
