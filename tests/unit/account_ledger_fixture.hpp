#pragma once
// Helpers for the ledger's tests: a ledger in a temporary folder or a fresh PostgreSQL database,
// times, sends. The suite account::Ledger runs against the backend WACAMP_TEST_LEDGER names
// (`sqlite`, the default, or `postgresql`): ctest runs it once for each.

#include <doctest/doctest.h>

#include <chrono>
#include <cstdlib>
#include <memory>
#include <string>
#include <vector>

#include "../support/pg_cluster.hpp"
#include "account/ledger.hpp"
#include "fakes.hpp"

namespace account_fixture {

using namespace std::chrono_literals;

// 2025-03-01T00:00:00Z: every test's `now` is a fixed time, never the machine's.
inline const util::TimePoint k_t0 = util::TimePoint(std::chrono::seconds(1740787200));

inline std::unique_ptr<account::Ledger> open_at(const std::string& path,
                                                account::Access access = account::Access::read_write,
                                                const std::string& account = "acme") {
    auto opened = account::open_ledger(path, account::OpenOptions{.account = account, .access = access});
    REQUIRE_MESSAGE(opened.ok(), (opened.ok() ? "" : opened.error().message));
    return std::move(opened.value());
}

enum class Backend { sqlite, postgresql };

inline Backend backend() {
    const char* chosen = std::getenv("WACAMP_TEST_LEDGER");
    return chosen != nullptr && std::string(chosen) == "postgresql" ? Backend::postgresql : Backend::sqlite;
}

// Where one test case's ledger lives: a file in a temporary folder, or a fresh database of the
// test cluster, so that cases never see each other's. skipped(): PostgreSQL is not installed
// (the skip line is printed; the case should return).
class LedgerPlace {
public:
    explicit LedgerPlace(Backend chosen = backend()) {
        if (chosen == Backend::sqlite) {
            m_where = m_dir.file("ledger.sqlite");
        } else if (auto url = test_support::pg_cluster::fresh_database()) {
            m_where = *url;
        } else {
            m_skipped = true;
        }
    }
    bool skipped() const { return m_skipped; }
    // A file path or a URL.
    const std::string& where() const { return m_where; }
    std::unique_ptr<account::Ledger> open(account::Access access = account::Access::read_write,
                                          const std::string& account = "acme") const {
        return open_at(m_where, access, account);
    }

private:
    fakes::TempDir m_dir;
    std::string m_where;
    bool m_skipped = false;
};

inline std::vector<account::Send> sends(const std::string& campaign, const std::vector<std::string>& wa_ids,
                                        std::int64_t first_row = 1) {
    std::vector<account::Send> out;
    for (const auto& wa_id : wa_ids) {
        out.push_back(account::Send{wa_id, campaign, first_row++, std::nullopt});
    }
    return out;
}

// `batch` with each send standing for request `attempt` of its row.
inline std::vector<account::Send> for_attempt(std::vector<account::Send> batch, std::int64_t attempt) {
    for (auto& send : batch) {
        send.attempt = attempt;
    }
    return batch;
}

// `batch` with each send standing for request `attempt` of its row, taking over the reservation
// of request `replaces` (Send::replaces: a retry, or a reservation its run withdrew).
inline std::vector<account::Send> taking_over(std::vector<account::Send> batch, std::int64_t attempt,
                                              std::int64_t replaces) {
    for (auto& send : batch) {
        send.attempt = attempt;
        send.replaces = replaces;
    }
    return batch;
}

inline account::ReservationRequest request(std::vector<account::Send> batch, account::Limits limits,
                                           util::TimePoint now, account::Apply apply = account::Apply::commit) {
    return account::ReservationRequest{std::move(batch), std::move(limits), now, apply};
}

inline account::Limits per_recipient(std::int64_t max, std::chrono::milliseconds per) {
    return account::Limits{account::PerRecipient{max, per}, std::nullopt};
}

inline account::Limits per_day(std::int64_t cap) {
    return account::Limits{std::nullopt, cap};
}

// The granted flags of `answers`, in order.
inline std::vector<bool> granted(const std::vector<account::Reservation>& answers) {
    std::vector<bool> out;
    for (const auto& answer : answers) {
        out.push_back(answer.granted());
    }
    return out;
}

inline account::ResultBatch batch_at(util::TimePoint now) {
    account::ResultBatch batch;
    batch.source = "campaign:spring";
    batch.now = now;
    return batch;
}

// A day of sends, for the tests of a migration: "1" and "2" at k_t0 ("1" twice), "3" at k_t0 + 2h.
inline void write_day(account::Ledger& book) {
    REQUIRE(book.reserve(request(sends("spring", {"1", "2", "1"}), per_day(5), k_t0)).ok());
    REQUIRE(book.reserve(request(sends("summer", {"3"}), account::Limits{}, k_t0 + 2h)).ok());
}

// Checks that a ledger holding write_day's sends answers per_day as counting the day says.
inline void check_day(account::Ledger& book) {
    auto full = book.reserve(request(sends("autumn", {"2", "4"}), per_day(3), k_t0 + 3h));
    REQUIRE(full.ok());
    CHECK(granted(*full) == std::vector<bool>{true, false});
    CHECK(full->at(1).room_at == k_t0 + 24h);
    // "1" has aged out; "2" was sent again, and "3" later.
    auto next_day = book.reserve(request(sends("autumn", {"4", "5"}, 2), per_day(3), k_t0 + 24h));
    REQUIRE(next_day.ok());
    CHECK(granted(*next_day) == std::vector<bool>{true, false});
}

}  // namespace account_fixture
