#include "account/sqlite_day_count.hpp"

#include <algorithm>

#include "account/sqlite_ledger.hpp"

namespace account::sqlite_day {

using rule::from_millis;
using rule::to_millis;

std::optional<rule::DayCount> read(sqlite::Database& db, const std::string& account) {
    sqlite::Statement row(db, "SELECT horizon, numbers FROM day_counts WHERE account = ?9");
    row.bind(k_account, account);
    if (!row.step()) {
        return std::nullopt;
    }
    return rule::DayCount{from_millis(row.integer(0)), row.integer(1)};
}

std::int64_t crossed(sqlite::Database& db, const std::string& account, const std::optional<rule::DayCount>& stored,
                     util::TimePoint horizon) {
    if (!stored) {
        sqlite::Statement all(db, "SELECT COUNT(DISTINCT wa_id) FROM sends WHERE account = ?9 AND at > ?1");
        all.bind(1, to_millis(horizon)).bind(k_account, account);
        return all.step() ? all.integer(0) : 0;
    }
    if (stored->horizon == horizon) {
        return 0;
    }
    const std::int64_t low = to_millis(std::min(horizon, stored->horizon));
    const std::int64_t high = to_millis(std::max(horizon, stored->horizon));
    sqlite::Statement between(db,
                              "SELECT COUNT(DISTINCT s.wa_id) FROM sends s WHERE s.account = ?9 AND s.at > ?1 "
                              "AND s.at <= ?2 AND NOT EXISTS (SELECT 1 FROM sends t WHERE t.account = ?9 "
                              "AND t.wa_id = s.wa_id AND t.at > ?2)");
    between.bind(1, low).bind(2, high).bind(k_account, account);
    return between.step() ? between.integer(0) : 0;
}

std::optional<util::TimePoint> room(sqlite::Database& db, const std::string& account, util::TimePoint horizon,
                                    std::int64_t offset) {
    // Walks the day's sends oldest first, keeping each number's latest (one per number, ties
    // included), and stops at the one wanted: no scan of the whole day.
    sqlite::Statement oldest(db,
                             "SELECT s.at FROM sends s WHERE s.account = ?9 AND s.at > ?1 AND NOT EXISTS "
                             "(SELECT 1 FROM sends t WHERE t.account = ?9 AND t.wa_id = s.wa_id AND t.at > s.at) "
                             "GROUP BY s.at, s.wa_id ORDER BY s.at, s.wa_id LIMIT 1 OFFSET ?2");
    oldest.bind(1, to_millis(horizon)).bind(2, offset).bind(k_account, account);
    if (!oldest.step()) {
        return std::nullopt;
    }
    return from_millis(oldest.integer(0));
}

void write(sqlite::Database& db, const std::string& account, const rule::DayCount& count) {
    sqlite::Statement upsert(
        db,
        "INSERT INTO day_counts (account, horizon, numbers) VALUES (?9, ?1, ?2) "
        "ON CONFLICT (account) DO UPDATE SET horizon = excluded.horizon, numbers = excluded.numbers");
    upsert.bind(1, to_millis(count.horizon)).bind(2, count.numbers).bind(k_account, account).run();
}

}  // namespace account::sqlite_day
