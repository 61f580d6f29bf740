#include "account/pg_schema.hpp"

#include "account/ledger_tables.hpp"

namespace account::pg_schema {

// Times are milliseconds since the epoch (bigint), as in the SQLite ledger; every table is keyed
// by the account, so one database holds several. The functions mirror SqliteLedger's reserve and
// record statement for statement (sqlite_reserve.cpp, sqlite_day_count.cpp): change both together.
// The tables of version 3; k_upgrade adds version 4's.
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

const char* const k_record = R"SQL(
-- Applies a batch of answers and moves the campaign's fold mark; returns the numbers it newly
-- suppressed, in order.
CREATE OR REPLACE FUNCTION wacamp.record(p_account text,
                              d_campaigns text[], d_rows bigint[], d_wa_ids text[], d_ats bigint[],
                              n_campaigns text[], n_rows bigint[], n_wa_ids text[],
                              u_wa_ids text[], u_ats bigint[],
                              m_wa_ids text[], m_ats bigint[],
                              s_wa_ids text[], s_reasons text[], s_sinces bigint[], s_sources text[],
                              p_fold_campaign text, p_fold_value bigint, p_after bigint, p_source text)
RETURNS SETOF text
LANGUAGE plpgsql AS $$
DECLARE
    k_day constant bigint := 86400000;
    v_answers bigint;
    v_done text;
    w_ids text[] := '{}';
    w_reasons text[] := '{}';
    w_sinces bigint[] := '{}';
    w_sources text[] := '{}';
    v_horizon bigint;
    v_counted bigint;
BEGIN
    -- A delivered send the ledger missed is written here: under the lock, as a reservation is.
    PERFORM pg_advisory_xact_lock(1463895917, hashtext(p_account));
    SELECT d.horizon INTO v_horizon FROM wacamp.day_counts d WHERE d.account = p_account;
    v_counted := wacamp.day_counted(p_account, d_wa_ids || n_wa_ids, v_horizon);
    FOR i IN 1 .. coalesce(array_length(d_wa_ids, 1), 0) LOOP
        INSERT INTO wacamp.sends AS s (account, campaign, csv_row, wa_id, at, state)
        VALUES (p_account, d_campaigns[i], d_rows[i], d_wa_ids[i], d_ats[i], 'sent')
        ON CONFLICT (account, campaign, csv_row, wa_id) DO UPDATE SET state = 'sent';
    END LOOP;
    -- A send once confirmed is never given back.
    FOR i IN 1 .. coalesce(array_length(n_wa_ids, 1), 0) LOOP
        DELETE FROM wacamp.sends s
         WHERE s.account = p_account AND s.campaign = n_campaigns[i] AND s.csv_row = n_rows[i]
           AND s.wa_id = n_wa_ids[i] AND s.state = 'reserved';
    END LOOP;
    PERFORM wacamp.day_adjust(p_account, wacamp.day_counted(p_account, d_wa_ids || n_wa_ids, v_horizon) - v_counted);
    FOR i IN 1 .. coalesce(array_length(u_wa_ids, 1), 0) LOOP
        INSERT INTO wacamp.undeliverable AS u (account, wa_id, answers, last_at)
        VALUES (p_account, u_wa_ids[i], 1, u_ats[i])
        ON CONFLICT (account, wa_id) DO UPDATE SET answers = u.answers + 1, last_at = excluded.last_at
        RETURNING u.answers INTO v_answers;
        IF v_answers >= p_after THEN
            w_ids := w_ids || u_wa_ids[i];
            w_reasons := w_reasons || 'undeliverable'::text;
            w_sinces := w_sinces || u_ats[i];
            w_sources := w_sources || p_source;
        END IF;
    END LOOP;
    w_ids := w_ids || s_wa_ids;
    w_reasons := w_reasons || s_reasons;
    w_sinces := w_sinces || s_sinces;
    w_sources := w_sources || s_sources;
    -- A number already listed keeps its first entry.
    FOR i IN 1 .. coalesce(array_length(w_ids, 1), 0) LOOP
        v_done := NULL;
        INSERT INTO wacamp.suppressions (account, wa_id, reason, since, source)
        VALUES (p_account, w_ids[i], w_reasons[i], w_sinces[i], w_sources[i])
        ON CONFLICT (account, wa_id) DO NOTHING
        RETURNING wa_id INTO v_done;
        IF v_done IS NOT NULL THEN
            RETURN NEXT v_done;
        END IF;
    END LOOP;
    FOR i IN 1 .. coalesce(array_length(m_wa_ids, 1), 0) LOOP
        INSERT INTO wacamp.marketing_holds AS h (account, wa_id, until)
        VALUES (p_account, m_wa_ids[i], m_ats[i] + k_day)
        ON CONFLICT (account, wa_id) DO UPDATE SET until = greatest(h.until, excluded.until);
    END LOOP;
    IF p_fold_campaign IS NOT NULL THEN
        INSERT INTO wacamp.folds AS f (account, campaign, covered) VALUES (p_account, p_fold_campaign, p_fold_value)
        ON CONFLICT (account, campaign) DO UPDATE SET covered = excluded.covered;
    END IF;
END
$$;
)SQL";

