#pragma once
// Where the SQLite ledger's sends stand (rule::state_of): a `reserved` row is a send once the run
// that made it has recorded the answers of every reservation it made before then (its mark in
// `runs`). Each run's mark is read once per call.

#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_map>

#include "account/rule.hpp"
#include "account/sqlite.hpp"
#include "account/sqlite_ledger.hpp"

namespace account {

class RunMarks {
public:
    RunMarks(sqlite::Database& db, const std::string& account)
        : m_query(db, "SELECT answered_before FROM runs WHERE id = ?1 AND account = ?9") {
        m_query.bind(k_account, account);
    }

    // The state of a send stored as `state` at `at` (milliseconds) by run `run` (0: none).
    SendState state(std::string_view state, std::int64_t at, std::int64_t run) {
        return rule::state_of(state, at, state == "reserved" ? mark(run) : 0);
    }

private:
    // The run's mark (milliseconds); 0: none.
    std::int64_t mark(std::int64_t run) {
        if (run == 0) {
            return 0;
        }
        auto [found, added] = m_marks.try_emplace(run, 0);
        if (added) {
            m_query.bind(1, run);
            if (m_query.step()) {
                found->second = m_query.integer(0);
            }
            m_query.rewind();
        }
        return found->second;
    }

    sqlite::Statement m_query;
    std::unordered_map<std::int64_t, std::int64_t> m_marks;
};

}  // namespace account
