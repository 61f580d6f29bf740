#include "account/pg_schema.hpp"

#include "account/ledger_tables.hpp"

namespace account::pg_schema {

// Times are milliseconds since the epoch (bigint), as in the SQLite ledger; every table is keyed
// by the account, so one database holds several. The tables of version 3; k_upgrade adds version
// 4's and moves the version.
std::string create_sql() {
    return R"SQL(
CREATE SCHEMA IF NOT EXISTS wacamp;
CREATE TABLE wacamp.meta (
    version bigint NOT NULL
);
INSERT INTO wacamp.meta (version) VALUES (3);
CREATE TABLE wacamp.suppressions (
    account text NOT NULL,
    wa_id   text NOT NULL,
    reason  text NOT NULL,
    since   bigint NOT NULL,
    source  text NOT NULL,
    PRIMARY KEY (account, wa_id)
);
)SQL" + tables::create_sends("wacamp.sends", "PRIMARY KEY (account, campaign, csv_row, wa_id)", "") +
           R"SQL(
CREATE INDEX sends_by_number ON wacamp.sends (account, wa_id, at);
CREATE INDEX sends_by_time ON wacamp.sends (account, at, wa_id);
CREATE TABLE wacamp.undeliverable (
    account text NOT NULL,
    wa_id   text NOT NULL,
    answers bigint NOT NULL,
    last_at bigint NOT NULL,
    PRIMARY KEY (account, wa_id)
);
CREATE TABLE wacamp.marketing_holds (
    account text NOT NULL,
    wa_id   text NOT NULL,
    until   bigint NOT NULL,
    PRIMARY KEY (account, wa_id)
);
CREATE TABLE wacamp.folds (
    account  text NOT NULL,
    campaign text NOT NULL,
    covered  bigint NOT NULL,
    PRIMARY KEY (account, campaign)
);
)SQL";
}

// Version 1 had the tables of version 3 and a reserve() that checked only the caps; version 2's
// also refused suppressed and held numbers, held ones whatever the message; version 3's only when
// the request said holds apply. Version 4 keeps a running count of the day's numbers (an account
// without a row is counted afresh the first time a call needs it, so an older schema needs only
// the table). Version 5's reserve() counted a row's own confirmed send against
// rate.per_recipient. Version 6 has no function: the rule is account::rule's, in every runner, and
// PgLedger::prepare_schema drops the functions of the versions before. A runner of version 5 or
// older refuses a version 6 schema ("newer than this wacamp knows"): docs/ledger.md says to
// upgrade every runner of an account together. Version 7's sends name the request they stand for
// (account::Send::attempt; 0, not known, for the rows of before): a failure releases only its own
// request's reservation (docs/ledger.md "Each request its own reservation"). Version 8 writes a
// send once: a reservation names the run that made it, and the run's mark (`runs`) says before
// when it has recorded every answer (docs/ledger.md "A send written once"); the rows of before
// name no run (0). Runs are never deleted: an id is never given twice.
const char* const k_upgrade = R"SQL(
CREATE TABLE IF NOT EXISTS wacamp.day_counts (
    account text NOT NULL PRIMARY KEY,
    horizon bigint NOT NULL,
    numbers bigint NOT NULL
);
ALTER TABLE wacamp.sends ADD COLUMN IF NOT EXISTS attempt bigint NOT NULL DEFAULT 0;
CREATE TABLE IF NOT EXISTS wacamp.runs (
    id              bigserial PRIMARY KEY,
    account         text NOT NULL,
    campaign        text NOT NULL,
    started         bigint NOT NULL,
    answered_before bigint NOT NULL
);
ALTER TABLE wacamp.sends ADD COLUMN IF NOT EXISTS run bigint NOT NULL DEFAULT 0;
UPDATE wacamp.meta SET version = 8;
)SQL";

}  // namespace account::pg_schema
