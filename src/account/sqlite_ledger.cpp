#include "account/sqlite_ledger.hpp"

#include <chrono>
#include <thread>

#include "account/ledger_file.hpp"
#include "account/ledger_tables.hpp"
#include "account/sqlite_day_count.hpp"
#include "account/sqlite_runs.hpp"

namespace account {

namespace {

// Version 1. Times are milliseconds since the epoch; no foreign keys (each table stands alone).
std::string schema_v1() {
    return R"(
CREATE TABLE suppressions (
    account TEXT NOT NULL,
    wa_id   TEXT NOT NULL,
    reason  TEXT NOT NULL,
    since   INTEGER NOT NULL,
    source  TEXT NOT NULL,
    PRIMARY KEY (account, wa_id)
) WITHOUT ROWID;
)" + tables::create_sends("sends", "PRIMARY KEY (account, campaign, csv_row)", "") +
           R"(
CREATE INDEX sends_by_number ON sends (account, wa_id, at);
CREATE INDEX sends_by_time ON sends (account, at, wa_id);
CREATE TABLE undeliverable (
    account TEXT NOT NULL,
    wa_id   TEXT NOT NULL,
    answers INTEGER NOT NULL,
    last_at INTEGER NOT NULL,
    PRIMARY KEY (account, wa_id)
) WITHOUT ROWID;
CREATE TABLE marketing_holds (
    account TEXT NOT NULL,
    wa_id   TEXT NOT NULL,
    until   INTEGER NOT NULL,
    PRIMARY KEY (account, wa_id)
) WITHOUT ROWID;
CREATE TABLE folds (
    account  TEXT NOT NULL,
    campaign TEXT NOT NULL,
    covered  INTEGER NOT NULL,
    PRIMARY KEY (account, campaign)
) WITHOUT ROWID;
)";
}

// Version 2: a send is keyed by its number too (a campaign continued with --force over an
// edited CSV may give a row number to another number; both sends must count), and the table is
// its key's B-tree (WITHOUT ROWID): one tree fewer to write per send.
std::string migration_v2() {
    return tables::create_sends("sends_v2", "PRIMARY KEY (account, campaign, csv_row, wa_id)", " WITHOUT ROWID") +
           R"(
INSERT INTO sends_v2 (account, campaign, csv_row, wa_id, at, state)
    SELECT account, campaign, csv_row, wa_id, at, state FROM sends;
DROP TABLE sends;
ALTER TABLE sends_v2 RENAME TO sends;
CREATE INDEX sends_by_number ON sends (account, wa_id, at);
CREATE INDEX sends_by_time ON sends (account, at, wa_id);
)";
}

// Version 3: the running count of the numbers each account messaged in the trailing 24 h
// (sqlite_day_count.cpp): how many have a send after `horizon`. An account without a row is
// counted afresh the first time a call needs it, so an older file needs only the table.
constexpr const char* k_migrate_v3 = R"(
CREATE TABLE day_counts (
    account TEXT NOT NULL PRIMARY KEY,
    horizon INTEGER NOT NULL,
    numbers INTEGER NOT NULL
) WITHOUT ROWID;
)";

// Version 4: a send names its campaign by a number, an id in `campaigns`: the name (often 30
// bytes) was stored three times a send, in the table and in both indexes, which carry the key of
// a WITHOUT ROWID table — half of a send's 232 bytes.
constexpr const char* k_migrate_v4 = R"(
CREATE TABLE campaigns (
    id      INTEGER PRIMARY KEY,
    account TEXT NOT NULL,
    name    TEXT NOT NULL,
    UNIQUE (account, name)
);
INSERT INTO campaigns (account, name) SELECT DISTINCT account, campaign FROM sends ORDER BY 1, 2;
CREATE TABLE sends_v4 (
    account     TEXT NOT NULL,
    campaign_id INTEGER NOT NULL,
    csv_row     INTEGER NOT NULL,
    wa_id       TEXT NOT NULL,
    at          INTEGER NOT NULL,
    state       TEXT NOT NULL CHECK (state IN ('reserved', 'sent')),
    PRIMARY KEY (account, campaign_id, csv_row, wa_id)
) WITHOUT ROWID;
INSERT INTO sends_v4 (account, campaign_id, csv_row, wa_id, at, state)
    SELECT s.account, c.id, s.csv_row, s.wa_id, s.at, s.state
      FROM sends s JOIN campaigns c ON c.account = s.account AND c.name = s.campaign;
