// The PostgreSQL ledger's reservations, answers and pruning: the facts of a batch's numbers read
// under the account's advisory lock, account::rule's decision written back, in one transaction of
// two round trips (each a pipeline of plain statements: pg::Connection::pipeline).
#include <unordered_map>
#include <unordered_set>

#include "account/pg.hpp"
#include "account/pg_ledger.hpp"
#include "account/rule.hpp"

namespace account {

namespace {

using rule::from_millis;
using rule::to_millis;

std::string text_of(std::int64_t value) {
    return std::to_string(value);
}

// What of a batch's numbers the rule needs for a call; each a list of numbers, each once.
struct Needs {
    std::vector<std::string> sends, suppression, hold, undeliverable;
};

void add_once(std::vector<std::string>& list, std::unordered_set<std::string>& seen, const std::string& wa_id) {
    if (seen.insert(wa_id).second) {
        list.push_back(wa_id);
    }
}

// Appends to `statements` the reads of `needs`, in the order read_facts() takes their answers.
// `sends_sql` reads the numbers' sends (PgLedger::k_number_sends_sql).
void ask_facts(const std::string& account, const Needs& needs, const char* sends_sql,
               std::vector<pg::Statement>& statements) {
    statements.push_back({sends_sql, {account, pg::text_array(needs.sends)}});
    statements.push_back({"SELECT wa_id FROM wacamp.suppressions WHERE account = $1 AND wa_id = ANY ($2::text[])",
                          {account, pg::text_array(needs.suppression)}});
    statements.push_back(
        {"SELECT wa_id, until FROM wacamp.marketing_holds WHERE account = $1 AND wa_id = ANY ($2::text[])",
         {account, pg::text_array(needs.hold)}});
    statements.push_back(
        {"SELECT wa_id, answers FROM wacamp.undeliverable WHERE account = $1 AND wa_id = ANY ($2::text[])",
         {account, pg::text_array(needs.undeliverable)}});
}

// Reads the answers of ask_facts(), from `answers[first]` on.
rule::Numbers read_facts(const std::vector<pg::Rows>& answers, std::size_t first) {
    rule::Numbers numbers;
    const pg::Rows& sends = answers.at(first);
    for (int i = 0; i < sends.size(); ++i) {
        const std::int64_t at = sends.integer(i, 3);
        const std::int64_t mark = sends.null(i, 6) ? 0 : sends.integer(i, 6);
        numbers[sends.view(i, 0)].sends.push_back(
            rule::StoredSend{sends.view(i, 1), sends.integer(i, 2), from_millis(at),
                             rule::state_of(sends.view(i, 4), at, mark), sends.integer(i, 5)});
    }
    const pg::Rows& suppressed = answers.at(first + 1);
    for (int i = 0; i < suppressed.size(); ++i) {
        numbers[suppressed.view(i, 0)].suppressed = true;
    }
    const pg::Rows& holds = answers.at(first + 2);
    for (int i = 0; i < holds.size(); ++i) {
        numbers[holds.view(i, 0)].hold_until = from_millis(holds.integer(i, 1));
    }
    const pg::Rows& undeliverable = answers.at(first + 3);
    for (int i = 0; i < undeliverable.size(); ++i) {
        numbers[undeliverable.view(i, 0)].undeliverable = undeliverable.integer(i, 1);
    }
    return numbers;
}

constexpr std::size_t k_fact_reads = 4;

// The stored count (horizon, numbers; no row when never counted), and with `horizon` the
// `crossed` of rule::moved(stored, horizon, crossed) as a third column: one statement. Each
// number's latest send is a scalar subquery (one step back in sends_by_number), not NOT EXISTS:
// the planner cannot see the horizons' values, guesses a wide range, and at 10 million sends in
// the day chose a hash anti-join over every send (100 ms a call: 50 messages/s at 1,000/s).
pg::Statement ask_day(const std::string& account, std::optional<util::TimePoint> horizon) {
    if (!horizon) {
        return {"SELECT horizon, numbers, 0 FROM wacamp.day_counts WHERE account = $1", {account}};
    }
    return {
        "SELECT d.horizon, d.numbers, CASE WHEN d.horizon IS NULL THEN "
        "(SELECT count(DISTINCT s.wa_id) FROM wacamp.sends s WHERE s.account = $1 AND s.at > $2) ELSE "
        "(SELECT count(DISTINCT s.wa_id) FROM wacamp.sends s WHERE s.account = $1 "
        "AND s.at > least($2, d.horizon) AND s.at <= greatest($2, d.horizon) AND "
        "(SELECT max(t.at) FROM wacamp.sends t WHERE t.account = $1 AND t.wa_id = s.wa_id) "
        "<= greatest($2, d.horizon)) END "
        "FROM (SELECT 1) AS one LEFT JOIN wacamp.day_counts d ON d.account = $1",
        {account, text_of(to_millis(*horizon))}};
}

// The stored count of ask_day()'s answer, and its `crossed`.
std::pair<std::optional<rule::DayCount>, std::int64_t> read_day(const pg::Rows& rows) {
    if (rows.size() == 0) {
        return {std::nullopt, 0};
    }
    std::optional<rule::DayCount> stored;
    if (!rows.null(0, 0)) {
        stored = rule::DayCount{from_millis(rows.integer(0, 0)), rows.integer(0, 1)};
    }
    return {stored, rows.integer(0, 2)};
}

pg::Statement write_day(const std::string& account, const rule::DayCount& count) {
    return {
        "INSERT INTO wacamp.day_counts (account, horizon, numbers) VALUES ($1, $2, $3) "
        "ON CONFLICT (account) DO UPDATE SET horizon = excluded.horizon, numbers = excluded.numbers",
        {account, text_of(to_millis(count.horizon)), text_of(count.numbers)}};
}

// Sends as three arrays: campaigns ($2), rows ($3), numbers ($4).
std::vector<pg::Param> send_arrays(const std::string& account, const std::vector<const Send*>& sends) {
    std::vector<std::string> campaigns, wa_ids;
    std::vector<std::int64_t> rows;
    for (const Send* send : sends) {
        campaigns.push_back(send->campaign);
        rows.push_back(send->row);
        wa_ids.push_back(send->wa_id);
    }
    return {account, pg::text_array(campaigns), pg::integer_array(rows), pg::text_array(wa_ids)};
}

// Sends' attempts, an array ($5 beside send_arrays).
pg::Param attempt_array(const std::vector<const Send*>& sends) {
    std::vector<std::int64_t> attempts;
    attempts.reserve(sends.size());
    for (const Send* send : sends) {
        attempts.push_back(send->attempt);
    }
    return pg::integer_array(attempts);
}

// The account's lock, held to the end of the transaction (pg_schema::k_lock_space).
const std::string k_lock_sql =
    "SELECT pg_advisory_xact_lock(" + std::to_string(pg_schema::k_lock_space) + ", hashtext($1))";

// The last of `items` for each number, in the order of their first: one statement may not
// write a row twice.
template <typename T>
std::vector<T> last_per_number(const std::vector<T>& items) {
    std::unordered_map<std::string, std::size_t> at;
    std::vector<T> out;
    for (const auto& item : items) {
        const auto [found, added] = at.try_emplace(item.wa_id, out.size());
        if (added) {
            out.push_back(item);
        } else {
            out[found->second] = item;
        }
    }
    return out;
}

// The statements a reservation's second round trip begins with: the read of per_day's room
// when a refusal needs it, then (`commit`) the grants' rows and the count. Each row once: one
// statement may not write a row twice.
std::vector<pg::Statement> reserve_writes(const std::string& account, const ReservationRequest& request,
                                          const rule::ReserveDecision& decision, bool commit) {
    std::vector<pg::Statement> out;
    if (decision.day_room_offset) {
        // The day's sends oldest first, each number's latest only (one per number, ties
        // included), up to the one wanted: no scan of the whole day.
        out.push_back(
            {"SELECT s.at FROM wacamp.sends s WHERE s.account = $1 AND s.at > $2 AND NOT EXISTS "
             "(SELECT 1 FROM wacamp.sends t WHERE t.account = $1 AND t.wa_id = s.wa_id "
             "AND t.at > s.at) GROUP BY s.at, s.wa_id ORDER BY s.at, s.wa_id LIMIT 1 OFFSET $3",
             {account, text_of(to_millis(rule::day_horizon(request.now))), text_of(*decision.day_room_offset)}});
    }
    if (commit && !decision.written.empty()) {
        std::vector<const Send*> written;
        std::unordered_set<std::string> keys;
        for (const std::size_t index : decision.written) {
            const Send& send = request.sends[index];
            if (keys.insert(send.campaign + '\n' + std::to_string(send.row) + '\n' + send.wa_id).second) {
                written.push_back(&send);
            }
        }
        auto params = send_arrays(account, written);
        params.push_back(attempt_array(written));
        params.emplace_back(text_of(to_millis(request.now)));
        params.emplace_back(text_of(request.run));
        out.push_back(
            {"INSERT INTO wacamp.sends AS s (account, campaign, csv_row, wa_id, at, state, attempt, run) "
             "SELECT $1, x.campaign, x.csv_row, x.wa_id, $6, 'reserved', x.attempt, $7 FROM unnest($2::text[], "
             "$3::bigint[], $4::text[], $5::bigint[]) AS x (campaign, csv_row, wa_id, attempt) "
             "ON CONFLICT (account, campaign, csv_row, wa_id) DO UPDATE SET at = excluded.at, "
             "attempt = excluded.attempt, run = excluded.run WHERE s.state = 'reserved'",
             std::move(params)});
    }
    if (commit && decision.day) {
        out.push_back(write_day(account, *decision.day));
    }
    return out;
}

// The writes of a batch of answers to its sends' rows: the confirmed, the added (sent, at their
// time) and the released, into `out`.
void send_writes(const std::string& account, const rule::RecordDecision& decision, std::vector<pg::Statement>& out) {
    if (!decision.confirmed.empty()) {
        out.push_back(
            {"UPDATE wacamp.sends s SET state = 'sent' FROM unnest($2::text[], $3::bigint[], $4::text[]) "
             "AS x (campaign, csv_row, wa_id) WHERE s.account = $1 AND s.campaign = x.campaign "
             "AND s.csv_row = x.csv_row AND s.wa_id = x.wa_id",
             send_arrays(account, decision.confirmed)});
    }
    // The batch's rows are always read here (RecordFacts::rows_read): decision.marked is empty.
    if (!decision.added.empty()) {
        std::vector<const Send*> sends;
        std::vector<std::int64_t> ats;
        for (const auto& [send, at] : decision.added) {
            sends.push_back(send);
            ats.push_back(to_millis(at));
        }
        auto params = send_arrays(account, sends);
        params.emplace_back(pg::integer_array(ats));
        params.push_back(attempt_array(sends));
        out.push_back(
            {"INSERT INTO wacamp.sends (account, campaign, csv_row, wa_id, at, state, attempt) "
             "SELECT $1, x.campaign, x.csv_row, x.wa_id, x.at, 'sent', x.attempt FROM unnest($2::text[], "
             "$3::bigint[], $4::text[], $5::bigint[], $6::bigint[]) AS x (campaign, csv_row, wa_id, at, attempt)",
             std::move(params)});
    }
    // Each send's row while reserved for its request (rule::same_request), the sends as arrays
    // x ($2 to $5): released (deleted), or disowned (no run's any more).
    auto own_requests = [&](const char* head, const std::vector<const Send*>& sends) {
        if (sends.empty()) {
            return;
        }
        auto params = send_arrays(account, sends);
        params.push_back(attempt_array(sends));
        out.push_back(
            {std::string(head) +
                 " unnest($2::text[], $3::bigint[], $4::text[], $5::bigint[]) AS x (campaign, csv_row, wa_id, "
                 "attempt) WHERE s.account = $1 AND s.campaign = x.campaign AND s.csv_row = x.csv_row "
                 "AND s.wa_id = x.wa_id AND s.state = 'reserved' "
                 "AND (s.attempt = 0 OR x.attempt = 0 OR s.attempt = x.attempt)",
             std::move(params)});
    };
    own_requests("DELETE FROM wacamp.sends s USING", decision.released);
    own_requests("UPDATE wacamp.sends s SET run = 0 FROM", decision.disowned);
}

}  // namespace

template <typename T, typename F>
util::Result<T> PgLedger::transaction(const char* what, F&& body) {
    return guarded<T>(what, [&] {
        try {
            return body();
        } catch (const std::exception&) {
            // A statement failed inside the transaction: it is given up, whatever ran of it.
            if (!m_db->lost()) {
                try {
                    m_db->exec("ROLLBACK");
                } catch (const pg::Failure&) {
                    // The failure above is the one to tell.
                }
            }
            throw;
        }
    });
}

util::Result<std::vector<Reservation>> PgLedger::reserve(const ReservationRequest& request) {
    const bool commit = request.apply == Apply::commit;
    if (m_empty) {
        if (commit) {
            return read_only("reserving sends");
        }
        rule::ReserveDecision decision = rule::decide(request, rule::ReserveFacts{});
        rule::settle_day_room(decision, request.now, std::nullopt);
        return std::move(decision.answers);
    }
    return transaction<std::vector<Reservation>>("reserving sends", [&] {
        Needs needs;
        std::unordered_set<std::string> seen;
        for (const auto& send : request.sends) {
            add_once(needs.sends, seen, send.wa_id);
        }
        needs.suppression = needs.sends;
        if (request.marketing_holds == MarketingHolds::apply) {
            needs.hold = needs.sends;
        }
        const util::TimePoint horizon = rule::day_horizon(request.now);
        // Every runner of the account decides one batch at a time: two deciding at once could
        // each see room for the last slot.
        std::vector<pg::Statement> first{{"BEGIN", {}}};
        if (commit) {
            first.push_back({k_lock_sql, {m_account}});
        }
        const std::size_t facts_at = first.size();
        ask_facts(m_account, needs, sends_sql(), first);
        const bool day_kept = m_schema >= 4;  // an older schema a read-only open left has no count
        if (day_kept) {
            first.push_back(ask_day(m_account, request.limits.per_day ? std::optional(horizon) : std::nullopt));
        } else {
            first.push_back(
                {"SELECT NULL::bigint, NULL::bigint, count(DISTINCT wa_id) FROM wacamp.sends "
                 "WHERE account = $1 AND at > $2",
                 {m_account, text_of(to_millis(horizon))}});
        }
        const auto answers = m_db->pipeline(first);
        rule::ReserveFacts facts;
        facts.numbers = read_facts(answers, facts_at);
        std::tie(facts.stored_day, facts.day_crossed) = read_day(answers.back());
        rule::ReserveDecision decision = rule::decide(request, facts);

        std::vector<pg::Statement> second = reserve_writes(m_account, request, decision, commit);
        second.push_back({"COMMIT", {}});
        const auto settled = m_db->pipeline(second);
        if (decision.day_room_offset) {
            const pg::Rows& room = settled.front();
            rule::settle_day_room(decision, request.now,
                                  room.size() > 0 ? std::optional(from_millis(room.integer(0, 0))) : std::nullopt);
        }
        return std::move(decision.answers);
    });
}

std::vector<pg::Statement> PgLedger::writes_of(const rule::RecordDecision& decision, const ResultBatch& batch) const {
    std::vector<pg::Statement> out;
    send_writes(m_account, decision, out);
    if (!decision.undeliverable.empty()) {
        std::vector<std::string> wa_ids;
        std::vector<std::int64_t> answers, ats;
        for (const auto& counted : last_per_number(decision.undeliverable)) {
            wa_ids.push_back(counted.wa_id);
            answers.push_back(counted.answers);
            ats.push_back(to_millis(counted.last_at));
        }
        out.push_back(
            {"INSERT INTO wacamp.undeliverable (account, wa_id, answers, last_at) SELECT $1, x.wa_id, "
             "x.answers, x.last_at FROM unnest($2::text[], $3::bigint[], $4::bigint[]) "
             "AS x (wa_id, answers, last_at) ON CONFLICT (account, wa_id) DO UPDATE SET "
             "answers = excluded.answers, last_at = excluded.last_at",
             {m_account, pg::text_array(wa_ids), pg::integer_array(answers), pg::integer_array(ats)}});
    }
    if (!decision.suppressed.empty()) {
        const SuppressionArrays listed = arrays_of(decision.suppressed);
        out.push_back(
            {"INSERT INTO wacamp.suppressions (account, wa_id, reason, since, source) "
             "SELECT $1, e.wa_id, e.reason, e.since, e.source "
             "FROM unnest($2::text[], $3::text[], $4::bigint[], $5::text[]) AS e (wa_id, reason, since, "
             "source) ON CONFLICT (account, wa_id) DO NOTHING",
             {m_account, listed.wa_ids, listed.reasons, listed.since, listed.sources}});
    }
    if (!decision.holds.empty()) {
        std::vector<std::string> wa_ids;
        std::vector<std::int64_t> untils;
        for (const auto& held : last_per_number(decision.holds)) {
            wa_ids.push_back(held.wa_id);
            untils.push_back(to_millis(held.until));
        }
        out.push_back(
            {"INSERT INTO wacamp.marketing_holds (account, wa_id, until) SELECT $1, x.wa_id, x.until "
             "FROM unnest($2::text[], $3::bigint[]) AS x (wa_id, until) "
             "ON CONFLICT (account, wa_id) DO UPDATE SET until = excluded.until",
             {m_account, pg::text_array(wa_ids), pg::integer_array(untils)}});
    }
    if (batch.fold) {
        out.push_back(
            {"INSERT INTO wacamp.folds (account, campaign, covered) VALUES ($1, $2, $3) "
             "ON CONFLICT (account, campaign) DO UPDATE SET covered = excluded.covered",
             {m_account, batch.fold->campaign, text_of(static_cast<std::int64_t>(batch.fold->value))}});
    }
    if (batch.answered) {
        out.push_back({"UPDATE wacamp.runs SET answered_before = $3 WHERE id = $2 AND account = $1",
                       {m_account, text_of(batch.answered->run), text_of(to_millis(batch.answered->before))}});
    }
    if (decision.day) {
        out.push_back(write_day(m_account, *decision.day));
    }
    return out;
}

util::Result<Recorded> PgLedger::record(const ResultBatch& batch) {
    if (m_empty) {
        return read_only("recording answers");
    }
    return transaction<Recorded>("recording answers", [&] {
        Needs needs;
        std::unordered_set<std::string> sends_seen, suppression_seen, hold_seen, undeliverable_seen;
        for (const auto* sends : {&batch.delivered, &batch.not_delivered, &batch.ambiguous}) {
            for (const auto& send : *sends) {
                add_once(needs.sends, sends_seen, send.wa_id);
            }
        }
        for (const auto& answer : batch.undeliverable) {
            add_once(needs.undeliverable, undeliverable_seen, answer.wa_id);
            add_once(needs.suppression, suppression_seen, answer.wa_id);
        }
        for (const auto& entry : batch.suppress) {
            add_once(needs.suppression, suppression_seen, entry.wa_id);
        }
        for (const auto& answer : batch.marketing_limited) {
            add_once(needs.hold, hold_seen, answer.wa_id);
        }
        // A delivered send the ledger missed is written here: under the lock, as a reservation is.
        std::vector<pg::Statement> first{{"BEGIN", {}}, {k_lock_sql, {m_account}}};
        ask_facts(m_account, needs, sends_sql(), first);
        first.push_back(ask_day(m_account, std::nullopt));
        const auto answers = m_db->pipeline(first);
        rule::RecordFacts facts;  // the batch's rows always read (rows_read): it costs no round trip
        facts.numbers = read_facts(answers, 2);
        facts.stored_day = read_day(answers.at(2 + k_fact_reads)).first;
        const rule::RecordDecision decision = rule::decide(batch, std::move(facts));
        std::vector<pg::Statement> second = writes_of(decision, batch);
        second.push_back({"COMMIT", {}});
        m_db->pipeline(second);
        Recorded recorded;
        for (const auto& entry : decision.suppressed) {
            recorded.suppressed.push_back(entry.wa_id);
        }
        return recorded;
    });
}

util::Result<std::int64_t> PgLedger::begin_run(const std::string& campaign, util::TimePoint now) {
    if (m_empty) {
        return read_only("starting a run");
    }
    return guarded<std::int64_t>("starting a run", [&] {
        const auto rows = m_db->query(
            "INSERT INTO wacamp.runs (account, campaign, started, answered_before) VALUES ($1, $2, $3, 0) RETURNING id",
            {m_account, campaign, text_of(to_millis(now))});
        return rows.integer(0, 0);
    });
}

util::Result<std::size_t> PgLedger::prune(util::TimePoint before) {
    if (m_empty) {
        return read_only("pruning");
    }
    return transaction<std::size_t>("pruning", [&] {
        // The count's horizon first moves past the sends that go, when behind, so that they count
        // for nothing: its `crossed` is read with the count, for the horizon it may move to, and
        // only when it is behind (k_prune_day_sql).
        const util::TimePoint target = rule::stored(before) - std::chrono::milliseconds(1);
        const auto answers = m_db->pipeline(
            {{"BEGIN", {}}, {k_lock_sql, {m_account}}, {k_prune_day_sql, {m_account, text_of(to_millis(target))}}});
        const auto [stored_day, crossed] = read_day(answers.at(2));
        std::vector<pg::Statement> second;
        if (const auto horizon = rule::prune_horizon(stored_day, before)) {
            second.push_back(write_day(m_account, rule::moved(stored_day, *horizon, crossed)));
        }
        const std::string millis = text_of(to_millis(before));
        second.push_back(
            {"WITH gone AS (DELETE FROM wacamp.sends WHERE account = $1 AND at < $2 RETURNING 1) "
             "SELECT count(*) FROM gone",
             {m_account, millis}});
        second.push_back({"DELETE FROM wacamp.marketing_holds WHERE account = $1 AND until < $2", {m_account, millis}});
        second.push_back({"COMMIT", {}});
        const auto done = m_db->pipeline(second);
        return static_cast<std::size_t>(done.at(done.size() - 3).integer(0, 0));
    });
}

}  // namespace account
