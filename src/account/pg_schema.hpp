#pragma once
// The PostgreSQL ledger's schema (docs/ledger.md "PostgreSQL"): its tables, plain, with no
// function (account::rule decides; pg_reserve.cpp reads and writes).

#include <cstdint>
#include <string>

namespace account::pg_schema {

// The schema this build writes, kept in wacamp.meta.
constexpr std::int64_t k_version = 8;

// The key of the advisory locks (pg_advisory_xact_lock(k_lock_space, …)): with 0, the creation
// of the schema; with hashtext(account), the account's reservations.
constexpr std::int64_t k_lock_space = 1463895917;  // "WACm"

// Returns the SQL that creates the schema and its tables as of version 3, in a transaction that
// already holds the creation lock; then k_upgrade brings it, or an older schema, to k_version
// (and PgLedger drops the older versions' functions).
std::string create_sql();
// Brings a version 1 to 7 schema's tables to version 8 (version 4 added wacamp.day_counts, the
// day's numbers as a running count; version 6 dropped the functions; version 7 added the request
// a send stands for, sends.attempt; version 8 the runs and their marks, wacamp.runs and sends.run).
extern const char* const k_upgrade;

}  // namespace account::pg_schema