DROP TABLE sends;
ALTER TABLE sends_v4 RENAME TO sends;
CREATE INDEX sends_by_number ON sends (account, wa_id, at);
CREATE INDEX sends_by_time ON sends (account, at, wa_id);
)";

// Version 5: a send names the request it stands for (account::Send::attempt), so that an
// answer releases only its own request's reservation; the rows of before say 0, not known.
constexpr const char* k_migrate_v5 = "ALTER TABLE sends ADD COLUMN attempt INTEGER NOT NULL DEFAULT 0;";

// Version 6: a send is written once (docs/ledger.md "A send written once"). A reservation names
// the run that made it, and a run's mark says before when it has recorded every answer: its
// reservations made before then are sends. The rows of before name no run (0): each stays as
// its state says. A runner of version 5 refuses the file ("newer than this wacamp knows").
constexpr const char* k_migrate_v6 = R"(
CREATE TABLE runs (
    id              INTEGER PRIMARY KEY,
    account         TEXT NOT NULL,
    campaign        TEXT NOT NULL,
    started         INTEGER NOT NULL,
    answered_before INTEGER NOT NULL
);
ALTER TABLE sends ADD COLUMN run INTEGER NOT NULL DEFAULT 0;
)";

// Every account named in any table (each one's key starts with the account: no table scan).
const std::string k_accounts_sql = tables::accounts_sql("", "ORDER BY 1");

std::int64_t user_version(sqlite::Database& db) {
    sqlite::Statement version(db, "PRAGMA user_version");
    return version.step() ? version.integer(0) : 0;
}

}  // namespace

