#include <doctest/doctest.h>

#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>

#include "account/ledger_tables.hpp"
#include "account/sqlite.hpp"
#include "account/sqlite_ledger.hpp"
#include "account_ledger_fixture.hpp"

namespace {

using namespace account_fixture;
using fakes::TempDir;

std::string error_opening(const std::string& path, account::Access access = account::Access::read_write) {
    auto opened = account::open_ledger(path, account::OpenOptions{.account = "acme", .access = access});
    REQUIRE_FALSE(opened.ok());
    return opened.error().message;
}

}  // namespace

TEST_SUITE("account::SqliteLedger file") {
    TEST_CASE("a new ledger is made with its folders, private to its owner") {
        TempDir dir;
        const std::string path = dir.file("state/wacamp/ledger.sqlite");
        { auto book = open_at(path); }
        struct stat st {};
        REQUIRE(::stat(path.c_str(), &st) == 0);
        CHECK((st.st_mode & 0777) == 0600);
        REQUIRE(::stat(dir.file("state/wacamp").c_str(), &st) == 0);
        CHECK((st.st_mode & 0777) == 0700);
    }
    TEST_CASE("reopening keeps what was written and the schema version") {
        TempDir dir;
        const std::string path = dir.file("ledger.sqlite");
        {
            auto book = open_at(path);
            REQUIRE(book->suppress({account::Suppression{"1", "manual", k_t0, "manual"}}).ok());
        }
        auto book = open_at(path);
        auto found = book->suppressed({"1"});
        REQUIRE(found.ok());
        CHECK(found->size() == 1);
        book.reset();
        std::ifstream file(path, std::ios::binary);
        std::string header(100, '\0');
        file.read(header.data(), 100);
        // The user_version is the big-endian integer at byte 60 of the header.
        CHECK(header.substr(60, 4) == std::string("\0\0\0\6", 4));
    }
    TEST_CASE("an empty file is migrated to the current schema") {
        TempDir dir;
        const std::string path = dir.file("ledger.sqlite");
        std::ofstream(path).close();
        auto book = open_at(path);
        CHECK(book->folded("spring").ok());
    }
    TEST_CASE(
        "a version 1 file is migrated, its sends kept, each keyed by its number too and naming its campaign by id") {
        TempDir dir;
        const std::string path = dir.file("ledger.sqlite");
        {
            // Version 1 as it was: sends keyed by (account, campaign, csv_row).
            account::sqlite::Database db(path, account::sqlite::Database::Mode::read_write);
            db.exec(
                (std::string() +
                 "CREATE TABLE suppressions (account TEXT NOT NULL, wa_id TEXT NOT NULL, reason TEXT NOT NULL, "
                 "since INTEGER NOT NULL, source TEXT NOT NULL, PRIMARY KEY (account, wa_id)) WITHOUT ROWID;"
                 "CREATE TABLE sends (account TEXT NOT NULL, campaign TEXT NOT NULL, csv_row INTEGER NOT NULL, "
                 "wa_id TEXT NOT NULL, at INTEGER NOT NULL, state TEXT NOT NULL CHECK (state IN ('reserved', "
                 "'sent')), PRIMARY KEY (account, campaign, csv_row));"
                 "CREATE INDEX sends_by_number ON sends (account, wa_id, at);"
                 "CREATE INDEX sends_by_time ON sends (account, at, wa_id);"
                 "CREATE TABLE undeliverable (account TEXT NOT NULL, wa_id TEXT NOT NULL, answers INTEGER NOT NULL, "
                 "last_at INTEGER NOT NULL, PRIMARY KEY (account, wa_id)) WITHOUT ROWID;"
                 "CREATE TABLE marketing_holds (account TEXT NOT NULL, wa_id TEXT NOT NULL, until INTEGER NOT NULL, "
                 "PRIMARY KEY (account, wa_id)) WITHOUT ROWID;"
                 "CREATE TABLE folds (account TEXT NOT NULL, campaign TEXT NOT NULL, covered INTEGER NOT NULL, "
                 "PRIMARY KEY (account, campaign)) WITHOUT ROWID;"
                 "INSERT INTO sends VALUES ('acme', 'spring', 1, '1', " +
                 std::to_string(
                     std::chrono::duration_cast<std::chrono::milliseconds>(k_t0.time_since_epoch()).count()) +
                 ", 'sent');"
                 "PRAGMA user_version = 1;")
                    .c_str());
        }
        auto book = open_at(path);
        {
            // Through version 4: the send names its campaign by the id `campaigns` gives it.
            account::sqlite::Database db(path, account::sqlite::Database::Mode::read_only);
            account::sqlite::Statement query(db,
                                             "SELECT c.account, c.name, s.csv_row, s.wa_id, s.state FROM sends s "
                                             "JOIN campaigns c ON c.id = s.campaign_id");
            REQUIRE(query.step());
            CHECK(query.text(0) == "acme");
            CHECK(query.text(1) == "spring");
            CHECK(query.integer(2) == 1);
            CHECK(query.text(3) == "1");
            CHECK(query.text(4) == "sent");
            CHECK_FALSE(query.step());
        }
        // The old send still counts against its number...
        auto again = book->reserve(request(sends("summer", {"1"}), per_recipient(1, 7 * 24h), k_t0));
        REQUIRE(again.ok());
        CHECK(granted(*again) == std::vector<bool>{false});
        // ...and row 1 of "spring" given to another number (--force over an edited CSV) is a
        // send of its own: the first is not overwritten.
        REQUIRE(book->reserve(request(sends("spring", {"2"}), account::Limits{}, k_t0)).ok());
        auto first = book->reserve(request(sends("autumn", {"1"}), per_recipient(1, 7 * 24h), k_t0));
        REQUIRE(first.ok());
        CHECK(granted(*first) == std::vector<bool>{false});
        auto second = book->reserve(request(sends("autumn", {"2"}, 2), per_recipient(1, 7 * 24h), k_t0));
        REQUIRE(second.ok());
        CHECK(granted(*second) == std::vector<bool>{false});
    }
    TEST_CASE("a version 2 file is migrated: the day's numbers, counted from its sends, answer as before") {
        TempDir dir;
        const std::string path = dir.file("ledger.sqlite");
        {
            auto book = open_at(path);
            write_day(*book);
        }
        {
            // Version 2 is version 4 without the running count, its sends naming their campaigns.
            account::sqlite::Database db(path, account::sqlite::Database::Mode::read_write);
            db.exec(
                "DROP TABLE day_counts; DROP TABLE runs;"
                "CREATE TABLE sends_v2 (account TEXT NOT NULL, campaign TEXT NOT NULL, csv_row INTEGER NOT NULL, "
                "wa_id TEXT NOT NULL, at INTEGER NOT NULL, state TEXT NOT NULL CHECK (state IN ('reserved', "
                "'sent')), PRIMARY KEY (account, campaign, csv_row, wa_id)) WITHOUT ROWID;"
                "INSERT INTO sends_v2 SELECT s.account, c.name, s.csv_row, s.wa_id, s.at, s.state FROM sends s "
                "JOIN campaigns c ON c.id = s.campaign_id;"
                "DROP TABLE sends; DROP TABLE campaigns; ALTER TABLE sends_v2 RENAME TO sends;"
                "CREATE INDEX sends_by_number ON sends (account, wa_id, at);"
                "CREATE INDEX sends_by_time ON sends (account, at, wa_id);"
                "PRAGMA user_version = 2;");
        }
        auto book = open_at(path);
        check_day(*book);
        book.reset();
        std::ifstream file(path, std::ios::binary);
        std::string header(100, '\0');
        file.read(header.data(), 100);
        CHECK(header.substr(60, 4) == std::string("\0\0\0\6", 4));
    }
    TEST_CASE("the campaign's sends are read through each number's index, however many the campaign sent") {
        // Without the index named, SQLite took the key (account, campaign_id, …) and walked every
        // send of the campaign for each number screened: a 100,000-row run crawled.
        TempDir dir;
        const std::string path = dir.file("ledger.sqlite");
        {
            auto book = open_at(path);
            std::vector<std::string> numbers;
            for (int i = 0; i < 3000; ++i) {
                numbers.push_back(std::to_string(919800000000LL + i));
            }
            REQUIRE(book->reserve(request(sends("spring", numbers), account::Limits{}, k_t0)).ok());
            REQUIRE(book->campaign_sends("spring", {numbers[7], "1"}).value().size() == 1);
        }
        account::sqlite::Database db(path, account::sqlite::Database::Mode::read_write);
        for (const char* stats : {"SELECT 1", "ANALYZE"}) {
            CAPTURE(stats);
            db.exec(stats);
            account::sqlite::Statement plan(
                db, (std::string("EXPLAIN QUERY PLAN ") + account::SqliteLedger::k_campaign_sends_sql).c_str());
            std::string steps;
            while (plan.step()) {
                steps += plan.text(3) + "\n";
            }
            CAPTURE(steps);
            CHECK(steps.find("USING INDEX sends_by_number (account=? AND wa_id=?)") != std::string::npos);
            CHECK(steps.find("campaign_id=?") == std::string::npos);
        }
    }
    TEST_CASE("a number's sends, the rule's facts, are read through its index, however many the account sent") {
        // Without the index named, SQLite took the key (account, …) and walked every send of the
        // account for each number of a batch: 4 million instructions a message at 5,000 sends.
        TempDir dir;
        const std::string path = dir.file("ledger.sqlite");
        {
            auto book = open_at(path);
            std::vector<std::string> numbers;
            for (int i = 0; i < 3000; ++i) {
                numbers.push_back(std::to_string(919800000000LL + i));
            }
            REQUIRE(book->reserve(request(sends("spring", numbers), account::Limits{}, k_t0)).ok());
        }
        account::sqlite::Database db(path, account::sqlite::Database::Mode::read_write);
        for (const char* stats : {"SELECT 1", "ANALYZE"}) {
            CAPTURE(stats);
            db.exec(stats);
            account::sqlite::Statement plan(
                db, (std::string("EXPLAIN QUERY PLAN ") + account::SqliteLedger::k_number_sends_sql).c_str());
            std::string steps;
            while (plan.step()) {
                steps += plan.text(3) + "\n";
            }
            CAPTURE(steps);
            CHECK(steps.find("USING INDEX sends_by_number (account=? AND wa_id=?)") != std::string::npos);
        }
    }
    TEST_CASE("the accounts are read by seeking from one to the next in each table's key, not by reading every send") {
        // A UNION of every table's accounts read every send: 0.21 s at 2 million sends (4.4 s in
        // PostgreSQL at 10 million), at the start of every run (the unknown-account warning).
        TempDir dir;
        const std::string path = dir.file("ledger.sqlite");
        { auto book = open_at(path); }
        account::sqlite::Database db(path, account::sqlite::Database::Mode::read_write);
        account::sqlite::Statement plan(
            db, ("EXPLAIN QUERY PLAN " + account::tables::accounts_sql("", "ORDER BY 1")).c_str());
        std::vector<std::string> steps;
        while (plan.step()) {
            steps.push_back(plan.text(3));
        }
        // Each table: its first account from the head of its key (a scan in key order that LIMIT 1
        // stops), each next one by a seek past the last.
        for (const char* table : {"suppressions", "sends", "undeliverable", "marketing_holds", "folds"}) {
            CAPTURE(table);
            const std::string search = std::string("SEARCH ") + table + " USING ";
            CHECK(std::any_of(steps.begin(), steps.end(), [&](const std::string& step) {
                return step.starts_with(search) && step.ends_with("(account>?)");
            }));
        }
    }
    TEST_CASE("a re-reserved send that was delivered stays sent: a release never gives it back") {
        TempDir dir;
        auto book = open_at(dir.file("ledger.sqlite"));
        REQUIRE(book->reserve(request(sends("spring", {"1"}), account::Limits{}, k_t0)).ok());
        auto delivered = batch_at(k_t0);
        delivered.delivered = sends("spring", {"1"});
        REQUIRE(book->record(delivered).ok());
        REQUIRE(book->reserve(request(sends("spring", {"1"}), account::Limits{}, k_t0 + 1s)).ok());
        auto released = batch_at(k_t0 + 2s);
        released.not_delivered = sends("spring", {"1"});
        REQUIRE(book->record(released).ok());
        auto again = book->reserve(request(sends("summer", {"1"}), per_recipient(1, 7 * 24h), k_t0 + 3s));
        REQUIRE(again.ok());
        CHECK(granted(*again) == std::vector<bool>{false});
    }
    TEST_CASE("a file that is not a SQLite database is refused, naming it") {
        TempDir dir;
        const std::string path = dir.file("ledger.sqlite");
        std::ofstream(path) << "wa_id,reason\n14155550100,listed\n" << std::string(600, 'x');
        const std::string message = error_opening(path);
        CHECK(message.find(path) != std::string::npos);
        CHECK(message.find("not a database") != std::string::npos);
    }
    TEST_CASE("a symbolic link is refused") {
        TempDir dir;
        { auto book = open_at(dir.file("real.sqlite")); }
        std::filesystem::create_symlink(dir.file("real.sqlite"), dir.file("link.sqlite"));
        CHECK(error_opening(dir.file("link.sqlite")).find("symbolic link") != std::string::npos);
    }
    TEST_CASE("read-only: a missing ledger is not created") {
        TempDir dir;
        const std::string path = dir.file("ledger.sqlite");
        auto book = open_at(path, account::Access::read_only);
        CHECK_FALSE(book->suppress({account::Suppression{"1", "manual", k_t0, "manual"}}).ok());
        CHECK_FALSE(std::filesystem::exists(path));
    }
}

