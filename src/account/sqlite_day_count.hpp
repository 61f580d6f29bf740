#pragma once
// The SQLite ledger's reads and writes of the day's count (docs/ledger.md "The day's count"): a
// row of `day_counts` says how many numbers have a send after its `horizon`. Plain reads and
// writes, in the caller's transaction; how the count moves is account::rule's.

#include <cstdint>
#include <optional>
#include <string>

#include "account/rule.hpp"
#include "account/sqlite.hpp"

namespace account::sqlite_day {

// The account's count as stored; none when it was never counted. Throws sqlite::Failure.
std::optional<rule::DayCount> read(sqlite::Database& db, const std::string& account);

// The `crossed` of rule::moved(stored, horizon, crossed): with a count stored, the numbers whose
// latest send lies between the two horizons; without, the numbers with a send after `horizon`.
std::int64_t crossed(sqlite::Database& db, const std::string& account, const std::optional<rule::DayCount>& stored,
                     util::TimePoint horizon);

// The time of the latest send of the number that is `offset`th, oldest first by its latest send
// after `horizon` (ties by number); none when there are not that many.
std::optional<util::TimePoint> room(sqlite::Database& db, const std::string& account, util::TimePoint horizon,
                                    std::int64_t offset);

// Writes the account's count (in the caller's write transaction).
void write(sqlite::Database& db, const std::string& account, const rule::DayCount& count);

}  // namespace account::sqlite_day
