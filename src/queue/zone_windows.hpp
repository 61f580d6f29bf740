#pragma once
// `schedule.window` with `timezone: recipient`: the same weekly hours kept in each recipient's
// own zone (campaign/recipient_zone.* finds it: the row's column, its number's country, or the
// fallback). As an admission step it answers job by job: now while the job's zone is in its
// window, else `later` with `set_aside`, until the zone's window opens — so a closed zone never
// holds back an open one (the dispatcher sets the job aside, queue::SetAside).

#include <string>
#include <unordered_map>
#include <vector>

#include "campaign/campaign.hpp"
#include "queue/admission.hpp"
#include "queue/send_window.hpp"
#include "util/result.hpp"

namespace queue {

class ZoneWindows final : public Admitter {
public:
    // Admitter: a test send passes over a closed window or a full day rather than wait.
    bool passable() const override { return true; }
    // The window `window` (its per_recipient set) for every zone it is asked about.
    explicit ZoneWindows(campaign::Window window);

    // The index of the zone `name` for Job::zone, its window made on first use; fails when
    // tzdata has no zone so named.
    util::Result<int> zone(const std::string& name);

    // The window of zone `index` (from zone()).
    const SendWindow& window(int index) const { return m_windows.at(static_cast<std::size_t>(index)); }

    // Admitter: each job now while its zone's window is open at `at`; else later, set aside,
    // until it opens ("outside the send window in America/New_York"; without `until` when it
    // never opens). A job without a zone (-1) may start at any time.
    util::Result<void> admit(std::span<const Job* const> jobs, Instant at, std::vector<Admission>& out) override;

    // The window for people: "mon-fri 09:00-18:00 in each recipient's zone".
    std::string describe() const;

private:
    campaign::Window m_window;
    std::vector<SendWindow> m_windows;
    std::unordered_map<std::string, int> m_index;
};

}  // namespace queue
