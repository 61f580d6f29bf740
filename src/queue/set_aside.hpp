#pragma once
// Jobs set aside until their recipient's send window opens (schedule.window.timezone:
// recipient): a queue per zone, first in first out, kept in an unnamed temporary file beyond a
// few kilobytes each, so that memory stays flat however many rows wait. A closed zone never
// holds back an open one: the dispatcher takes back the jobs of the zones whose opening has
// come, lowest row first, before fresh ones.

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "queue/admission.hpp"
#include "queue/job.hpp"
#include "util/result.hpp"

namespace queue {

// The rows of one zone waiting for its window, for people.
struct ZoneWait {
    std::string reason;             // the admission's: "outside the send window in America/New_York"
    std::optional<WallTime> opens;  // nullopt: never (a window without days)
    std::int64_t rows = 0;
};

class SetAside {
public:
    SetAside();
    SetAside(SetAside&&) noexcept;
    SetAside& operator=(SetAside&&) noexcept;
    ~SetAside();

    // Sets `job` aside, with the `later` answer that held it back (its `until`: when its zone's
    // window opens). Jobs are kept by Job::zone; a later answer for a zone replaces its opening
    // (the wall clock may have been set). Fails when the temporary file cannot be written.
    util::Result<void> put(const Job& job, const Admission& answer);

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
    struct Lane;
    std::map<int, std::unique_ptr<Lane>> m_lanes;  // by Job::zone (as many as the zones)
    std::int64_t m_size = 0;
};

// A job as bytes, and back: SetAside's record (exposed for its tests).
void encode_job(const Job& job, std::string& out);
// Decodes the record at the start of `in`; returns its length, or 0 when `in` holds less than a
// whole record.
std::size_t decode_job(std::string_view in, Job& out);

}  // namespace queue
