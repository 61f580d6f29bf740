#pragma once
// Each recipient's time zone, for `schedule.window.timezone: recipient` (docs/campaign-file.md
// "The window in each recipient's zone"): the row's `time_zone` column, else the one civil time
// of its number's country (from the system's zone1970.tab), else the window's fallback zone.

#include <cstddef>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "util/clock.hpp"
#include "util/result.hpp"

namespace campaign {

struct Campaign;
struct Recipient;
class PhoneNormalizer;

// Where a row's zone came from.
enum class ZoneSource { none, column, number, fallback };

// A row's zone: its IANA name and where it came from; empty (source `none`) when the campaign's
// window is not per recipient, or the row is invalid.
struct RecipientZone {
    std::string name;
    ZoneSource source = ZoneSource::none;
};

inline constexpr std::string_view k_zone_table = "/usr/share/zoneinfo/zone1970.tab";

// The zones of each country as zone1970.tab lists them, and which countries keep one civil time.
class RegionZones {
public:
    // Reads `table` (zone1970.tab's format: comment lines with '#', then country codes separated
    // by commas, coordinates, zone name, tab-separated). Fails naming the file when it cannot be
    // read or holds no zone. The next 12 months are counted from `now`.
    static util::Result<RegionZones> load(const std::string& table, util::TimePoint now);

    // Returns the zone of `region` ("DE") when all its zones keep the same UTC offset at every
    // moment of the 12 months from `now`: the first listed among the zones whose line names the
    // region first (those centred in that country), else the first listed; nullptr when the
    // region has several civil times, none, or a zone tzdata cannot read. Memoized per region.
    const std::string* single_zone(const std::string& region);

private:
    RegionZones(std::map<std::string, std::vector<std::string>> zones, util::TimePoint now)
        : m_zones(std::move(zones)), m_now(now) {}
    std::optional<std::string> find_single(const std::vector<std::string>& zones) const;

    std::map<std::string, std::vector<std::string>> m_zones;  // region → its zones, preferred first
    std::map<std::string, std::optional<std::string>> m_answers;
    util::TimePoint m_now;
};

// How a stream finds its rows' zones.
struct ZoneOptions {
    std::string table = std::string(k_zone_table);  // zone1970.tab
    std::optional<util::TimePoint> now = {};        // the start of the 12 months; nullopt: the system clock
};

// The zone of each row of one campaign's list.
class RecipientZones {
public:
    // Prepares for `campaign` whose `time_zone` column is at `column` (nothing: not mapped). A
    // campaign whose window is not per recipient gets one that gives every row no zone. Fails
    // when the zone table cannot be read.
    static util::Result<RecipientZones> create(const Campaign& campaign, std::optional<std::size_t> column,
                                               const ZoneOptions& options = {});

    // Returns the zone of a row from `column_value` (its `time_zone` field; blank: not given) and
    // `wa_id` (its number, normalised), read by `phones`. Fails with the reason, for people, when
    // the field names no zone tzdata has.
    util::Result<RecipientZone> resolve(std::string_view column_value, std::string_view wa_id,
                                        const PhoneNormalizer& phones);

    // Sets the zone of `row` (a row read from `fields`); a valid row whose zone field names no
    // zone becomes invalid, with the reason. An invalid row gets no zone.
    void assign(Recipient& row, const std::vector<std::string>& fields, const PhoneNormalizer& phones);

private:
    RecipientZones() = default;
    bool known(const std::string& name);

    bool m_enabled = false;
    std::optional<std::size_t> m_column;
    std::string m_column_name;
    std::string m_fallback;
    std::unique_ptr<RegionZones> m_regions;
    std::set<std::string, std::less<>> m_known;  // names tzdata has; bounded by its size
};

}  // namespace campaign