util::Result<std::unique_ptr<SqliteLedger>> SqliteLedger::open(const std::string& path, const OpenOptions& options) {
    const Create create = options.access == Access::read_write ? Create::yes : Create::no;
    auto file = prepare_ledger_file(path, create);
    if (!file) {
        return file.error();
    }
    using Mode = sqlite::Database::Mode;
    Mode mode = options.access == Access::read_write ? Mode::read_write : Mode::read_only;
    if (options.access == Access::read_only && *file != FileState::present) {
        mode = Mode::memory;  // nothing recorded yet: an empty ledger that refuses writes
    }
    // Two processes opening a new file at once: switching it to WAL returns "database is locked"
    // at once, without waiting on the busy timeout. Try again, as long as the timeout.
    const auto give_up = std::chrono::steady_clock::now() + std::chrono::milliseconds(k_busy_timeout_ms);
    for (;;) {
        try {
            auto ledger = std::unique_ptr<SqliteLedger>(new SqliteLedger(path, options.account, mode));
            ledger->configure(options.access, options.sync);
            ledger->migrate(mode == Mode::memory ? Access::read_write : options.access);
            if (mode == Mode::memory) {
                ledger->m_db.exec("PRAGMA query_only = ON");
            }
            return ledger;
        } catch (const sqlite::Failure& e) {
            if (!e.busy() || std::chrono::steady_clock::now() >= give_up) {
                return util::fail("ledger " + path + ": " + e.what());
            }
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
}

void SqliteLedger::configure(Access access, Sync sync) {
    m_db.busy_timeout(k_busy_timeout_ms);
    if (access == Access::read_write) {
        // WAL: readers never wait for a writer. FULL: a committed reservation survives a power
        // loss, so no runner can later send past a cap it did not see; NORMAL: it survives a
        // crash of the process, and costs no fsync per commit (a run commits several times a
        // second).
        m_db.exec("PRAGMA journal_mode = WAL");
        m_db.exec(sync == Sync::full ? "PRAGMA synchronous = FULL" : "PRAGMA synchronous = NORMAL");
    }
    m_db.exec("PRAGMA foreign_keys = OFF");
}

void SqliteLedger::migrate(Access access) {
    // Under the write lock, so that two processes opening a new file migrate it once.
    const auto kind = access == Access::read_write ? sqlite::Transaction::Kind::write : sqlite::Transaction::Kind::read;
    sqlite::Transaction transaction(m_db, kind);
    const std::int64_t version = user_version(m_db);
    if (version > k_schema_version) {
        throw sqlite::Failure("schema version " + std::to_string(version) + " is newer than this wacamp knows (" +
                              std::to_string(k_schema_version) + "); use a newer wacamp");
    }
    if (version == k_schema_version) {
        transaction.commit();
        return;
    }
    if (access == Access::read_only) {
        throw sqlite::Failure("schema version " + std::to_string(version) +
                              " is older than this wacamp's; open it once for writing to migrate it");
    }
    // Each step from the one before.
    if (version < 1) {
        m_db.exec(schema_v1().c_str());
    }
    if (version < 2) {
        m_db.exec(migration_v2().c_str());
    }
    if (version < 3) {
        m_db.exec(k_migrate_v3);
    }
    if (version < 4) {
        m_db.exec(k_migrate_v4);
    }
    if (version < 5) {
        m_db.exec(k_migrate_v5);
    }
    if (version < 6) {
        m_db.exec(k_migrate_v6);
    }
    m_db.exec(("PRAGMA user_version = " + std::to_string(k_schema_version)).c_str());
    transaction.commit();
}

util::Result<std::vector<Hold>> SqliteLedger::held(const std::vector<std::string>& wa_ids, util::TimePoint now) {
    return guarded<std::vector<Hold>>("reading marketing holds", [&] {
        sqlite::Transaction transaction(m_db, sqlite::Transaction::Kind::read);
        sqlite::Statement query(m_db,
                                "SELECT until FROM marketing_holds WHERE account = ?9 AND wa_id = ?1 AND until > ?2");
        std::vector<Hold> holds;
        query.bind(2, to_millis(now)).bind(k_account, m_account);
        for (const auto& wa_id : wa_ids) {
            query.bind(1, wa_id);
            if (query.step()) {
                holds.push_back(Hold{wa_id, from_millis(query.integer(0))});
            }
            query.rewind();
        }
        transaction.commit();
        return holds;
    });
}

util::Result<std::vector<CampaignSend>> SqliteLedger::campaign_sends(const std::string& campaign,
                                                                     const std::vector<std::string>& wa_ids) {
    return guarded<std::vector<CampaignSend>>("reading the campaign's sends", [&] {
        sqlite::Transaction transaction(m_db, sqlite::Transaction::Kind::read);
        std::vector<CampaignSend> sends;
        sqlite::Statement id(m_db, "SELECT id FROM campaigns WHERE account = ?9 AND name = ?1");
        id.bind(1, campaign).bind(k_account, m_account);
        if (!id.step()) {
            transaction.commit();
            return sends;  // the ledger holds no send of this campaign
        }
        // Through sends_by_number (k_campaign_sends_sql): a number has few sends, and a batch of
        // numbers is one read transaction.
        sqlite::Statement query(m_db, k_campaign_sends_sql);
        query.bind(2, id.integer(0)).bind(k_account, m_account);
        RunMarks marks(m_db, m_account);
        for (const auto& wa_id : wa_ids) {
            query.bind(1, wa_id);
            while (query.step()) {
                sends.push_back(CampaignSend{wa_id, query.integer(0),
                                             marks.state(query.text(1), query.integer(2), query.integer(4)),
                                             from_millis(query.integer(2)), query.integer(3)});
            }
            query.rewind();
        }
        transaction.commit();
        return sends;
    });
}

util::Result<std::int64_t> SqliteLedger::begin_run(const std::string& campaign, util::TimePoint now) {
    return guarded<std::int64_t>("starting a run", [&] {
        sqlite::Transaction transaction(m_db, sqlite::Transaction::Kind::write);
        // The largest id yet, plus one: runs are never deleted, so no id is given twice.
        sqlite::Statement add(m_db,
                              "INSERT INTO runs (account, campaign, started, answered_before) "
                              "VALUES (?9, ?1, ?2, 0) RETURNING id");
        add.bind(1, campaign).bind(2, to_millis(now)).bind(k_account, m_account);
        if (!add.step()) {
            throw sqlite::Failure("no id for the run");
        }
        const std::int64_t id = add.integer(0);
        add.run();
        transaction.commit();
        return id;
    });
}

util::Result<std::vector<LastMessaged>> SqliteLedger::last_messaged(const std::vector<std::string>& wa_ids) {
    return guarded<std::vector<LastMessaged>>("reading when the numbers were last messaged", [&] {
        sqlite::Transaction transaction(m_db, sqlite::Transaction::Kind::read);
        std::vector<LastMessaged> out;
        // The newest entry of the number's index (account, wa_id, at): one step each.
        sqlite::Statement query(m_db,
                                "SELECT at FROM sends INDEXED BY sends_by_number WHERE account = ?9 AND wa_id = ?1 "
                                "ORDER BY at DESC LIMIT 1");
        query.bind(k_account, m_account);
        for (const auto& wa_id : wa_ids) {
            query.bind(1, wa_id);
            if (query.step()) {
                out.push_back(LastMessaged{wa_id, from_millis(query.integer(0))});
            }
            query.rewind();
        }
        transaction.commit();
        return out;
    });
}

util::Result<std::uint64_t> SqliteLedger::folded(const std::string& campaign) {
    return guarded<std::uint64_t>("reading the fold mark", [&] {
        sqlite::Statement query(m_db, "SELECT covered FROM folds WHERE account = ?9 AND campaign = ?1");
        query.bind(1, campaign).bind(k_account, m_account);
        return query.step() ? static_cast<std::uint64_t>(query.integer(0)) : 0;
    });
}

util::Result<std::vector<std::string>> SqliteLedger::accounts() {
    return guarded<std::vector<std::string>>("listing the accounts", [&] {
        sqlite::Statement query(m_db, k_accounts_sql.c_str());
        std::vector<std::string> out;
        while (query.step()) {
            out.push_back(query.text(0));
        }
        return out;
    });
}

util::Result<std::size_t> SqliteLedger::prune(util::TimePoint before) {
    return guarded<std::size_t>("pruning", [&] {
        sqlite::Transaction transaction(m_db, sqlite::Transaction::Kind::write);
        // The count's horizon first moves past the sends that go, so that they count for nothing.
        const auto stored_day = sqlite_day::read(m_db, m_account);
        if (const auto horizon = rule::prune_horizon(stored_day, before)) {
            const std::int64_t crossed = sqlite_day::crossed(m_db, m_account, stored_day, *horizon);
            sqlite_day::write(m_db, m_account, rule::moved(stored_day, *horizon, crossed));
        }
        sqlite::Statement sends(m_db, "DELETE FROM sends WHERE account = ?9 AND at < ?1");
        sends.bind(1, to_millis(before)).bind(k_account, m_account).run();
        const auto pruned = static_cast<std::size_t>(m_db.changes());
        sqlite::Statement holds(m_db, "DELETE FROM marketing_holds WHERE account = ?9 AND until < ?1");
        holds.bind(1, to_millis(before)).bind(k_account, m_account).run();
        transaction.commit();
        return pruned;
    });
}

}  // namespace account