const char* const k_day = R"SQL(
-- The numbers of p_wa_ids with a send after p_horizon (0 without a horizon: the account has no
-- count to keep yet).
CREATE OR REPLACE FUNCTION wacamp.day_counted(p_account text, p_wa_ids text[], p_horizon bigint)
RETURNS bigint
LANGUAGE sql AS $$
    SELECT count(*) FROM (SELECT DISTINCT w FROM unnest(p_wa_ids) AS w) AS n
     WHERE p_horizon IS NOT NULL AND EXISTS (
         SELECT 1 FROM wacamp.sends s WHERE s.account = p_account AND s.wa_id = n.w AND s.at > p_horizon)
$$;
-- Adds p_delta to the account's count, when it has one.
CREATE OR REPLACE FUNCTION wacamp.day_adjust(p_account text, p_delta bigint)
RETURNS void
LANGUAGE sql AS $$
    UPDATE wacamp.day_counts SET numbers = numbers + p_delta WHERE account = p_account AND p_delta <> 0
$$;
-- The account's running count of the numbers messaged after a horizon (docs/ledger.md "The
-- day's count"), moved to p_horizon: reads only the sends between the old horizon and the new
-- (every send after p_horizon when the account has no count yet). Returns the count; with
-- p_store writes it back (the caller holds the account's lock).
CREATE OR REPLACE FUNCTION wacamp.day_move(p_account text, p_horizon bigint, p_store boolean)
RETURNS bigint
LANGUAGE plpgsql
SET plan_cache_mode = force_custom_plan
AS $$
DECLARE
    v_horizon bigint;
    v_numbers bigint;
    v_crossed bigint;
BEGIN
    SELECT d.horizon, d.numbers INTO v_horizon, v_numbers FROM wacamp.day_counts d WHERE d.account = p_account;
    IF NOT FOUND THEN
        SELECT count(DISTINCT s.wa_id) INTO v_numbers FROM wacamp.sends s
         WHERE s.account = p_account AND s.at > p_horizon;
    ELSIF p_horizon <> v_horizon THEN
        -- The numbers whose latest send lies between the two horizons: they leave the window when
        -- it moves forward and come back when it moves back (a call given an earlier p_now).
        SELECT count(DISTINCT s.wa_id) INTO v_crossed FROM wacamp.sends s
         WHERE s.account = p_account AND s.at > least(p_horizon, v_horizon)
           AND s.at <= greatest(p_horizon, v_horizon)
           AND NOT EXISTS (SELECT 1 FROM wacamp.sends t WHERE t.account = p_account AND t.wa_id = s.wa_id
                              AND t.at > greatest(p_horizon, v_horizon));
        v_numbers := v_numbers + CASE WHEN p_horizon > v_horizon THEN -v_crossed ELSE v_crossed END;
    END IF;
    IF p_store THEN
        INSERT INTO wacamp.day_counts AS d (account, horizon, numbers) VALUES (p_account, p_horizon, v_numbers)
        ON CONFLICT (account) DO UPDATE SET horizon = excluded.horizon, numbers = excluded.numbers;
    END IF;
    RETURN v_numbers;
END
$$;
-- Deletes the sends made before p_before and the holds ended before it, under the account's lock;
-- returns how many sends went. The count's horizon is first moved past them, when behind.
CREATE OR REPLACE FUNCTION wacamp.prune(p_account text, p_before bigint)
RETURNS bigint
LANGUAGE plpgsql AS $$
DECLARE
    v_horizon bigint;
    v_pruned bigint;
BEGIN
    PERFORM pg_advisory_xact_lock(1463895917, hashtext(p_account));
    SELECT d.horizon INTO v_horizon FROM wacamp.day_counts d WHERE d.account = p_account;
    IF v_horizon < p_before - 1 THEN
        PERFORM wacamp.day_move(p_account, p_before - 1, true);
    END IF;
    DELETE FROM wacamp.sends s WHERE s.account = p_account AND s.at < p_before;
    GET DIAGNOSTICS v_pruned = ROW_COUNT;
    DELETE FROM wacamp.marketing_holds h WHERE h.account = p_account AND h.until < p_before;
    RETURN v_pruned;
END
$$;
)SQL";

