// The SQLite ledger's reservations and the answers that confirm or release them: the facts of a
// batch's numbers read under the write lock, account::rule's decision written back, in one
// transaction.
#include <algorithm>
#include <optional>
#include <unordered_map>
#include <vector>

#include "account/rule.hpp"
#include "account/sqlite_day_count.hpp"
#include "account/sqlite_ledger.hpp"
#include "account/sqlite_runs.hpp"

namespace account {

namespace {

// The ids of an account's campaigns in `campaigns`, looked up once per call and name. Not kept
// from call to call: an id added in a transaction that was then rolled back could be given to
// another campaign by the next writer.
class CampaignIds {
public:
    static constexpr std::int64_t k_none = -1;  // not in the ledger: no send names it

    CampaignIds(sqlite::Database& db, const std::string& account) : m_db(db), m_account(account) {}

    // The campaign's id, or k_none.
    std::int64_t find(const std::string& name) {
        const auto known = m_ids.find(name);
        if (known != m_ids.end()) {
            return known->second;
        }
        sqlite::Statement query(m_db, "SELECT id FROM campaigns WHERE account = ?9 AND name = ?1");
        query.bind(1, name).bind(k_account, m_account);
        const std::int64_t id = query.step() ? query.integer(0) : k_none;
        if (id != k_none) {
            m_ids.emplace(name, id);
            m_names.emplace(id, name);
        }
        return id;
    }

    // The campaign's id, added first when missing (in the caller's write transaction).
    std::int64_t get(const std::string& name) {
        const std::int64_t id = find(name);
        if (id != k_none) {
            return id;
        }
        sqlite::Statement add(m_db, "INSERT INTO campaigns (account, name) VALUES (?9, ?1) RETURNING id");
        add.bind(1, name).bind(k_account, m_account);
        if (!add.step()) {
            throw sqlite::Failure("no id for campaign " + name);
        }
        const std::int64_t added = add.integer(0);
        add.run();
        m_ids.emplace(name, added);
        m_names.emplace(added, name);
        return added;
    }

    // The name of a campaign found before; "" for another.
    const std::string& name(std::int64_t id) const {
        static const std::string k_other;
        const auto found = m_names.find(id);
        return found == m_names.end() ? k_other : found->second;
    }

private:
    sqlite::Database& m_db;
    const std::string& m_account;
    std::unordered_map<std::string, std::int64_t> m_ids;
    std::unordered_map<std::int64_t, std::string> m_names;
};

// What of a number the rule needs for a call.
enum Need : unsigned { k_sends = 1, k_suppression = 2, k_hold = 4, k_undeliverable = 8 };

// Reads the facts of numbers, one indexed lookup per fact and number (SQLite is in the process:
// a lookup costs a few hundred instructions, no round trip).
class FactsReader {
public:
    FactsReader(sqlite::Database& db, const std::string& account, const CampaignIds& campaigns)
        : m_campaigns(campaigns),
          m_marks(db, account),
          m_sends(db, SqliteLedger::k_number_sends_sql),
          m_suppressed(db, "SELECT 1 FROM suppressions WHERE account = ?9 AND wa_id = ?1"),
          m_hold(db, "SELECT until FROM marketing_holds WHERE account = ?9 AND wa_id = ?1"),
          m_undeliverable(db, "SELECT answers FROM undeliverable WHERE account = ?9 AND wa_id = ?1"),
          m_row(db,
                "SELECT at, state, attempt, run FROM sends WHERE account = ?9 AND campaign_id = ?1 AND csv_row = ?2 "
                "AND wa_id = ?3"),
          m_range(db,
                  "SELECT csv_row, wa_id, at, state, attempt, run FROM sends WHERE account = ?9 AND campaign_id = ?1 "
                  "AND csv_row BETWEEN ?2 AND ?3") {
        for (auto* statement : {&m_sends, &m_suppressed, &m_hold, &m_undeliverable, &m_row, &m_range}) {
            statement->bind(k_account, account);
        }
    }

