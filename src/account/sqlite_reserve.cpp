// The SQLite ledger's reservations and the answers that confirm or release them.
#include <optional>
#include <unordered_map>
#include <unordered_set>

#include "account/sqlite_day_count.hpp"
#include "account/sqlite_ledger.hpp"

namespace account {

namespace {

constexpr std::chrono::hours k_day{24};

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
        return added;
    }

private:
    sqlite::Database& m_db;
    const std::string& m_account;
    std::unordered_map<std::string, std::int64_t> m_ids;
};

// The decisions of one reservation batch. The batch's own grants are counted here, not read
// back from the table, so a preview decides exactly as a commit would.
class Reserver {
public:
    Reserver(sqlite::Database& db, const std::string& account, const ReservationRequest& request, DayCount& day,
             CampaignIds& campaigns)
        : m_db(db),
          m_account(account),
          m_request(request),
          m_day(day),
          m_campaigns(campaigns),
          m_sends_of_number(
              db,
              "SELECT at FROM sends WHERE account = ?9 AND wa_id = ?1 AND at > ?2 "
              "AND NOT (campaign_id = ?3 AND csv_row = ?4 AND state = 'reserved') ORDER BY at LIMIT -1 OFFSET ?5"),
          m_suppressed(db, "SELECT 1 FROM suppressions WHERE account = ?9 AND wa_id = ?1"),
          m_held(db, "SELECT until FROM marketing_holds WHERE account = ?9 AND wa_id = ?1 AND until > ?2") {
        if (request.limits.per_day) {
            m_day_numbers_before = day.move_to(request.now);
        }
    }

    Reservation decide(const Send& send) {
        // Checked here, in the transaction that reserves, not only when the row was screened: an
        // opt-out another runner met (or `suppress add`) since then must hold this send back.
        if (suppressed(send.wa_id)) {
            return Reservation{Refusal::suppressed, std::nullopt};
        }
        if (m_request.marketing_holds == MarketingHolds::apply) {
            if (auto until = held_until(send.wa_id)) {
                return Reservation{Refusal::held, until};
            }
        }
        if (m_request.limits.per_recipient) {
            if (auto room = frequency_room(send, *m_request.limits.per_recipient)) {
                return Reservation{Refusal::frequency_cap, room};
            }
        }
        // A number with no send in the window before this batch adds to the day's count, kept
        // whether or not this request caps the day.
        const bool new_today = m_day.kept() && !m_today.contains(send.wa_id) && !m_day.counts(send.wa_id);
        if (m_request.limits.per_day) {
            const std::int64_t numbers = m_day_numbers_before + new_numbers();
            if (new_today && numbers >= *m_request.limits.per_day) {
                return Reservation{Refusal::per_day, day_room(numbers)};
            }
        }
        if (new_today) {
            m_new_numbers.insert(send.wa_id);
        }
        m_today.insert(send.wa_id);
        ++m_granted[send.wa_id];
        return Reservation{Refusal::none, std::nullopt};
    }

    // The numbers the granted sends bring into the day's window.
    std::int64_t new_numbers() const { return static_cast<std::int64_t>(m_new_numbers.size()); }
    // Whether `wa_id` was counted as coming into the window with this batch.
    bool brought_in(const std::string& wa_id) const { return m_new_numbers.contains(wa_id); }

private:
    // When the number may be messaged again, or nullopt when it may be now.
    std::optional<util::TimePoint> frequency_room(const Send& send, const PerRecipient& limit) {
        const util::TimePoint since = m_request.now - limit.per;
        auto bind = [&](std::int64_t offset) {
            m_sends_of_number.bind(1, send.wa_id).bind(2, to_millis(since)).bind(3, m_campaigns.find(send.campaign));
            m_sends_of_number.bind(4, send.row).bind(5, offset).bind(k_account, m_account);
        };
        // This row's own earlier reservation does not count against it; its earlier send that an
        // answer confirmed does, as every other send of the number does.
        std::int64_t stored = 0;
        bind(0);
        while (m_sends_of_number.step()) {
            ++stored;
        }
        m_sends_of_number.reset();
        const std::int64_t total = stored + m_granted[send.wa_id];
        if (total < limit.max) {
            return std::nullopt;
        }
        // Room opens when the (total - max + 1)th oldest send ages out of the window.
        const std::int64_t offset = total - std::max<std::int64_t>(limit.max, 0);
        if (offset >= stored) {
            return m_request.now + limit.per;
        }
        bind(offset);
        const util::TimePoint oldest = m_sends_of_number.step() ? from_millis(m_sends_of_number.integer(0)) : since;
        m_sends_of_number.reset();
        return oldest + limit.per;
    }

