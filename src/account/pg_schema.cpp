#include "account/pg_schema.hpp"

namespace account::pg_schema {

// Times are milliseconds since the epoch (bigint), as in the SQLite ledger; every table is keyed
// by the account, so one database holds several. The functions mirror SqliteLedger's reserve and
// record statement for statement (sqlite_reserve.cpp): change both together.
const char* const k_create = R"SQL(
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
CREATE TABLE wacamp.sends (
    account  text NOT NULL,
    campaign text NOT NULL,
    csv_row  bigint NOT NULL,
    wa_id    text NOT NULL,
    at       bigint NOT NULL,
    state    text NOT NULL CHECK (state IN ('reserved', 'sent')),
    PRIMARY KEY (account, campaign, csv_row, wa_id)
);
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

-- Applies a batch of answers and moves the campaign's fold mark; returns the numbers it newly
-- suppressed, in order.
CREATE FUNCTION wacamp.record(p_account text,
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
BEGIN
    -- A delivered send the ledger missed is written here: under the lock, as a reservation is.
    PERFORM pg_advisory_xact_lock(1463895917, hashtext(p_account));
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
        SELECT count(DISTINCT s.wa_id) INTO v_day_before FROM wacamp.sends s
         WHERE s.account = p_account AND s.at > p_now - k_day;
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
            -- This row's own earlier reservation does not count against it.
            SELECT count(*) INTO v_stored FROM wacamp.sends s
             WHERE s.account = p_account AND s.wa_id = v_wa_id AND s.at > p_now - p_per
               AND NOT (s.campaign = p_campaigns[i] AND s.csv_row = p_rows[i]);
            v_total := v_stored + coalesce((v_granted ->> v_wa_id)::bigint, 0);
            IF v_total >= p_max THEN
                -- Room opens when the (total - max + 1)th oldest send ages out of the window.
                v_offset := v_total - greatest(p_max, 0);
                IF v_offset >= v_stored THEN
                    v_room := p_now + p_per;
                ELSE
                    SELECT s.at INTO v_room FROM wacamp.sends s
                     WHERE s.account = p_account AND s.wa_id = v_wa_id AND s.at > p_now - p_per
                       AND NOT (s.campaign = p_campaigns[i] AND s.csv_row = p_rows[i])
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
                ELSE
                    SELECT max(s.at) AS last INTO v_room FROM wacamp.sends s
                     WHERE s.account = p_account AND s.at > p_now - k_day
                     GROUP BY s.wa_id ORDER BY last OFFSET v_offset LIMIT 1;
                    v_room := coalesce(v_room, p_now) + k_day;
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
        refusal := 0;
        room_at := NULL;
        RETURN NEXT;
    END LOOP;
    -- Written once every send is decided: the batch's own grants are counted above, not read back.
    IF p_commit THEN
        FOREACH v_grant IN ARRAY v_grants LOOP
            INSERT INTO wacamp.sends AS s (account, campaign, csv_row, wa_id, at, state)
            VALUES (p_account, p_campaigns[v_grant], p_rows[v_grant], p_wa_ids[v_grant], p_now, 'reserved')
            ON CONFLICT (account, campaign, csv_row, wa_id) DO UPDATE SET at = excluded.at WHERE s.state = 'reserved';
        END LOOP;
    END IF;
END
$$;
)SQL";

// Version 1 had the same tables and a reserve() that checked only the caps; version 2's also
// refused suppressed and held numbers, held ones whatever the message. Both have the tables of
// version 3: k_reserve replaces their reserve(), and this moves the version.
const char* const k_upgrade = "UPDATE wacamp.meta SET version = 3;";

}  // namespace account::pg_schema
