#pragma once
// Reads an account's ledger file directly (SQLite), so that tests check what a run left in it
// without going through the code under test; and holds its write lock on demand.

#include <sqlite3.h>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

namespace e2e {

struct ProbedSuppression {
    std::string reason;
    std::string source;
};

struct ProbedSend {
    std::string campaign;
    long long row = 0;
    std::string wa_id;
    std::string state;  // reserved or sent (written so, or reserved by a run whose mark passed it)
};

class LedgerProbe {
public:
    // Opens the ledger at `path` read only, for the entries of `account`. Throws when it cannot.
    LedgerProbe(const std::filesystem::path& path, std::string account);
    ~LedgerProbe();
    LedgerProbe(const LedgerProbe&) = delete;
    LedgerProbe& operator=(const LedgerProbe&) = delete;

    // The suppression list, by number.
    std::map<std::string, ProbedSuppression> suppressions() const;
    // Every send the ledger counts for the account.
    std::vector<ProbedSend> sends() const;
    // The file's bytes and its write-ahead log's, to tell whether anything wrote to it.
    std::string bytes() const;

private:
    std::filesystem::path m_path;
    std::string m_account;
    sqlite3* m_db = nullptr;
};

// Holds the ledger's write lock (BEGIN EXCLUSIVE) from construction to destruction: a runner
// writing it meanwhile waits (its busy timeout) as it would behind another runner.
class LedgerLock {
public:
    explicit LedgerLock(const std::filesystem::path& path);
    ~LedgerLock();
    LedgerLock(const LedgerLock&) = delete;
    LedgerLock& operator=(const LedgerLock&) = delete;

private:
    sqlite3* m_db = nullptr;
};

}  // namespace e2e
