#pragma once
// The SQLite ledger's running count of the numbers an account messaged in the trailing 24 h
// (docs/ledger.md "The day's count"): a row of `day_counts` says how many numbers have a send
// after its `horizon`. Moving the horizon reads only the sends it passes, and a call that changes
// sends adjusts the count by the numbers it brought in or took out, so no call counts the day.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "account/sqlite.hpp"
#include "util/clock.hpp"

namespace account {

class DayCount {
public:
    // Reads the count of `account`, in the caller's transaction. Throws sqlite::Failure.
    DayCount(sqlite::Database& db, const std::string& account);

    // Moves the window to end at `now` and returns the numbers with a send after `now` - 24 h:
    // reads the sends between the old horizon and the new (a call may be given an earlier
    // `now`: the window moves back), or every send of the window when the account has no count.
    std::int64_t move_to(util::TimePoint now);

    // Before sends made before `before` are deleted: moves the horizon past them when it is
    // behind, so that they count for nothing.
    void pass(util::TimePoint before);

    // Whether the account has a count to keep (a call that changes sends must then adjust it).
    bool kept() const { return m_horizon.has_value(); }

    // Whether `wa_id` has a send after the horizon; only while kept().
    bool counts(const std::string& wa_id);

    // Adds `numbers` that came into the window (the caller found each had no send after the
    // horizon before it wrote one). Nothing while the account has no count.
    void add(std::int64_t numbers);

    // Runs `write`, which changes sends of `wa_ids` only, and adjusts the count by those of them
    // that came into the window or left it. Nothing to adjust while the account has no count.
    template <typename F>
    void change(const std::vector<std::string>& wa_ids, F&& write) {
        if (!m_horizon) {
            write();
            return;
        }
        const std::vector<std::string> numbers = distinct(wa_ids);
        const std::int64_t before = counted(numbers);
        write();
        m_numbers += counted(numbers) - before;
        m_changed = true;
    }

    // Writes the count back when it changed (in the caller's write transaction).
    void store();

    // `wa_ids` sorted, each once.
    static std::vector<std::string> distinct(const std::vector<std::string>& wa_ids);

private:
    std::int64_t counted(const std::vector<std::string>& numbers);
    void move_horizon(std::int64_t horizon);

    sqlite::Database& m_db;
    const std::string& m_account;
    sqlite::Statement m_in_window;
    std::optional<std::int64_t> m_horizon;  // none: the account has no count yet
    std::int64_t m_numbers = 0;
    bool m_changed = false;
};

}  // namespace account