TEST_SUITE("account::SqliteLedger concurrency") {
    TEST_CASE("processes opening a new ledger at the same moment all open it (none gets 'database is locked')") {
        int failures = 0;
        for (int round = 0; round < 20; ++round) {
            TempDir dir;
            const std::string path = dir.file("state/ledger.sqlite");
            // The children wait for the pipe to close, then all open at once.
            int go[2];
            REQUIRE(::pipe(go) == 0);
            std::vector<pid_t> children;
            for (int child = 0; child < 4; ++child) {
                const pid_t pid = ::fork();
                REQUIRE(pid >= 0);
                if (pid == 0) {
                    ::close(go[1]);
                    char byte = 0;
                    (void)::read(go[0], &byte, 1);
                    auto opened = account::open_ledger(path, account::OpenOptions{.account = "acme"});
                    ::_exit(opened && (*opened)->folded("spring").ok() ? 0 : 1);
                }
                children.push_back(pid);
            }
            ::close(go[0]);
            ::close(go[1]);
            for (const pid_t pid : children) {
                int status = 0;
                REQUIRE(::waitpid(pid, &status, 0) == pid);
                failures += WIFEXITED(status) && WEXITSTATUS(status) == 0 ? 0 : 1;
            }
        }
        CHECK(failures == 0);
    }
}
