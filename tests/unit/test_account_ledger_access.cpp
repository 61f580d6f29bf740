// The ledger's behaviour that is not one call's: reopening, accounts sharing a ledger, read-only
// access, runners reserving at once. Run against every backend (account_ledger_fixture.hpp).
#include <doctest/doctest.h>

#include <sys/wait.h>
#include <unistd.h>

#include <fcntl.h>
#include <fstream>
#include <set>

#include "account_ledger_fixture.hpp"

namespace {

using namespace account_fixture;

// One runner: 200 reservations in batches of 10 over numbers 0..119, starting at `offset`,
// writing each granted number to `out`. Exits 0, or 1 on any failure.
[[noreturn]] void run_runner(const std::string& where, const std::string& campaign, int offset, int out) {
    auto opened = account::open_ledger(where, account::OpenOptions{.account = "acme"});
    if (!opened) {
        ::_exit(1);
    }
    const account::Limits limits{account::PerRecipient{1, std::chrono::days(7)}, 50};
    for (int first = 0; first < 200; first += 10) {
        std::vector<account::Send> batch;
        for (int i = first; i < first + 10; ++i) {
            batch.push_back(account::Send{std::to_string(1000 + (offset + i) % 120), campaign, i, std::nullopt});
        }
        auto answers = (*opened)->reserve(request(batch, limits, k_t0));
        if (!answers || answers->size() != batch.size()) {
            ::_exit(1);
        }
        for (std::size_t i = 0; i < batch.size(); ++i) {
            const std::string line = (*answers)[i].granted() ? batch[i].wa_id + "\n" : "";
            if (!line.empty() && ::write(out, line.data(), line.size()) != static_cast<ssize_t>(line.size())) {
                ::_exit(1);
            }
        }
    }
    ::_exit(0);
}

}  // namespace

