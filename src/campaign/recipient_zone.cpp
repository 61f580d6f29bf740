#include "campaign/recipient_zone.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <fstream>

#include "campaign/campaign.hpp"
#include "campaign/phone.hpp"
#include "campaign/recipients.hpp"
#include "util/text.hpp"
#include "util/utf8.hpp"
#include "util/zone.hpp"

namespace campaign {

namespace {

constexpr auto k_year = std::chrono::hours(24 * 365);
constexpr std::size_t k_max_known = 4096;  // more names than tzdata has: a guard, not a policy

// Splits `line` at tabs.
std::vector<std::string_view> columns_of(std::string_view line) {
    std::vector<std::string_view> out;
    for (std::size_t start = 0;;) {
        const std::size_t tab = line.find('\t', start);
        out.push_back(line.substr(start, tab == std::string_view::npos ? std::string_view::npos : tab - start));
        if (tab == std::string_view::npos) {
            return out;
        }
        start = tab + 1;
    }
}

// Adds the zone of one table line to each country it names; a zone is preferred for the
// country its line names first (where its principal location is), so goes before the others.
void add_line(std::string_view line, std::map<std::string, std::vector<std::string>>& zones,
              std::map<std::string, std::size_t>& preferred) {
    const auto cols = columns_of(line);
    if (cols.size() < 3 || cols[2].empty()) {
        return;
    }
    const std::string zone(cols[2]);
    bool first = true;
    for (std::size_t start = 0; start <= cols[0].size();) {
        const std::size_t comma = std::min(cols[0].find(',', start), cols[0].size());
        const std::string region(util::trim(cols[0].substr(start, comma - start)));
        if (!region.empty()) {
            auto& list = zones[region];
            std::size_t& front = preferred[region];
            list.insert(first ? list.begin() + static_cast<std::ptrdiff_t>(front++) : list.end(), zone);
        }
        first = false;
        start = comma + 1;
    }
}

}  // namespace

util::Result<RegionZones> RegionZones::load(const std::string& table, util::TimePoint now) {
    std::ifstream in(table);
    if (!in) {
        return util::fail(fmt::format("{}: cannot read the time zones of countries (is tzdata installed?)", table));
    }
    std::map<std::string, std::vector<std::string>> zones;
    std::map<std::string, std::size_t> preferred;  // per region: how many of its zones are its own
    std::string line;
    while (std::getline(in, line)) {
        if (!line.empty() && line.front() != '#') {
            add_line(line, zones, preferred);
        }
    }
    if (in.bad() || zones.empty()) {
        return util::fail(fmt::format("{}: holds no time zone of any country", table));
    }
    return RegionZones(std::move(zones), now);
}

const std::string* RegionZones::single_zone(const std::string& region) {
    auto answer = m_answers.find(region);
    if (answer == m_answers.end()) {
        const auto zones = m_zones.find(region);
        auto single = zones == m_zones.end() ? std::nullopt : find_single(zones->second);
        answer = m_answers.emplace(region, std::move(single)).first;
    }
    return answer->second ? &*answer->second : nullptr;
}

// Walks the zones' offsets together over the year from m_now, from one transition of any of
// them to the next: one civil time when at each step every zone has the first one's offset.
std::optional<std::string> RegionZones::find_single(const std::vector<std::string>& names) const {
    std::vector<util::TimeZone> zones;
    for (const auto& name : names) {
        auto zone = util::TimeZone::locate(name);
        if (!zone) {
            return std::nullopt;
        }
        zones.push_back(std::move(*zone));
    }
    const util::TimePoint end = m_now + k_year;
    for (util::TimePoint t = m_now; t < end;) {
        const auto first = zones.front().offset_span(t);
        util::TimePoint next = first.until;
        for (const auto& zone : zones) {
            const auto span = zone.offset_span(t);
            if (span.offset != first.offset) {
                return std::nullopt;
            }
            next = std::min(next, span.until);
        }
        t = next;
    }
    return names.front();
}

util::Result<RecipientZones> RecipientZones::create(const Campaign& c, std::optional<std::size_t> column,
                                                    const ZoneOptions& options) {
    RecipientZones out;
    const auto& window = c.schedule.window;
    if (!window || !window->per_recipient) {
        return out;
    }
    auto regions = RegionZones::load(options.table, options.now.value_or(std::chrono::system_clock::now()));
    if (!regions) {
        return util::fail("schedule.window.timezone: recipient: " + regions.error().message);
    }
    out.m_enabled = true;
    out.m_column = column;
    out.m_column_name = c.recipients.columns.time_zone;
    out.m_fallback = window->fallback_timezone;
    out.m_regions = std::make_unique<RegionZones>(std::move(*regions));
    return out;
}

bool RecipientZones::known(const std::string& name) {
    if (m_known.contains(name)) {
        return true;
    }
    // Files of tzdata that name no place: the machine's own zone (localtime), the rules of POSIX
    // TZ strings (posixrules), and the placeholder of an unconfigured system (Factory, "-00").
    for (const std::string_view not_a_place : {"localtime", "posixrules", "Factory"}) {
        if (util::ascii_lower(name) == util::ascii_lower(not_a_place)) {
            return false;
        }
    }
    if (!util::TimeZone::locate(name)) {
        return false;
    }
    if (m_known.size() < k_max_known) {
        m_known.insert(name);
    }
    return true;
}

util::Result<RecipientZone> RecipientZones::resolve(std::string_view column_value, std::string_view wa_id,
                                                    const PhoneNormalizer& phones) {
    if (!m_enabled) {
        return RecipientZone{};
    }
    if (const std::string given(util::trim(column_value)); !given.empty()) {
        if (!known(given)) {
            constexpr std::size_t k_max_quoted = 40;
            return util::fail(
                fmt::format("column \"{}\": \"{}\" is not a time zone (expected an IANA name like Asia/Kolkata)",
                            m_column_name, util::printable(util::clip_utf8(given, k_max_quoted))));
        }
        return RecipientZone{given, ZoneSource::column};
    }
    if (!wa_id.empty()) {
        if (const std::string* zone = m_regions->single_zone(phones.region_of_number(wa_id))) {
            return RecipientZone{*zone, ZoneSource::number};
        }
    }
    return RecipientZone{m_fallback, ZoneSource::fallback};
}

void RecipientZones::assign(Recipient& row, const std::vector<std::string>& fields, const PhoneNormalizer& phones) {
    row.zone = {};
    if (!m_enabled || row.verdict == Verdict::invalid) {
        return;
    }
    const std::string_view given = m_column && *m_column < fields.size() ? fields[*m_column] : std::string_view();
    auto zone = resolve(given, row.message.wa_id, phones);
    if (!zone) {
        row.verdict = Verdict::invalid;
        row.reason = zone.error().message;
        return;
    }
    row.zone = std::move(*zone);
}

}  // namespace campaign