    // Reads what `need` says of `wa_id` into `out`, once per number and call.
    void read(const std::string& wa_id, unsigned need, rule::Numbers& out) {
        auto [entry, added] = m_read.try_emplace(wa_id, 0U);
        need &= ~entry->second;
        entry->second |= need;
        rule::NumberFacts& number = out[wa_id];
        if ((need & k_sends) != 0U) {
            number.sends.clear();  // its own rows, when read first, are among them
            m_sends.bind(1, wa_id);
            while (m_sends.step()) {
                number.sends.push_back(rule::StoredSend{
                    m_campaigns.name(m_sends.integer(0)), m_sends.integer(1), from_millis(m_sends.integer(2)),
                    m_marks.state(m_sends.text(3), m_sends.integer(2), m_sends.integer(5)), m_sends.integer(4)});
            }
            m_sends.rewind();
        }
        if ((need & k_suppression) != 0U) {
            m_suppressed.bind(1, wa_id);
            number.suppressed = m_suppressed.step();
            m_suppressed.rewind();
        }
        if ((need & k_hold) != 0U) {
            m_hold.bind(1, wa_id);
            if (m_hold.step()) {
                number.hold_until = from_millis(m_hold.integer(0));
            }
            m_hold.rewind();
        }
        if ((need & k_undeliverable) != 0U) {
            m_undeliverable.bind(1, wa_id);
            number.undeliverable = m_undeliverable.step() ? m_undeliverable.integer(0) : 0;
            m_undeliverable.rewind();
        }
    }

    // Reads `send`'s own row into `out` (by the table's key), unless every send of its number
    // was read; returns the row's state, none when the ledger does not hold it.
    std::optional<SendState> read_row(const Send& send, std::int64_t campaign_id, rule::Numbers& out) {
        rule::NumberFacts& number = out[send.wa_id];
        auto own = [&]() -> const rule::StoredSend* {
            for (const auto& stored_send : number.sends) {
                if (stored_send.row == send.row && stored_send.campaign == send.campaign) {
                    return &stored_send;
                }
            }
            return nullptr;
        };
        if (const auto* found = own()) {
            return found->state;
        }
        if ((m_read[send.wa_id] & k_sends) != 0U) {
            return std::nullopt;  // every send of the number was read: the row is not there
        }
        m_row.bind(1, campaign_id).bind(2, send.row).bind(3, send.wa_id);
        std::optional<SendState> state;
        if (m_row.step()) {
            state = m_marks.state(m_row.text(1), m_row.integer(0), m_row.integer(3));
            number.sends.push_back(
                rule::StoredSend{send.campaign, send.row, from_millis(m_row.integer(0)), *state, m_row.integer(2)});
        }
        m_row.rewind();
        return state;
    }