    bool suppressed(const std::string& wa_id) {
        m_suppressed.bind(1, wa_id).bind(k_account, m_account);
        const bool found = m_suppressed.step();
        m_suppressed.reset();
        return found;
    }

    std::optional<util::TimePoint> held_until(const std::string& wa_id) {
        m_held.bind(1, wa_id).bind(2, to_millis(m_request.now)).bind(k_account, m_account);
        std::optional<util::TimePoint> until;
        if (m_held.step()) {
            until = from_millis(m_held.integer(0));
        }
        m_held.reset();
        return until;
    }

    // When the count of numbers messaged in the trailing 24 h drops below the cap: when the
    // (numbers - cap + 1)th number, by its latest send, ages out. The same for every refusal of
    // a batch (refused sends add no number): read once.
    util::TimePoint day_room(std::int64_t numbers) {
        const std::int64_t offset = numbers - std::max<std::int64_t>(*m_request.limits.per_day, 0);
        if (offset >= m_day_numbers_before) {
            return m_request.now + k_day;
        }
        if (m_day_room && m_day_room->first == offset) {
            return m_day_room->second;
        }
        // Walks the day's sends oldest first, keeping each number's latest (one per number, ties
        // included), and stops at the one wanted: no scan of the whole day.
        sqlite::Statement oldest(m_db,
                                 "SELECT s.at FROM sends s WHERE s.account = ?9 AND s.at > ?1 AND NOT EXISTS "
                                 "(SELECT 1 FROM sends t WHERE t.account = ?9 AND t.wa_id = s.wa_id AND t.at > s.at) "
                                 "GROUP BY s.at, s.wa_id ORDER BY s.at, s.wa_id LIMIT 1 OFFSET ?2");
        oldest.bind(1, to_millis(m_request.now - k_day)).bind(2, offset).bind(k_account, m_account);
        const util::TimePoint room = (oldest.step() ? from_millis(oldest.integer(0)) : m_request.now) + k_day;
        m_day_room = {offset, room};
        return room;
    }

    sqlite::Database& m_db;
    const std::string& m_account;
    const ReservationRequest& m_request;
    DayCount& m_day;
    CampaignIds& m_campaigns;
    sqlite::Statement m_sends_of_number;
    sqlite::Statement m_suppressed;
    sqlite::Statement m_held;
    std::int64_t m_day_numbers_before = 0;  // numbers messaged in the trailing 24 h, before this batch
    std::unordered_set<std::string> m_today;
    std::unordered_set<std::string> m_new_numbers;  // the numbers this batch adds to them
    std::unordered_map<std::string, std::int64_t> m_granted;
    std::optional<std::pair<std::int64_t, util::TimePoint>> m_day_room;  // offset, room_at
};

}  // namespace

util::Result<std::vector<Reservation>> SqliteLedger::reserve(const ReservationRequest& request) {
    return guarded<std::vector<Reservation>>("reserving sends", [&] {
        const bool commit = request.apply == Apply::commit;
        // The write lock from the start: two runners deciding at once could each see room for
        // the last slot.
        sqlite::Transaction transaction(m_db,
                                        commit ? sqlite::Transaction::Kind::write : sqlite::Transaction::Kind::read);
        DayCount day(m_db, m_account);
        CampaignIds campaigns(m_db, m_account);
        Reserver reserver(m_db, m_account, request, day, campaigns);
        sqlite::Statement insert(m_db,
                                 "INSERT INTO sends (account, campaign_id, csv_row, wa_id, at, state) "
                                 "VALUES (?9, ?1, ?2, ?3, ?4, 'reserved') "
                                 "ON CONFLICT (account, campaign_id, csv_row, wa_id) "
                                 "DO UPDATE SET at = excluded.at WHERE state = 'reserved'");
        std::vector<Reservation> answers;
        answers.reserve(request.sends.size());
        for (const auto& send : request.sends) {
            answers.push_back(reserver.decide(send));
        }
        if (!commit) {
            return answers;
        }
        // Written once every send is decided: the batch's own grants are counted by the
        // Reserver, and one read back from the table would count twice.
        std::vector<std::string> unwritten;  // brought in by the Reserver, but the row was already sent
        for (std::size_t i = 0; i < answers.size(); ++i) {
            if (answers[i].granted()) {
                const Send& send = request.sends[i];
                insert.bind(1, campaigns.get(send.campaign)).bind(2, send.row).bind(3, send.wa_id);
                insert.bind(4, to_millis(request.now)).bind(k_account, m_account).run();
                if (m_db.changes() == 0 && reserver.brought_in(send.wa_id)) {
                    unwritten.push_back(send.wa_id);
                }
            }
        }
        // A row already sent keeps its time, so its number may still have no send in the window.
        std::int64_t brought_in = reserver.new_numbers();
        for (const auto& wa_id : DayCount::distinct(unwritten)) {
            brought_in -= day.counts(wa_id) ? 0 : 1;
        }
        day.add(brought_in);
        day.store();
        transaction.commit();
        return answers;
    });
}