const char* const k_reserve = R"SQL(
-- Versions 1 and 2's reserve(), without p_holds: gone, so that no call can reach it.
DROP FUNCTION IF EXISTS wacamp.reserve(text, text[], bigint[], text[], bigint, bigint, bigint, bigint, boolean);
-- Decides a batch of sends in order (refusal 0: granted, 1: frequency_cap, 2: per_day, with
-- room_at; 3: suppressed; 4: held by a 131049 answer, room_at its end, only with p_holds) and,
-- with p_commit, writes the granted ones as reserved, under the account's lock. Version 2 added
-- 3 and 4: an opt-out another runner met after this one screened its rows must still hold the
-- send back. Version 3 added p_holds: 131049 holds keep back text, image and MARKETING template
-- messages only.
CREATE OR REPLACE FUNCTION wacamp.reserve(p_account text, p_campaigns text[], p_rows bigint[], p_wa_ids text[],
                               p_now bigint, p_max bigint, p_per bigint, p_per_day bigint, p_commit boolean,
                               p_holds boolean)
RETURNS TABLE (refusal integer, room_at bigint)
LANGUAGE plpgsql
-- Each lookup planned for its own values: a plan cached while the table was small (a new ledger,
-- never analyzed) scanned the whole day's sends for every number, 0.3 ms a lookup at 10,000.
SET plan_cache_mode = force_custom_plan
AS $$
DECLARE
    k_day constant bigint := 86400000;
    v_day_before bigint := 0;  -- numbers messaged in the trailing 24 h, before this batch
    v_new_today bigint := 0;   -- numbers this batch adds to them
    v_today jsonb := '{}';     -- the batch's numbers (a set)
    v_granted jsonb := '{}';   -- the batch's grants per number
    v_grants integer[] := '{}';
    v_grant integer;
    v_granted_ids text[] := '{}';
    v_horizon bigint;
    v_counted bigint;
    v_room_offset bigint;      -- the batch's per_day room_at, read once: refused sends add no number
    v_room_at bigint;
    v_wa_id text;
    v_stored bigint;
    v_total bigint;
    v_offset bigint;
    v_room bigint;
    v_numbers bigint;
    v_is_new boolean;
