// The day's count of numbers (rate.per_day) at its edges, against each backend: it is kept as a
// running count (docs/ledger.md "The day's count"), and must answer as counting the day would.
#include <doctest/doctest.h>

#include "account_ledger_fixture.hpp"

namespace {

using namespace account_fixture;
using account::Refusal;

std::vector<account::Reservation> reserved(account::Ledger& book, account::ReservationRequest asked) {
    auto answers = book.reserve(asked);
    REQUIRE_MESSAGE(answers.ok(), (answers.ok() ? "" : answers.error().message));
    return *answers;
}

}  // namespace

TEST_SUITE("account::Ledger") {
    TEST_CASE("per_day: a number sent exactly 24 h ago no longer counts; one sent a moment later does") {
        LedgerPlace place;
        if (place.skipped()) {
            return;
        }
        auto book = place.open();
        const auto preview = account::Apply::preview;
        REQUIRE(reserved(*book, request(sends("spring", {"1"}), per_day(1), k_t0)).at(0).granted());
        auto before = reserved(*book, request(sends("summer", {"2"}), per_day(1), k_t0 + 24h - 1ms, preview));
        CHECK(before.at(0).refusal == Refusal::per_day);
        CHECK(before.at(0).room_at == k_t0 + 24h);
        CHECK(reserved(*book, request(sends("summer", {"2"}), per_day(1), k_t0 + 24h)).at(0).granted());
        // Asked at an earlier time (a call may be), the window moves back: both count again.
        auto earlier = reserved(*book, request(sends("autumn", {"3"}), per_day(2), k_t0 + 1h));
        CHECK(earlier.at(0).refusal == Refusal::per_day);
        CHECK(earlier.at(0).room_at == k_t0 + 24h);
        CHECK(reserved(*book, request(sends("autumn", {"3"}), per_day(2), k_t0 + 24h)).at(0).granted());
    }
    TEST_CASE("per_day: a number sent twice in the window counts once, until its latest send ages out") {
        LedgerPlace place;
        if (place.skipped()) {
            return;
        }
        auto book = place.open();
        REQUIRE(granted(reserved(*book, request(sends("spring", {"1", "1"}), per_day(1), k_t0))) ==
                std::vector<bool>{true, true});
        REQUIRE(reserved(*book, request(sends("summer", {"1"}), per_day(1), k_t0 + 12h)).at(0).granted());
        // Its first send has aged out, its second not.
        auto next_day = reserved(*book, request(sends("autumn", {"2", "3"}), per_day(1), k_t0 + 24h + 1s));
        CHECK(next_day.at(0).refusal == Refusal::per_day);
        CHECK(next_day.at(0).room_at == k_t0 + 36h);
        CHECK(next_day.at(1).room_at == k_t0 + 36h);
        CHECK(reserved(*book, request(sends("autumn", {"2"}), per_day(1), k_t0 + 36h)).at(0).granted());
    }
    TEST_CASE("per_day: runners sharing the ledger add, release and see numbers age out between them") {
        LedgerPlace place;
        if (place.skipped()) {
            return;
        }
        auto first = place.open();
        auto second = place.open();
        CHECK(granted(reserved(*first, request(sends("spring", {"1", "2"}), per_day(3), k_t0))) ==
              std::vector<bool>{true, true});
        CHECK(reserved(*second, request(sends("summer", {"3"}), per_day(3), k_t0 + 1h)).at(0).granted());
        CHECK(reserved(*first, request(sends("spring", {"4"}, 3), per_day(3), k_t0 + 2h)).at(0).refusal ==
              Refusal::per_day);
        // "1" and "2" have aged out for the second runner's call; the first sees it.
        CHECK(reserved(*second, request(sends("summer", {"4"}, 2), per_day(3), k_t0 + 24h + 30min)).at(0).granted());
        auto more = reserved(*first, request(sends("spring", {"5", "6"}, 5), per_day(3), k_t0 + 24h + 30min));
        CHECK(granted(more) == std::vector<bool>{true, false});
        CHECK(more.at(1).room_at == k_t0 + 25h);
        CHECK(reserved(*second, request(sends("summer", {"6"}, 3), per_day(3), k_t0 + 25h + 1ms)).at(0).granted());
        // A release gives its number's place back to the other runner.
        auto released = batch_at(k_t0 + 25h + 2ms);
        released.not_delivered = sends("summer", {"4"}, 2);
        REQUIRE(second->record(released).ok());
        auto after = reserved(*first, request(sends("spring", {"7", "8"}, 7), per_day(3), k_t0 + 25h + 3ms));
        CHECK(granted(after) == std::vector<bool>{true, false});
        // A delivered send the ledger missed, folded in at its own time, counts in its window.
        auto folded = batch_at(k_t0 + 25h + 4ms);
        folded.delivered.push_back(account::Send{"9", "autumn", 1, k_t0 + 2h});
        REQUIRE(second->record(folded).ok());
        CHECK(reserved(*first, request(sends("spring", {"10"}, 10), per_day(4), k_t0 + 25h + 5ms)).at(0).refusal ==
              Refusal::per_day);
        CHECK(reserved(*first, request(sends("spring", {"10"}, 10), per_day(4), k_t0 + 26h)).at(0).granted());
    }
    TEST_CASE("per_day: a row sent before the window and asked for again keeps its time, so its number adds nothing") {
        LedgerPlace place;
        if (place.skipped()) {
            return;
        }
        auto book = place.open();
        REQUIRE(reserved(*book, request(sends("spring", {"1"}), per_day(5), k_t0)).at(0).granted());
        auto delivered = batch_at(k_t0 + 1s);
        delivered.delivered = sends("spring", {"1"});
        REQUIRE(book->record(delivered).ok());
        // A day later the same row is asked for again (its log forgot the send): refused as sent,
        // and its sent row left as it was, so "1" still has no send in the window.
        REQUIRE(reserved(*book, request(sends("spring", {"1"}), per_day(1), k_t0 + 25h)).at(0).refusal ==
                Refusal::row_sent);
        CHECK(reserved(*book, request(sends("summer", {"2"}), per_day(1), k_t0 + 25h + 1ms)).at(0).granted());
        CHECK(reserved(*book, request(sends("summer", {"3"}, 2), per_day(1), k_t0 + 25h + 2ms)).at(0).refusal ==
              Refusal::per_day);
    }
    TEST_CASE("per_day: pruning the sends behind the window leaves the count right") {
        LedgerPlace place;
        if (place.skipped()) {
            return;
        }
        auto book = place.open();
        REQUIRE(reserved(*book, request(sends("spring", {"1", "2"}), per_day(2), k_t0)).at(1).granted());
        REQUIRE(reserved(*book, request(sends("spring", {"3"}, 3), account::Limits{}, k_t0 + 20h)).at(0).granted());
        auto pruned = book->prune(k_t0 + 1s);
        REQUIRE(pruned.ok());
        CHECK(*pruned == 2);
        CHECK(granted(reserved(*book, request(sends("summer", {"4", "5"}), per_day(2), k_t0 + 21h))) ==
              std::vector<bool>{true, false});
    }
}