void SqliteLedger::confirm_and_release(const ResultBatch& batch, DayCount& day) {
    CampaignIds campaigns(m_db, m_account);
    // Nearly every delivered send was reserved: marking its row costs one lookup by the key, and
    // leaves the day's count as it is (the row keeps its time). A send without a reservation (one
    // folded in from the log) and a released one may change the count: those are looked up.
    sqlite::Statement confirm(
        m_db,
        "UPDATE sends SET state = 'sent' WHERE account = ?9 AND campaign_id = ?1 AND csv_row = ?2 "
        "AND wa_id = ?3");
    std::vector<const Send*> unreserved;
    for (const auto& send : batch.delivered) {
        confirm.bind(1, campaigns.find(send.campaign)).bind(2, send.row).bind(3, send.wa_id);
        confirm.bind(k_account, m_account).run();
        if (m_db.changes() == 0) {
            unreserved.push_back(&send);
        }
    }
    if (unreserved.empty() && batch.not_delivered.empty()) {
        return;
    }
    std::vector<std::string> changed;
    for (const auto* send : unreserved) {
        changed.push_back(send->wa_id);
    }
    for (const auto& send : batch.not_delivered) {
        changed.push_back(send.wa_id);
    }
    day.change(changed, [&] {
        sqlite::Statement insert(
            m_db,
            "INSERT INTO sends (account, campaign_id, csv_row, wa_id, at, state) "
            "VALUES (?9, ?1, ?2, ?3, ?4, 'sent') ON CONFLICT (account, campaign_id, csv_row, wa_id) "
            "DO UPDATE SET state = 'sent'");
        for (const auto* send : unreserved) {
            insert.bind(1, campaigns.get(send->campaign)).bind(2, send->row).bind(3, send->wa_id);
            insert.bind(4, to_millis(send->at.value_or(batch.now))).bind(k_account, m_account).run();
        }
        // A send once confirmed is never given back.
        sqlite::Statement release(m_db,
                                  "DELETE FROM sends WHERE account = ?9 AND campaign_id = ?1 AND csv_row = ?2 "
                                  "AND wa_id = ?3 AND state = 'reserved'");
        for (const auto& send : batch.not_delivered) {
            release.bind(1, campaigns.find(send.campaign)).bind(2, send.row).bind(3, send.wa_id);
            release.bind(k_account, m_account).run();
        }
    });
}

util::Result<Recorded> SqliteLedger::record(const ResultBatch& batch) {
    return guarded<Recorded>("recording answers", [&] {
        sqlite::Transaction transaction(m_db, sqlite::Transaction::Kind::write);
        Recorded recorded;
        DayCount day(m_db, m_account);
        confirm_and_release(batch, day);
        sqlite::Statement count(
            m_db,
            "INSERT INTO undeliverable (account, wa_id, answers, last_at) VALUES (?9, ?1, 1, ?2) "
            "ON CONFLICT (account, wa_id) DO UPDATE SET answers = answers + 1, last_at = excluded.last_at "
            "RETURNING answers");
        std::vector<Suppression> past_threshold;
        for (const auto& answer : batch.undeliverable) {
            count.bind(1, answer.wa_id).bind(2, to_millis(answer.at)).bind(k_account, m_account);
            const std::int64_t answers = count.step() ? count.integer(0) : 0;
            count.run();
            if (answers >= batch.undeliverable_after) {
                past_threshold.push_back(Suppression{answer.wa_id, "undeliverable", answer.at, batch.source});
            }
        }
        add_suppressions(past_threshold, &recorded.suppressed);
        add_suppressions(batch.suppress, &recorded.suppressed);
        sqlite::Statement hold(m_db,
                               "INSERT INTO marketing_holds (account, wa_id, until) VALUES (?9, ?1, ?2) "
                               "ON CONFLICT (account, wa_id) DO UPDATE SET until = MAX(until, excluded.until)");
        for (const auto& answer : batch.marketing_limited) {
            hold.bind(1, answer.wa_id).bind(2, to_millis(answer.at + k_day)).bind(k_account, m_account).run();
        }
        if (batch.fold) {
            sqlite::Statement fold(m_db,
                                   "INSERT INTO folds (account, campaign, covered) VALUES (?9, ?1, ?2) "
                                   "ON CONFLICT (account, campaign) DO UPDATE SET covered = excluded.covered");
            fold.bind(1, batch.fold->campaign).bind(2, static_cast<std::int64_t>(batch.fold->value));
            fold.bind(k_account, m_account).run();
        }
        day.store();
        transaction.commit();
        return recorded;
    });
}

}  // namespace account