BEGIN
    IF p_commit THEN
        -- Every runner of the account decides one batch at a time: two deciding at once could
        -- each see room for the last slot.
        PERFORM pg_advisory_xact_lock(1463895917, hashtext(p_account));
    END IF;
    IF p_per_day IS NOT NULL THEN
        v_day_before := wacamp.day_move(p_account, p_now - k_day, p_commit);
    END IF;
    FOR i IN 1 .. coalesce(array_length(p_wa_ids, 1), 0) LOOP
        v_wa_id := p_wa_ids[i];
        IF EXISTS (SELECT 1 FROM wacamp.suppressions x WHERE x.account = p_account AND x.wa_id = v_wa_id) THEN
            refusal := 3;
            room_at := NULL;
            RETURN NEXT;
            CONTINUE;
        END IF;
        v_room := NULL;
        IF p_holds THEN
            SELECT h.until INTO v_room FROM wacamp.marketing_holds h
             WHERE h.account = p_account AND h.wa_id = v_wa_id AND h.until > p_now;
        END IF;
        IF v_room IS NOT NULL THEN
            refusal := 4;
            room_at := v_room;
            RETURN NEXT;
            CONTINUE;
        END IF;
        IF p_max IS NOT NULL THEN
            -- This row's own earlier reservation does not count against it; its earlier send
            -- that an answer confirmed does, as every other send of the number does.
            SELECT count(*) INTO v_stored FROM wacamp.sends s
             WHERE s.account = p_account AND s.wa_id = v_wa_id AND s.at > p_now - p_per
               AND NOT (s.campaign = p_campaigns[i] AND s.csv_row = p_rows[i] AND s.state = 'reserved');
            v_total := v_stored + coalesce((v_granted ->> v_wa_id)::bigint, 0);
            IF v_total >= p_max THEN
                -- Room opens when the (total - max + 1)th oldest send ages out of the window.
                v_offset := v_total - greatest(p_max, 0);
                IF v_offset >= v_stored THEN
                    v_room := p_now + p_per;
                ELSE
                    SELECT s.at INTO v_room FROM wacamp.sends s
                     WHERE s.account = p_account AND s.wa_id = v_wa_id AND s.at > p_now - p_per
                       AND NOT (s.campaign = p_campaigns[i] AND s.csv_row = p_rows[i] AND s.state = 'reserved')
                     ORDER BY s.at OFFSET v_offset LIMIT 1;
                    v_room := coalesce(v_room, p_now - p_per) + p_per;
                END IF;
                refusal := 1;
                room_at := v_room;
                RETURN NEXT;
                CONTINUE;
            END IF;
        END IF;
        v_is_new := false;
        IF p_per_day IS NOT NULL THEN
            v_is_new := NOT (v_today ? v_wa_id) AND NOT EXISTS (
                SELECT 1 FROM wacamp.sends s WHERE s.account = p_account AND s.wa_id = v_wa_id AND s.at > p_now - k_day);
            v_numbers := v_day_before + v_new_today;
            IF v_is_new AND v_numbers >= p_per_day THEN
                -- When the (numbers - cap + 1)th number, by its latest send, ages out.
                v_offset := v_numbers - greatest(p_per_day, 0);
                IF v_offset >= v_day_before THEN
                    v_room := p_now + k_day;
                ELSIF v_offset = v_room_offset THEN
                    v_room := v_room_at;
                ELSE
                    -- The day's sends oldest first, each number's latest only (one per number,
                    -- ties included), up to the one wanted: no scan of the whole day.
                    SELECT l.at INTO v_room FROM (
                        SELECT DISTINCT s.at, s.wa_id FROM wacamp.sends s
                         WHERE s.account = p_account AND s.at > p_now - k_day
                           AND NOT EXISTS (SELECT 1 FROM wacamp.sends t
                                            WHERE t.account = p_account AND t.wa_id = s.wa_id AND t.at > s.at)
                         ORDER BY s.at, s.wa_id) AS l
                     ORDER BY l.at OFFSET v_offset LIMIT 1;
                    v_room := coalesce(v_room, p_now) + k_day;
                    v_room_offset := v_offset;
                    v_room_at := v_room;
                END IF;
                refusal := 2;
                room_at := v_room;
                RETURN NEXT;
                CONTINUE;
            END IF;
        END IF;
        IF v_is_new THEN
            v_new_today := v_new_today + 1;
        END IF;
        v_today := v_today || jsonb_build_object(v_wa_id, true);
        v_granted := v_granted || jsonb_build_object(v_wa_id, coalesce((v_granted ->> v_wa_id)::bigint, 0) + 1);
        v_grants := v_grants || i;
        v_granted_ids := v_granted_ids || v_wa_id;
        refusal := 0;
        room_at := NULL;
        RETURN NEXT;
    END LOOP;
    -- Written once every send is decided: the batch's own grants are counted above, not read back.
    IF p_commit THEN
        SELECT d.horizon INTO v_horizon FROM wacamp.day_counts d WHERE d.account = p_account;
        v_counted := wacamp.day_counted(p_account, v_granted_ids, v_horizon);
        FOREACH v_grant IN ARRAY v_grants LOOP
            INSERT INTO wacamp.sends AS s (account, campaign, csv_row, wa_id, at, state)
            VALUES (p_account, p_campaigns[v_grant], p_rows[v_grant], p_wa_ids[v_grant], p_now, 'reserved')
            ON CONFLICT (account, campaign, csv_row, wa_id) DO UPDATE SET at = excluded.at WHERE s.state = 'reserved';
        END LOOP;
        -- The numbers the batch brought into the window.
        PERFORM wacamp.day_adjust(p_account, wacamp.day_counted(p_account, v_granted_ids, v_horizon) - v_counted);
    END IF;
END
$$;
)SQL";

// Version 1 had the tables of version 3 and a reserve() that checked only the caps; version 2's
// also refused suppressed and held numbers, held ones whatever the message. Version 4 keeps a
// running count of the day's numbers (an account without a row is counted afresh the first time
// a call needs it, so an older schema needs only the table). Version 5's reserve() counts a row's
// own earlier send against rate.per_recipient once an answer confirmed it (only its reservation is
// left out). k_record, k_day and k_reserve replace the functions, and this adds the table and moves
// the version.
const char* const k_upgrade = R"SQL(
CREATE TABLE IF NOT EXISTS wacamp.day_counts (
    account text NOT NULL PRIMARY KEY,
    horizon bigint NOT NULL,
    numbers bigint NOT NULL
);
UPDATE wacamp.meta SET version = 5;
)SQL";

}  // namespace account::pg_schema
