#pragma once
// The PostgreSQL ledger's schema (docs/ledger.md "PostgreSQL"): its tables and the two functions
// that decide a reservation batch and apply a batch of answers on the server, so that each
// call is one round trip.

#include <cstdint>
#include <string>

namespace account::pg_schema {

// The schema this build writes, kept in wacamp.meta.
constexpr std::int64_t k_version = 5;

// The key of the advisory locks (pg_advisory_xact_lock(k_lock_space, …)): with 0, the creation
// of the schema; with hashtext(account), the account's reservations.
constexpr std::int64_t k_lock_space = 1463895917;  // "WACm"

// Returns the SQL that creates the schema and its tables as of version 3, in a transaction that
// already holds the creation lock; then k_upgrade brings it, or an older schema, to k_version, and
// k_day, k_record and k_reserve (re)create the functions.
std::string create_sql();
extern const char* const k_record;
extern const char* const k_day;
extern const char* const k_reserve;
// Brings a version 1 to 4 schema's tables to version 5 (version 2: reserve() refuses suppressed
// and held numbers; version 3: held ones only when the request says 131049 holds apply; version
// 4: the day's numbers are a running count, wacamp.day_counts; version 5: a row's own confirmed
// send counts against rate.per_recipient).
extern const char* const k_upgrade;

}  // namespace account::pg_schema