TEST_SUITE("account::Ledger") {
    TEST_CASE("reopening keeps what was written") {
        LedgerPlace place;
        if (place.skipped()) {
            return;
        }
        {
            auto book = place.open();
            REQUIRE(book->suppress({account::Suppression{"1", "manual", k_t0, "manual"}}).ok());
        }
        auto book = place.open();
        auto found = book->suppressed({"1"});
        REQUIRE(found.ok());
        CHECK(found->size() == 1);
    }
    TEST_CASE("accounts sharing one ledger see only their own entries") {
        LedgerPlace place;
        if (place.skipped()) {
            return;
        }
        auto acme = place.open(account::Access::read_write, "acme");
        auto beta = place.open(account::Access::read_write, "beta");
        REQUIRE(acme->suppress({account::Suppression{"1", "manual", k_t0, "manual"}}).ok());
        REQUIRE(acme->reserve(request(sends("spring", {"2"}), per_day(1), k_t0)).ok());
        auto found = beta->suppressed({"1"});
        REQUIRE(found.ok());
        CHECK(found->empty());
        // acme's one send fills acme's day, not beta's.
        auto answers = beta->reserve(request(sends("spring", {"3"}), per_day(1), k_t0));
        REQUIRE(answers.ok());
        CHECK(granted(*answers) == std::vector<bool>{true});
        auto acme_answers = acme->reserve(request(sends("summer", {"3"}), per_day(1), k_t0));
        REQUIRE(acme_answers.ok());
        CHECK(granted(*acme_answers) == std::vector<bool>{false});
    }
    TEST_CASE("an empty account name is refused") {
        LedgerPlace place;
        if (place.skipped()) {
            return;
        }
        auto opened = account::open_ledger(place.where(), account::OpenOptions{});
        REQUIRE_FALSE(opened.ok());
        CHECK(opened.error().message.find("no account") != std::string::npos);
    }
    TEST_CASE("read-only: an existing ledger is read, and a preview decides from it") {
        LedgerPlace place;
        if (place.skipped()) {
            return;
        }
        {
            auto book = place.open();
            REQUIRE(book->suppress({account::Suppression{"1", "manual", k_t0, "manual"}}).ok());
            REQUIRE(book->reserve(request(sends("spring", {"2"}), account::Limits{}, k_t0)).ok());
        }
        auto book = place.open(account::Access::read_only);
        auto found = book->suppressed({"1"});
        REQUIRE(found.ok());
        CHECK(found->size() == 1);
        auto seen =
            book->reserve(request(sends("summer", {"2", "3", "4"}), per_day(2), k_t0 + 1s, account::Apply::preview));
        REQUIRE(seen.ok());
        CHECK(granted(*seen) == std::vector<bool>{true, true, false});
        CHECK_FALSE(book->reserve(request(sends("summer", {"3"}), account::Limits{}, k_t0)).ok());
        CHECK_FALSE(book->suppress({account::Suppression{"5", "manual", k_t0, "manual"}}).ok());
        auto results = batch_at(k_t0);
        results.fold = account::FoldMark{"summer", 10};
        CHECK_FALSE(book->record(results).ok());
    }
    TEST_CASE("read-only: a ledger never written reads as empty; a preview decides; writes fail") {
        LedgerPlace place;
        if (place.skipped()) {
            return;
        }
        auto book = place.open(account::Access::read_only);
        auto found = book->suppressed({"1"});
        REQUIRE(found.ok());
        CHECK(found->empty());
        auto holds = book->held({"1"}, k_t0);
        REQUIRE(holds.ok());
        CHECK(holds->empty());
        auto mark = book->folded("spring");
        REQUIRE(mark.ok());
        CHECK(*mark == 0);
        std::size_t entries = 0;
        REQUIRE(book->list_suppressed([&](const account::Suppression&) { ++entries; }).ok());
        CHECK(entries == 0);
        const account::Limits limits{account::PerRecipient{1, 24h}, 2};
        auto seen =
            book->reserve(request(sends("spring", {"1", "1", "2", "3"}), limits, k_t0, account::Apply::preview));
        REQUIRE(seen.ok());
        CHECK(granted(*seen) == std::vector<bool>{true, false, true, false});
        CHECK(seen->at(1).refusal == account::Refusal::frequency_cap);
        CHECK(seen->at(1).room_at == k_t0 + 24h);
        CHECK(seen->at(3).refusal == account::Refusal::per_day);
        CHECK(seen->at(3).room_at == k_t0 + 24h);
        CHECK_FALSE(book->suppress({account::Suppression{"1", "manual", k_t0, "manual"}}).ok());
        CHECK_FALSE(book->reserve(request(sends("spring", {"1"}), account::Limits{}, k_t0)).ok());
    }
    TEST_CASE("two processes reserving at once never together exceed per_day or per_recipient") {
        LedgerPlace place;
        if (place.skipped()) {
            return;
        }
        { auto book = place.open(); }
        fakes::TempDir dir;
        std::vector<std::string> outputs;
        std::vector<pid_t> children;
        for (int runner = 0; runner < 2; ++runner) {
            const std::string output = dir.file("granted-" + std::to_string(runner));
            const int fd = ::open(output.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
            REQUIRE(fd >= 0);
            const pid_t pid = ::fork();
            REQUIRE(pid >= 0);
            if (pid == 0) {
                run_runner(place.where(), "campaign-" + std::to_string(runner), runner * 37, fd);
            }
            ::close(fd);
            outputs.push_back(output);
            children.push_back(pid);
        }
        for (const pid_t pid : children) {
            int status = 0;
            REQUIRE(::waitpid(pid, &status, 0) == pid);
            CHECK(WIFEXITED(status));
            CHECK(WEXITSTATUS(status) == 0);
        }
        std::multiset<std::string> granted_numbers;
        for (const auto& output : outputs) {
            std::ifstream in(output);
            for (std::string line; std::getline(in, line);) {
                granted_numbers.insert(line);
            }
        }
        // 120 numbers were tried: the cap of 50 is reached exactly, no number granted twice.
        CHECK(granted_numbers.size() == 50);
        CHECK(std::set<std::string>(granted_numbers.begin(), granted_numbers.end()).size() == 50);
        // The ledger holds exactly what the runners were told: those 50 are refused by
        // frequency, every other number by the daily cap.
        auto book = place.open();
        std::vector<account::Send> all;
        for (int i = 0; i < 120; ++i) {
            all.push_back(account::Send{std::to_string(1000 + i), "check", i, std::nullopt});
        }
        const account::Limits limits{account::PerRecipient{1, std::chrono::days(7)}, 50};
        auto answers = book->reserve(request(all, limits, k_t0 + 1s, account::Apply::preview));
        REQUIRE(answers.ok());
        for (std::size_t i = 0; i < all.size(); ++i) {
            const bool was_granted = granted_numbers.contains(all[i].wa_id);
            CHECK((*answers)[i].refusal == (was_granted ? account::Refusal::frequency_cap : account::Refusal::per_day));
        }
    }
}