    // Reads the own rows of `sends`, all of campaign `campaign_id`, into `out`: one read of their
    // range of rows when they lie close together (a turn's sends nearly always do), else one
    // lookup each by the key.
    void read_rows(const std::vector<const Send*>& sends, std::int64_t campaign_id, rule::Numbers& out) {
        std::int64_t first = sends.front()->row;
        std::int64_t last = first;
        for (const Send* send : sends) {
            first = std::min(first, send->row);
            last = std::max(last, send->row);
        }
        if (last - first >= 4 * static_cast<std::int64_t>(sends.size()) + 16) {
            for (const Send* send : sends) {
                read_row(*send, campaign_id, out);
            }
            return;
        }
        std::unordered_multimap<std::int64_t, const Send*> by_row;
        for (const Send* send : sends) {
            by_row.emplace(send->row, send);
        }
        m_range.bind(1, campaign_id).bind(2, first).bind(3, last);
        while (m_range.step()) {
            // The batch's send of this row and number, if any (a row held under another number
            // was that number's then); a row asked for twice is one row.
            const auto [from, to] = by_row.equal_range(m_range.integer(0));
            const std::string wa_id = m_range.text(1);
            const auto asked = std::find_if(from, to, [&](const auto& entry) { return wa_id == entry.second->wa_id; });
            if (asked == to) {
                continue;
            }
            const Send& send = *asked->second;
            out[send.wa_id].sends.push_back(rule::StoredSend{
                send.campaign, send.row, from_millis(m_range.integer(2)),
                m_marks.state(m_range.text(3), m_range.integer(2), m_range.integer(5)), m_range.integer(4)});
        }
        m_range.rewind();
    }

private:
    const CampaignIds& m_campaigns;
    RunMarks m_marks;
    sqlite::Statement m_sends;
    sqlite::Statement m_suppressed;
    sqlite::Statement m_hold;
    sqlite::Statement m_undeliverable;
    sqlite::Statement m_row;
    sqlite::Statement m_range;
    std::unordered_map<std::string_view, unsigned> m_read;  // views of the batch's numbers
};

}  // namespace

util::Result<std::vector<Reservation>> SqliteLedger::reserve(const ReservationRequest& request) {
    return guarded<std::vector<Reservation>>("reserving sends", [&] {
        const bool commit = request.apply == Apply::commit;
        // The write lock from the start: two runners deciding at once could each see room for
        // the last slot.
        sqlite::Transaction transaction(m_db,
                                        commit ? sqlite::Transaction::Kind::write : sqlite::Transaction::Kind::read);
        CampaignIds campaigns(m_db, m_account);
        for (const auto& send : request.sends) {
            campaigns.find(send.campaign);
        }
        rule::ReserveFacts facts;
        facts.stored_day = sqlite_day::read(m_db, m_account);
        const rule::ReserveNeeds needs = rule::needs(request, facts.stored_day);
        const unsigned need = k_suppression | (needs.sends ? k_sends : 0U) | (needs.holds ? k_hold : 0U);
        FactsReader reader(m_db, m_account, campaigns);
        // Without a limit that reads every send of the numbers, each send's own row only: by
        // campaign (none for a campaign the ledger lacks), its rows in one read.
        std::unordered_map<std::int64_t, std::vector<const Send*>> own_rows;
        for (const auto& send : request.sends) {
            reader.read(send.wa_id, need, facts.numbers);
            if (!needs.sends) {
                if (const std::int64_t id = campaigns.find(send.campaign); id != CampaignIds::k_none) {
                    own_rows[id].push_back(&send);
                }
            }
        }
        for (const auto& [id, sends] : own_rows) {
            reader.read_rows(sends, id, facts.numbers);
        }
        if (request.limits.per_day) {
            facts.day_crossed = sqlite_day::crossed(m_db, m_account, facts.stored_day, rule::day_horizon(request.now));
        }
        rule::ReserveDecision decision = rule::decide(request, facts);
        if (decision.day_room_offset) {
            const auto oldest =
                sqlite_day::room(m_db, m_account, rule::day_horizon(request.now), *decision.day_room_offset);
            rule::settle_day_room(decision, request.now, oldest);
        }
        if (!commit) {
            return std::move(decision.answers);
        }
        sqlite::Statement insert(m_db,
                                 "INSERT INTO sends (account, campaign_id, csv_row, wa_id, at, state, attempt, run) "
                                 "VALUES (?9, ?1, ?2, ?3, ?4, 'reserved', ?5, ?6) "
                                 "ON CONFLICT (account, campaign_id, csv_row, wa_id) DO UPDATE SET at = excluded.at, "
                                 "attempt = excluded.attempt, run = excluded.run WHERE state = 'reserved'");
        for (const std::size_t index : decision.written) {
            const Send& send = request.sends[index];
            insert.bind(1, campaigns.get(send.campaign)).bind(2, send.row).bind(3, send.wa_id);
            insert.bind(4, to_millis(request.now)).bind(5, send.attempt).bind(6, request.run);
            insert.bind(k_account, m_account).run();
        }
        if (decision.day) {
            sqlite_day::write(m_db, m_account, *decision.day);
        }
        transaction.commit();
        return std::move(decision.answers);
    });
}

void SqliteLedger::apply(const rule::RecordDecision& decision, const ResultBatch& batch) {
    CampaignIds campaigns(m_db, m_account);
    // Binds a send's row key: its campaign's id (?1, looked up, or added when `add`), row, number.
    auto row_key = [&](sqlite::Statement& statement, const Send& send, bool add) -> sqlite::Statement& {
        const std::int64_t id = add ? campaigns.get(send.campaign) : campaigns.find(send.campaign);
        return statement.bind(1, id).bind(2, send.row).bind(3, send.wa_id).bind(k_account, m_account);
    };
    sqlite::Statement confirm(m_db,
                              "UPDATE sends SET state = 'sent' WHERE account = ?9 AND campaign_id = ?1 "
                              "AND csv_row = ?2 AND wa_id = ?3");
    for (const Send* send : decision.confirmed) {
        row_key(confirm, *send, false).run();
    }
    sqlite::Statement insert(m_db,
                             "INSERT INTO sends (account, campaign_id, csv_row, wa_id, at, state, attempt) "
                             "VALUES (?9, ?1, ?2, ?3, ?4, 'sent', ?5)");
    for (const auto& [send, at] : decision.added) {
        row_key(insert, *send, true).bind(4, to_millis(at)).bind(5, send->attempt).run();
    }
    // Marked sent: nearly every row is there (reserved by the run that answers), and marking it is
    // one write by the key; only a row the ledger does not hold is added, at its time.
    for (const auto& [send, at] : decision.marked) {
        row_key(confirm, *send, false).run();
        if (m_db.changes() == 0) {
            row_key(insert, *send, true).bind(4, to_millis(at)).bind(5, send->attempt).run();
        }
    }
    // Each send's row while reserved for its request (rule::same_request): released (deleted), or
    // disowned (no run's any more).
    auto own_requests = [&](const char* head, const std::vector<const Send*>& sends) {
        if (sends.empty()) {
            return;
        }
        sqlite::Statement statement(
            m_db, (std::string(head) + " WHERE account = ?9 AND campaign_id = ?1 AND csv_row = ?2 AND wa_id = ?3 "
                                       "AND state = 'reserved' AND (attempt = 0 OR ?4 = 0 OR attempt = ?4)")
                      .c_str());
        for (const Send* send : sends) {
            row_key(statement, *send, false).bind(4, send->attempt).run();
        }
    };
    own_requests("DELETE FROM sends", decision.released);
    own_requests("UPDATE sends SET run = 0", decision.disowned);
    sqlite::Statement count(m_db,
                            "INSERT INTO undeliverable (account, wa_id, answers, last_at) VALUES (?9, ?1, ?2, ?3) "
                            "ON CONFLICT (account, wa_id) DO UPDATE SET answers = excluded.answers, "
                            "last_at = excluded.last_at");
    for (const auto& counted : decision.undeliverable) {
        count.bind(1, counted.wa_id).bind(2, counted.answers).bind(3, to_millis(counted.last_at));
        count.bind(k_account, m_account).run();
    }
    add_suppressions(decision.suppressed, nullptr);
    sqlite::Statement hold(m_db,
                           "INSERT INTO marketing_holds (account, wa_id, until) VALUES (?9, ?1, ?2) "
                           "ON CONFLICT (account, wa_id) DO UPDATE SET until = excluded.until");
    for (const auto& held : decision.holds) {
        hold.bind(1, held.wa_id).bind(2, to_millis(held.until)).bind(k_account, m_account).run();
    }
    if (batch.fold) {
        sqlite::Statement fold(m_db,
                               "INSERT INTO folds (account, campaign, covered) VALUES (?9, ?1, ?2) "
                               "ON CONFLICT (account, campaign) DO UPDATE SET covered = excluded.covered");
        fold.bind(1, batch.fold->campaign).bind(2, static_cast<std::int64_t>(batch.fold->value));
        fold.bind(k_account, m_account).run();
    }
    if (batch.answered) {
        sqlite::Statement mark(m_db, "UPDATE runs SET answered_before = ?2 WHERE id = ?1 AND account = ?9");
        mark.bind(1, batch.answered->run).bind(2, to_millis(batch.answered->before)).bind(k_account, m_account).run();
    }
    if (decision.day) {
        sqlite_day::write(m_db, m_account, *decision.day);
    }
}

util::Result<Recorded> SqliteLedger::record(const ResultBatch& batch) {
    return guarded<Recorded>("recording answers", [&] {
        sqlite::Transaction transaction(m_db, sqlite::Transaction::Kind::write);
        CampaignIds campaigns(m_db, m_account);
        for (const auto* sends : {&batch.delivered, &batch.not_delivered, &batch.ambiguous}) {
            for (const auto& send : *sends) {
                campaigns.find(send.campaign);
            }
        }
        rule::RecordFacts facts;
        facts.stored_day = sqlite_day::read(m_db, m_account);
        FactsReader reader(m_db, m_account, campaigns);
        // Each row by its key, and every send of its number, only when the day's count needs them.
        facts.rows_read = rule::record_needs_rows(facts.stored_day);
        for (const auto* sends : {&batch.delivered, &batch.not_delivered, &batch.ambiguous}) {
            if (!facts.rows_read) {
                break;
            }
            const bool delivered = sends == &batch.delivered;
            for (const auto& send : *sends) {
                const auto own = reader.read_row(send, campaigns.find(send.campaign), facts.numbers);
                // A reservation left in doubt stays, counting as it did: no window to read.
                if (sends != &batch.ambiguous && rule::record_needs_window(facts.stored_day, delivered, own)) {
                    reader.read(send.wa_id, k_sends, facts.numbers);
                }
            }
        }
        for (const auto& answer : batch.undeliverable) {
            reader.read(answer.wa_id, k_undeliverable | k_suppression, facts.numbers);
        }
        for (const auto& answer : batch.marketing_limited) {
            reader.read(answer.wa_id, k_hold, facts.numbers);
        }
        for (const auto& entry : batch.suppress) {
            reader.read(entry.wa_id, k_suppression, facts.numbers);
        }
        const rule::RecordDecision decision = rule::decide(batch, std::move(facts));
        apply(decision, batch);
        transaction.commit();
        Recorded recorded;
        for (const auto& entry : decision.suppressed) {
            recorded.suppressed.push_back(entry.wa_id);
        }
        return recorded;
    });
}

}  // namespace account
