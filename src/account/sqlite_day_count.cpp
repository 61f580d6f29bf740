#include "account/sqlite_day_count.hpp"

#include <algorithm>

#include "account/sqlite_ledger.hpp"

namespace account {

namespace {

constexpr std::chrono::hours k_day{24};

}  // namespace

DayCount::DayCount(sqlite::Database& db, const std::string& account)
    : m_db(db),
      m_account(account),
      m_in_window(db, "SELECT 1 FROM sends WHERE account = ?9 AND wa_id = ?1 AND at > ?2 LIMIT 1") {
    sqlite::Statement row(db, "SELECT horizon, numbers FROM day_counts WHERE account = ?9");
    row.bind(k_account, account);
    if (row.step()) {
        m_horizon = row.integer(0);
        m_numbers = row.integer(1);
    }
}

std::int64_t DayCount::move_to(util::TimePoint now) {
    const std::int64_t horizon = to_millis(now - k_day);
    if (m_horizon) {
        move_horizon(horizon);
        return m_numbers;
    }
    // The account's first count (a new ledger, or one kept by an older wacamp).
    sqlite::Statement all(m_db, "SELECT COUNT(DISTINCT wa_id) FROM sends WHERE account = ?9 AND at > ?1");
    all.bind(1, horizon).bind(k_account, m_account);
    m_numbers = all.step() ? all.integer(0) : 0;
    m_horizon = horizon;
    m_changed = true;
    return m_numbers;
}

void DayCount::pass(util::TimePoint before) {
    // A send at `before` - 1 ms or earlier is then at or behind the horizon.
    const std::int64_t horizon = to_millis(before) - 1;
    if (m_horizon && *m_horizon < horizon) {
        move_horizon(horizon);
    }
}

void DayCount::move_horizon(std::int64_t horizon) {
    if (horizon == *m_horizon) {
        return;
    }
    // The numbers whose latest send lies between the two horizons: they leave the window when it
    // moves forward and come back when it moves back.
    const std::int64_t low = std::min(horizon, *m_horizon);
    const std::int64_t high = std::max(horizon, *m_horizon);
    sqlite::Statement crossed(m_db,
                              "SELECT COUNT(DISTINCT s.wa_id) FROM sends s WHERE s.account = ?9 AND s.at > ?1 "
                              "AND s.at <= ?2 AND NOT EXISTS (SELECT 1 FROM sends t WHERE t.account = ?9 "
                              "AND t.wa_id = s.wa_id AND t.at > ?2)");
    crossed.bind(1, low).bind(2, high).bind(k_account, m_account);
    const std::int64_t numbers = crossed.step() ? crossed.integer(0) : 0;
    m_numbers += horizon > *m_horizon ? -numbers : numbers;
    m_horizon = horizon;
    m_changed = true;
}

bool DayCount::counts(const std::string& wa_id) {
    m_in_window.bind(1, wa_id).bind(2, m_horizon.value_or(0)).bind(k_account, m_account);
    const bool found = m_in_window.step();
    m_in_window.reset();
    return found;
}

void DayCount::add(std::int64_t numbers) {
    if (m_horizon && numbers != 0) {
        m_numbers += numbers;
        m_changed = true;
    }
}

std::vector<std::string> DayCount::distinct(const std::vector<std::string>& wa_ids) {
    std::vector<std::string> numbers = wa_ids;
    std::sort(numbers.begin(), numbers.end());
    numbers.erase(std::unique(numbers.begin(), numbers.end()), numbers.end());
    return numbers;
}

std::int64_t DayCount::counted(const std::vector<std::string>& numbers) {
    return std::count_if(numbers.begin(), numbers.end(), [&](const std::string& wa_id) { return counts(wa_id); });
}

void DayCount::store() {
    if (!m_changed || !m_horizon) {
        return;
    }
    sqlite::Statement upsert(
        m_db,
        "INSERT INTO day_counts (account, horizon, numbers) VALUES (?9, ?1, ?2) "
        "ON CONFLICT (account) DO UPDATE SET horizon = excluded.horizon, numbers = excluded.numbers");
    upsert.bind(1, *m_horizon).bind(2, m_numbers).bind(k_account, m_account).run();
    m_changed = false;
}

}  // namespace account
