#pragma once
// The ledger in PostgreSQL (docs/ledger.md "PostgreSQL"), shared by runners on any number of
// machines: the schema `wacamp`, created on first open. A read is one statement; a reservation,
// a batch of answers and a prune are one transaction of two round trips under an account-wide
// advisory lock: the facts read, account::rule's decision written (pg_reserve.cpp).

#include <exception>
#include <memory>
#include <string>

#include "account/ledger_overrides.hpp"
#include "account/pg_schema.hpp"

namespace account {

namespace pg {
class Connection;
struct Statement;
}  // namespace pg
namespace rule {
struct RecordDecision;
}  // namespace rule

class PgLedger final : public Ledger {
public:
    // How long connecting may take, unless the URL says (`connect_timeout=`).
    static constexpr int k_connect_timeout_s = 10;
    // campaign_sends' read: the sends of campaign $2 of account $1 to the numbers $3 (a text
    // array). The numbers first (sends_by_number), the campaign after: OFFSET 0 keeps the
    // planner from taking the key (account, campaign, …), which walks every send of the
    // campaign. Public for the test of its plan.
    // The fifth column is the mark of the run that made each reservation (NULL: none).
    static constexpr const char* k_campaign_sends_sql =
        "SELECT s.wa_id, s.csv_row, s.state, s.at, s.attempt, r.answered_before FROM (SELECT wa_id, csv_row, state, "
        "at, attempt, campaign, run FROM wacamp.sends "
        "WHERE account = $1 AND wa_id = ANY ($3::text[]) OFFSET 0) s LEFT JOIN wacamp.runs r ON r.id = s.run "
        "WHERE s.campaign = $2";
    static constexpr const char* k_campaign_sends_v7_sql =
        "SELECT wa_id, csv_row, state, at, attempt, NULL::bigint FROM (SELECT wa_id, csv_row, state, at, attempt, "
        "campaign FROM wacamp.sends WHERE account = $1 AND wa_id = ANY ($3::text[]) OFFSET 0) s WHERE campaign = $2";

    // The read of the sends of numbers $2 (a text array) of account $1: every send the ledger
    // holds of them, through sends_by_number, with the mark of the run that made each (NULL: none).
    // Public for the test of its plan.
    static constexpr const char* k_number_sends_sql =
        "SELECT s.wa_id, s.campaign, s.csv_row, s.at, s.state, s.attempt, r.answered_before FROM wacamp.sends s "
        "LEFT JOIN wacamp.runs r ON r.id = s.run WHERE s.account = $1 AND s.wa_id = ANY ($2::text[])";
    // The same of a schema before version 8 (read-only), which has no runs: no send is a run's.
    static constexpr const char* k_number_sends_v7_sql =
        "SELECT wa_id, campaign, csv_row, at, state, attempt, NULL::bigint FROM wacamp.sends WHERE account = $1 "
        "AND wa_id = ANY ($2::text[])";

    // A prune's read of the day's count of account $1 (horizon, numbers, crossed): `crossed`
    // counts the numbers whose latest send lies between the stored horizon and $2 only when the
    // horizon is behind $2 — the only case in which the prune moves it (rule::prune_horizon). A
    // prune's $2 is 367 days back, almost always behind the horizon, and counting there walked
    // every send of the year: 150 s at 30 days of a million sends a day, past the 30 s a statement
    // may take. Public for the test of its plan.
    static constexpr const char* k_prune_day_sql =
        "SELECT d.horizon, d.numbers, CASE WHEN d.horizon IS NULL OR d.horizon >= $2 THEN 0 ELSE "
        "(SELECT count(DISTINCT s.wa_id) FROM wacamp.sends s WHERE s.account = $1 "
        "AND s.at > d.horizon AND s.at <= $2 AND "
        "(SELECT max(t.at) FROM wacamp.sends t WHERE t.account = $1 AND t.wa_id = s.wa_id) <= $2) END "
        "FROM (SELECT 1) AS one LEFT JOIN wacamp.day_counts d ON d.account = $1";

    // Connects to `url` (options.password, when not empty, over the URL's and libpq's
    // PGPASSWORD / PGPASSFILE) and creates the schema when missing (read_write). Fails with a
    // message naming the URL without its password: unreachable, refused, a newer schema.
    static util::Result<std::unique_ptr<PgLedger>> open(const std::string& url, const OpenOptions& options);
    ~PgLedger() override;

    WACAMP_LEDGER_OVERRIDES

    // The session's settings (libpq's `options`) for a ledger opened with `access` and `sync`.
    static std::string session_settings(Access access, Sync sync);

    // How many round trips to the server this ledger's calls took so far (its connection's).
    std::uint64_t round_trips() const;

private:
    // Suppression entries as the parameters of one unnest(): $wa_ids, $reasons, $since, $sources.
    struct SuppressionArrays {
        std::string wa_ids, reasons, since, sources;
    };
    static SuppressionArrays arrays_of(const std::vector<Suppression>& entries);

    PgLedger(std::string url, const OpenOptions& options);

    // Runs `body` on a live connection (connecting again first if the last call lost it: a
    // failed call is never run again), turning a pg::Failure into "ledger URL: WHAT: reason",
    // the password masked.
    template <typename T, typename F>
    util::Result<T> guarded(const char* what, F&& body) {
        try {
            revive();
            return body();
        } catch (const std::exception& e) {  // pg::Failure, or a malformed answer
            return failure(what, e);
        }
    }
    void revive();
    util::Error failure(const char* what, const std::exception& e) const;
    util::Error read_only(const char* what) const;
    void connect();
    void prepare_schema();
    void drop_functions();
    std::string masked(const std::string& message) const;
    // Runs `body`, which opens a transaction (BEGIN) and commits it, as guarded() does; rolls
    // the transaction back when a statement of it failed.
    template <typename T, typename F>
    util::Result<T> transaction(const char* what, F&& body);
    // The statements that write what the rule decided of `batch`.
    std::vector<pg::Statement> writes_of(const rule::RecordDecision& decision, const ResultBatch& batch) const;

    std::string m_url;    // as given, password and all
    std::string m_shown;  // without the password: what messages name
    std::string m_password;
    std::string m_account;
    Access m_access;
    Sync m_sync;
    std::chrono::milliseconds m_answer_timeout;
    bool m_empty = false;  // read-only and no schema yet: an empty ledger
    // The schema's version: this build's, or an older one a read-only open found (and left).
    std::int64_t m_schema = pg_schema::k_version;
    // The read of a batch's numbers' sends for the schema in use (a read-only open leaves an
    // older one as it is).
    const char* sends_sql() const { return m_schema >= 8 ? k_number_sends_sql : k_number_sends_v7_sql; }
    std::unique_ptr<pg::Connection> m_db;
};

}  // namespace account
