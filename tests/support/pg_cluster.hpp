#pragma once
// A throwaway PostgreSQL cluster for the tests of the PostgreSQL ledger: started once per test
// binary, on first use (initdb into a temporary folder, `postgres` on a free port of 127.0.0.1,
// trust authentication, fsync off), and stopped by its pid when the binary exits. As root, it
// runs as the `postgres` system user (PostgreSQL refuses root). Where PostgreSQL is not
// installed, the tests that need it say "wacamp-test-skipped: …" (ctest reports them skipped).

#include <optional>
#include <string>

namespace test_support::pg_cluster {

// The superuser of the test cluster, with no password (trust).
constexpr const char* k_user = "wacamp";

// Returns the URL (postgresql://wacamp@127.0.0.1:PORT/NAME) of a new, empty database of the
// test cluster, starting the cluster on first use; nullopt, after printing the skip line once,
// when PostgreSQL's binaries are not installed. Throws std::runtime_error when they are but the
// cluster cannot be started.
std::optional<std::string> fresh_database();

// The port the cluster listens on (0 before it is started).
int port();

}  // namespace test_support::pg_cluster
