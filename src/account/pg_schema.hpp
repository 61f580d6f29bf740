#pragma once
// The PostgreSQL ledger's schema (docs/ledger.md "PostgreSQL"): its tables and the two functions
// that decide a reservation batch and apply a batch of answers on the server, so that each
// call is one round trip.

#include <cstdint>

namespace account::pg_schema {

// The schema this build writes, kept in wacamp.meta.
constexpr std::int64_t k_version = 3;

// The key of the advisory locks (pg_advisory_xact_lock(k_lock_space, …)): with 0, the creation
// of the schema; with hashtext(account), the account's reservations.
constexpr std::int64_t k_lock_space = 1463895917;  // "WACm"

// Creates the schema's tables and wacamp.record (k_version) in a transaction that already holds
// the creation lock; k_reserve then (re)creates wacamp.reserve.
extern const char* const k_create;
extern const char* const k_reserve;
// With k_reserve, brings a version 1 or 2 schema to version 3 (version 2: reserve() refuses
// suppressed and held numbers; version 3: held ones only when the request says 131049 holds
// apply).
extern const char* const k_upgrade;

}  // namespace account::pg_schema
