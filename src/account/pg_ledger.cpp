#include "account/pg_ledger.hpp"

#include "account/ledger_tables.hpp"
#include "account/pg.hpp"
#include "account/pg_schema.hpp"
#include "account/rule.hpp"
#include "util/postgresql_url.hpp"
#include "util/redact.hpp"

namespace account {

namespace {

using rule::from_millis;
using rule::to_millis;

// Every account named in any table (each one's key starts with the account).
const std::string k_accounts_sql = tables::accounts_sql("wacamp.", "ORDER BY a COLLATE \"C\"");

std::string text_of(std::int64_t value) {
    return std::to_string(value);
}

}  // namespace

PgLedger::PgLedger(std::string url, const OpenOptions& options)
    : m_url(std::move(url)),
      m_shown(util::url_without_password(m_url)),
      m_password(options.password),
      m_account(options.account),
      m_access(options.access),
      m_sync(options.sync),
      m_answer_timeout(options.answer_timeout) {}

PgLedger::~PgLedger() = default;

util::Result<std::unique_ptr<PgLedger>> PgLedger::open(const std::string& url, const OpenOptions& options) {
    auto ledger = std::unique_ptr<PgLedger>(new PgLedger(url, options));
    try {
        ledger->connect();
        ledger->prepare_schema();
    } catch (const std::exception& e) {  // pg::Failure, or a malformed answer
        return util::fail("ledger " + ledger->m_shown + ": " + ledger->masked(e.what()));
    }
    return ledger;
}

std::string PgLedger::session_settings(Access access, Sync sync) {
    // No JIT: the ledger's statements are short, and a plan whose cost passes jit_above_cost
    // (the day's count, whose branch for an account never counted is priced as a scan of every
    // send) was compiled at every call: 100 ms a reservation at 10 million sends in the day.
    std::string settings = "-c jit=off";
    // A reservation holds the account's lock between its two round trips: a runner stopped
    // there (SIGSTOP, a frozen VM) would hold every other runner of the account. The server
    // ends such a session after 10 s idle in its transaction; the lock goes with it, nothing of
    // the transaction is committed (so nothing was sent on it), and the stopped runner's next
    // call fails and reconnects. Other runners wait up to answer_timeout (30 s), longer.
    settings += " -c idle_in_transaction_session_timeout=10000";
    // A read-only ledger is read-only on the server too; `normal` commits do not wait for the
    // server's disk (docs/ledger.md "PostgreSQL").
    if (access == Access::read_only) {
        settings += " -c default_transaction_read_only=on";
    }
    if (sync == Sync::normal) {
        settings += " -c synchronous_commit=off";
    }
    return settings;
}

void PgLedger::connect() {
    // Ours before the URL's `dbname` (the URL may set them otherwise), the session's settings and
    // the password after it (they must hold).
    std::vector<std::string> keywords = {
        "connect_timeout",  "keepalives_idle", "keepalives_interval", "keepalives_count", "tcp_user_timeout",
        "application_name", "dbname"};
    std::vector<std::string> values = {text_of(k_connect_timeout_s), "30", "10", "3", "60000", "wacamp", m_url};
    // A read-only ledger is read-only on the server too; `normal` commits do not wait for the
    // server's disk (docs/ledger.md "PostgreSQL").
    const std::string settings = session_settings(m_access, m_sync);
    keywords.emplace_back("options");
    values.push_back(settings);
    if (!m_password.empty()) {
        keywords.emplace_back("password");
        values.push_back(m_password);
    }
    try {
        m_db = std::make_unique<pg::Connection>(keywords, values, m_answer_timeout);
    } catch (const pg::Failure& e) {
        throw pg::Failure(std::string("cannot connect: ") + e.what());
    }
}

void PgLedger::prepare_schema() {
    auto version = [this]() -> std::int64_t {
        // A query of the catalog, not to_regclass(): that answers from the session's cache, which
        // may not yet show a table another runner has just created.
        const auto present = m_db->exec(
            "SELECT EXISTS (SELECT 1 FROM pg_catalog.pg_class c JOIN pg_catalog.pg_namespace n "
            "ON n.oid = c.relnamespace WHERE n.nspname = 'wacamp' AND c.relname = 'meta')");
        if (present.text(0, 0) != "t") {
            return 0;
        }
        const auto rows = m_db->exec("SELECT coalesce(max(version), 0) FROM wacamp.meta");
        return rows.integer(0, 0);
    };
    auto check = [](std::int64_t found) {
        if (found > pg_schema::k_version) {
            throw pg::Failure("schema version " + std::to_string(found) + " is newer than this wacamp knows (" +
                              std::to_string(pg_schema::k_version) + "); use a newer wacamp");
        }
    };
    std::int64_t found = version();
    check(found);
    if (found == pg_schema::k_version) {
        return;
    }
    if (m_access == Access::read_only) {
        // Nothing recorded yet: an empty ledger, and nothing is created. An older schema is read
        // as it is (version 1's reserve() previews the caps; screening checks the rest).
        m_empty = found == 0;
        m_schema = found;
        return;
    }
    // Under a lock, so that runners opening a new database at once create the schema once.
    m_db->exec("BEGIN");
    try {
        m_db->exec("SELECT pg_advisory_xact_lock(" + std::to_string(pg_schema::k_lock_space) + ", 0)");
        found = version();
        check(found);
        if (found == 0) {
            m_db->exec(pg_schema::create_sql());
        }
        if (found < pg_schema::k_version) {
            m_db->exec(pg_schema::k_upgrade);
            drop_functions();
        }
        m_db->exec("COMMIT");
    } catch (const pg::Failure& e) {
        if (!m_db->lost()) {
            try {
                m_db->exec("ROLLBACK");
            } catch (const pg::Failure&) {
                // The failure above is the one to tell.
            }
        }
        throw pg::Failure(std::string("creating the schema: ") + e.what());
    }
}

void PgLedger::drop_functions() {
    // Versions 1 to 5 decided on the server, in functions of the schema (some overloaded): each
    // is dropped by its signature. The tables are all there is now.
    const auto functions = m_db->exec(
        "SELECT p.oid::regprocedure FROM pg_catalog.pg_proc p JOIN pg_catalog.pg_namespace n "
        "ON n.oid = p.pronamespace WHERE n.nspname = 'wacamp'");
    for (int i = 0; i < functions.size(); ++i) {
        m_db->exec("DROP FUNCTION " + functions.text(i, 0));
    }
}

std::string PgLedger::masked(const std::string& message) const {
    util::Redactor secrets;
    secrets.add(m_password);
    if (auto password = util::url_password(m_url)) {
        secrets.add(m_url.substr(password->at, password->size));
    }
    return secrets.apply(message);
}

std::uint64_t PgLedger::round_trips() const {
    return m_db->round_trips();
}

void PgLedger::revive() {
    if (m_db->lost()) {
        // The last call lost the connection and failed: this one starts afresh (that call is not
        // sent again, so nothing runs twice).
        m_db->reset();
    }
}

util::Error PgLedger::failure(const char* what, const std::exception& e) const {
    return util::fail("ledger " + m_shown + ": " + what + ": " + masked(e.what()));
}

util::Error PgLedger::read_only(const char* what) const {
    return util::fail("ledger " + m_shown + ": " + what + ": the ledger is open read-only");
}

util::Result<std::size_t> PgLedger::suppress(const std::vector<Suppression>& entries) {
    if (m_empty) {
        return read_only("adding to the suppression list");
    }
    return guarded<std::size_t>("adding to the suppression list", [&] {
        const SuppressionArrays listed = arrays_of(entries);
        // A number already listed (or earlier in the batch) keeps its first entry.
        const auto added = m_db->query(
            "INSERT INTO wacamp.suppressions (account, wa_id, reason, since, source) "
            "SELECT $1, e.wa_id, e.reason, e.since, e.source "
            "FROM unnest($2::text[], $3::text[], $4::bigint[], $5::text[]) WITH ORDINALITY "
            "AS e (wa_id, reason, since, source, n) ORDER BY e.n "
            "ON CONFLICT (account, wa_id) DO NOTHING RETURNING 1",
            {m_account, listed.wa_ids, listed.reasons, listed.since, listed.sources});
        return static_cast<std::size_t>(added.size());
    });
}

PgLedger::SuppressionArrays PgLedger::arrays_of(const std::vector<Suppression>& entries) {
    std::vector<std::string> wa_ids, reasons, sources;
    std::vector<std::int64_t> since;
    for (const auto& entry : entries) {
        wa_ids.push_back(entry.wa_id);
        reasons.push_back(entry.reason);
        since.push_back(to_millis(entry.since));
        sources.push_back(entry.source);
    }
    return {pg::text_array(wa_ids), pg::text_array(reasons), pg::integer_array(since), pg::text_array(sources)};
}

util::Result<std::size_t> PgLedger::unsuppress(const std::vector<std::string>& wa_ids) {
    if (m_empty) {
        return read_only("removing from the suppression list");
    }
    return guarded<std::size_t>("removing from the suppression list", [&] {
        const auto removed = m_db->query(
            "WITH gone AS (DELETE FROM wacamp.suppressions WHERE account = $1 AND wa_id = ANY ($2::text[]) "
            "RETURNING 1), "
            "forgotten AS (DELETE FROM wacamp.undeliverable WHERE account = $1 AND wa_id = ANY ($2::text[])) "
            "SELECT count(*) FROM gone",
            {m_account, pg::text_array(wa_ids)});
        return static_cast<std::size_t>(removed.integer(0, 0));
    });
}

util::Result<std::vector<Suppression>> PgLedger::suppressed(const std::vector<std::string>& wa_ids) {
    if (m_empty) {
        return std::vector<Suppression>{};
    }
    return guarded<std::vector<Suppression>>("reading the suppression list", [&] {
        const auto rows = m_db->query(
            "SELECT wa_id, reason, since, source FROM wacamp.suppressions "
            "WHERE account = $1 AND wa_id = ANY ($2::text[])",
            {m_account, pg::text_array(wa_ids)});
        std::vector<Suppression> found;
        for (int i = 0; i < rows.size(); ++i) {
            found.push_back(
                Suppression{rows.text(i, 0), rows.text(i, 1), from_millis(rows.integer(i, 2)), rows.text(i, 3)});
        }
        return found;
    });
}

util::Result<void> PgLedger::list_suppressed(const std::function<void(const Suppression&)>& each) {
    if (m_empty) {
        return {};
    }
    return guarded<void>("listing the suppression list", [&] {
        // Ordered by the bytes of the number, as SQLite orders them.
        m_db->stream(
            "SELECT wa_id, reason, since, source FROM wacamp.suppressions WHERE account = $1 "
            "ORDER BY wa_id COLLATE \"C\"",
            {m_account}, [&](const pg::Rows& row) {
                each(Suppression{row.text(0, 0), row.text(0, 1), from_millis(row.integer(0, 2)), row.text(0, 3)});
            });
        return util::Result<void>{};
    });
}

util::Result<std::vector<Hold>> PgLedger::held(const std::vector<std::string>& wa_ids, util::TimePoint now) {
    if (m_empty) {
        return std::vector<Hold>{};
    }
    return guarded<std::vector<Hold>>("reading marketing holds", [&] {
        const auto rows = m_db->query(
            "SELECT wa_id, until FROM wacamp.marketing_holds WHERE account = $1 AND wa_id = ANY ($2::text[]) "
            "AND until > $3",
            {m_account, pg::text_array(wa_ids), text_of(to_millis(now))});
        std::vector<Hold> holds;
        for (int i = 0; i < rows.size(); ++i) {
            holds.push_back(Hold{rows.text(i, 0), from_millis(rows.integer(i, 1))});
        }
        return holds;
    });
}

util::Result<std::vector<CampaignSend>> PgLedger::campaign_sends(const std::string& campaign,
                                                                 const std::vector<std::string>& wa_ids) {
    if (m_empty) {
        return std::vector<CampaignSend>{};
    }
    return guarded<std::vector<CampaignSend>>("reading the campaign's sends", [&] {
        const auto rows = m_db->query(m_schema >= 8 ? k_campaign_sends_sql : k_campaign_sends_v7_sql,
                                      {m_account, campaign, pg::text_array(wa_ids)});
        std::vector<CampaignSend> sends;
        for (int i = 0; i < rows.size(); ++i) {
            const std::int64_t at = rows.integer(i, 3);
            const std::int64_t mark = rows.null(i, 5) ? 0 : rows.integer(i, 5);
            sends.push_back(CampaignSend{rows.text(i, 0), rows.integer(i, 1), rule::state_of(rows.view(i, 2), at, mark),
                                         from_millis(at), rows.integer(i, 4)});
        }
        return sends;
    });
}

util::Result<std::vector<LastMessaged>> PgLedger::last_messaged(const std::vector<std::string>& wa_ids) {
    if (m_empty) {
        return std::vector<LastMessaged>{};
    }
    return guarded<std::vector<LastMessaged>>("reading when the numbers were last messaged", [&] {
        const auto rows = m_db->query(
            "SELECT wa_id, max(at) FROM wacamp.sends WHERE account = $1 AND wa_id = ANY ($2::text[]) GROUP BY wa_id",
            {m_account, pg::text_array(wa_ids)});
        std::vector<LastMessaged> out;
        for (int i = 0; i < rows.size(); ++i) {
            out.push_back(LastMessaged{rows.text(i, 0), from_millis(rows.integer(i, 1))});
        }
        return out;
    });
}

util::Result<std::uint64_t> PgLedger::folded(const std::string& campaign) {
    if (m_empty) {
        return std::uint64_t{0};
    }
    return guarded<std::uint64_t>("reading the fold mark", [&] {
        const auto rows =
            m_db->query("SELECT covered FROM wacamp.folds WHERE account = $1 AND campaign = $2", {m_account, campaign});
        return rows.size() > 0 ? static_cast<std::uint64_t>(rows.integer(0, 0)) : std::uint64_t{0};
    });
}

util::Result<std::vector<std::string>> PgLedger::accounts() {
    if (m_empty) {
        return std::vector<std::string>{};
    }
    return guarded<std::vector<std::string>>("listing the accounts", [&] {
        const auto rows = m_db->query(k_accounts_sql, {});
        std::vector<std::string> out;
        for (int i = 0; i < rows.size(); ++i) {
            out.push_back(rows.text(i, 0));
        }
        return out;
    });
}

}  // namespace account
