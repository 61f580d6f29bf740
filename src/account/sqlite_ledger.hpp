#pragma once
// The ledger in a SQLite file (docs/ledger.md): WAL, a busy timeout, the schema versioned by
// PRAGMA user_version, one transaction per call (BEGIN IMMEDIATE for writes).

#include <chrono>
#include <memory>
#include <string>

#include "account/ledger_overrides.hpp"
#include "account/rule.hpp"
#include "account/sqlite.hpp"

namespace account {

class SqliteLedger final : public Ledger {
public:
    // The schema this build writes; an older file is migrated when opened for writing.
    static constexpr std::int64_t k_schema_version = 6;
    // How long a call waits for another process's write transaction before failing.
    static constexpr int k_busy_timeout_ms = 5000;
    // campaign_sends' read of one number (?1) of one campaign (?2) of the account (?9): through
    // sends_by_number by name. SQLite's planner takes the key (account, campaign_id, …)
    // otherwise, which walks every send of the campaign for each number (a campaign of 100,000
    // rows then sent a few hundred messages a second). Public for the test of its plan.
    static constexpr const char* k_campaign_sends_sql =
        "SELECT csv_row, state, at, attempt, run FROM sends INDEXED BY sends_by_number "
        "WHERE account = ?9 AND wa_id = ?1 AND campaign_id = ?2";

    // The read of every send of one number (?1) of the account (?9), the facts account::rule
    // decides on: through sends_by_number by name (the planner takes the key (account, …)
    // otherwise, a walk of every send of the account for each number). Public for the test of
    // its plan.
    static constexpr const char* k_number_sends_sql =
        "SELECT campaign_id, csv_row, at, state, attempt, run FROM sends INDEXED BY sends_by_number WHERE account = ?9 "
        "AND wa_id = ?1";

    // Opens (read_write: creating, folder 0700 and file 0600) the ledger at `path`. Fails with
    // a message naming `path`: a symbolic link, not a regular file, not a SQLite database, a
    // schema newer than k_schema_version, the OS's or SQLite's reason.
    static util::Result<std::unique_ptr<SqliteLedger>> open(const std::string& path, const OpenOptions& options);

    WACAMP_LEDGER_OVERRIDES

private:
    // Throws sqlite::Failure; open() configures and migrates what it makes.
    SqliteLedger(const std::string& path, std::string account, sqlite::Database::Mode mode)
        : m_path(path), m_account(std::move(account)), m_db(path, mode) {}

    // Runs `body`, turning a sqlite::Failure into "ledger PATH: WHAT: reason".
    template <typename T, typename F>
    util::Result<T> guarded(const char* what, F&& body) {
        try {
            return body();
        } catch (const sqlite::Failure& e) {
            return util::fail("ledger " + m_path + ": " + what + ": " + e.what());
        }
    }
    void configure(Access access, Sync sync);
    void migrate(Access access);
    // Writes what the rule decided of a batch of answers.
    void apply(const rule::RecordDecision& decision, const ResultBatch& batch);
    std::size_t add_suppressions(const std::vector<Suppression>& entries, std::vector<std::string>* added);

    std::string m_path;
    std::string m_account;  // every row read or written is this account's
    sqlite::Database m_db;
};

// The parameter every statement binds the account to: `?9` in its SQL (a number of its own, so
// that a statement's other parameters keep theirs).
constexpr int k_account = 9;

// Times are kept as milliseconds since the Unix epoch (UTC).
using rule::from_millis;
using rule::to_millis;

}  // namespace account
