// The SQLite ledger's suppression list.
#include "account/sqlite_ledger.hpp"

namespace account {

std::size_t SqliteLedger::add_suppressions(const std::vector<Suppression>& entries, std::vector<std::string>* added) {
    // A number already listed keeps its first entry: importing a list again changes nothing.
    sqlite::Statement insert(
        m_db,
        "INSERT INTO suppressions (account, wa_id, reason, since, source) VALUES (?9, ?1, ?2, ?3, ?4) "
        "ON CONFLICT (account, wa_id) DO NOTHING");
    std::size_t count = 0;
    for (const auto& entry : entries) {
        insert.bind(1, entry.wa_id).bind(2, entry.reason).bind(3, to_millis(entry.since)).bind(4, entry.source);
        insert.bind(k_account, m_account).run();
        if (m_db.changes() > 0) {
            ++count;
            if (added != nullptr) {
                added->push_back(entry.wa_id);
            }
        }
    }
    return count;
}

util::Result<std::size_t> SqliteLedger::suppress(const std::vector<Suppression>& entries) {
    return guarded<std::size_t>("adding to the suppression list", [&] {
        sqlite::Transaction transaction(m_db, sqlite::Transaction::Kind::write);
        const std::size_t count = add_suppressions(entries, nullptr);
        transaction.commit();
        return count;
    });
}

util::Result<std::size_t> SqliteLedger::unsuppress(const std::vector<std::string>& wa_ids) {
    return guarded<std::size_t>("removing from the suppression list", [&] {
        sqlite::Transaction transaction(m_db, sqlite::Transaction::Kind::write);
        sqlite::Statement remove(m_db, "DELETE FROM suppressions WHERE account = ?9 AND wa_id = ?1");
        sqlite::Statement forget(m_db, "DELETE FROM undeliverable WHERE account = ?9 AND wa_id = ?1");
        std::size_t count = 0;
        for (const auto& wa_id : wa_ids) {
            remove.bind(1, wa_id).bind(k_account, m_account).run();
            count += static_cast<std::size_t>(m_db.changes());
            forget.bind(1, wa_id).bind(k_account, m_account).run();
        }
        transaction.commit();
        return count;
    });
}

util::Result<std::vector<Suppression>> SqliteLedger::suppressed(const std::vector<std::string>& wa_ids) {
    return guarded<std::vector<Suppression>>("reading the suppression list", [&] {
        sqlite::Transaction transaction(m_db, sqlite::Transaction::Kind::read);
        sqlite::Statement query(m_db,
                                "SELECT reason, since, source FROM suppressions WHERE account = ?9 AND wa_id = ?1");
        std::vector<Suppression> found;
        query.bind(k_account, m_account);
        for (const auto& wa_id : wa_ids) {
            query.bind(1, wa_id);
            if (query.step()) {
                found.push_back(Suppression{wa_id, query.text(0), from_millis(query.integer(1)), query.text(2)});
            }
            query.rewind();
        }
        transaction.commit();
        return found;
    });
}

util::Result<void> SqliteLedger::list_suppressed(const std::function<void(const Suppression&)>& each) {
    return guarded<void>("listing the suppression list", [&] {
        sqlite::Transaction transaction(m_db, sqlite::Transaction::Kind::read);
        sqlite::Statement query(
            m_db, "SELECT wa_id, reason, since, source FROM suppressions WHERE account = ?9 ORDER BY wa_id");
        query.bind(k_account, m_account);
        while (query.step()) {
            each(Suppression{query.text(0), query.text(1), from_millis(query.integer(2)), query.text(3)});
        }
        transaction.commit();
        return util::Result<void>{};
    });
}

}  // namespace account
