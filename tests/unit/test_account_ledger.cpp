#include <doctest/doctest.h>

#include <algorithm>
#include <map>
#include <thread>

#include "account_ledger_fixture.hpp"

namespace {

using namespace account_fixture;
using account::Refusal;
using account::Suppression;

std::vector<Suppression> listed(account::Ledger& book) {
    std::vector<Suppression> out;
    auto done = book.list_suppressed([&](const Suppression& s) { out.push_back(s); });
    REQUIRE(done.ok());
    return out;
}

}  // namespace

// Every backend behaves the same, call for call: this suite runs against each (tests/unit/CMakeLists.txt).
TEST_SUITE("account::Ledger") {
    TEST_CASE("suppression: added, looked up, listed in order, removed") {
        LedgerPlace place;
        if (place.skipped()) {
            return;
        }
        auto book = place.open();
        auto added = book->suppress({Suppression{"4915112345678", "listed", k_t0, "file:dnc.csv"},
                                     Suppression{"14155550100", "manual", k_t0 + 1s, "manual"}});
        REQUIRE(added.ok());
        CHECK(*added == 2);
        auto found = book->suppressed({"14155550100", "447700900123"});
        REQUIRE(found.ok());
        REQUIRE(found->size() == 1);
        CHECK(found->at(0).wa_id == "14155550100");
        CHECK(found->at(0).reason == "manual");
        CHECK(found->at(0).since == k_t0 + 1s);
        CHECK(found->at(0).source == "manual");
        const auto all = listed(*book);
        REQUIRE(all.size() == 2);
        CHECK(all[0].wa_id == "14155550100");
        CHECK(all[1].wa_id == "4915112345678");
        auto removed = book->unsuppress({"14155550100", "447700900123"});
        REQUIRE(removed.ok());
        CHECK(*removed == 1);
        CHECK(listed(*book).size() == 1);
    }
    TEST_CASE("suppression: adding again changes nothing, the first entry stands") {
        LedgerPlace place;
        if (place.skipped()) {
            return;
        }
        auto book = place.open();
        REQUIRE(book->suppress({Suppression{"14155550100", "listed", k_t0, "file:dnc.csv"}}).ok());
        auto again = book->suppress({Suppression{"14155550100", "manual", k_t0 + 1h, "manual"}});
        REQUIRE(again.ok());
        CHECK(*again == 0);
        const auto all = listed(*book);
        REQUIRE(all.size() == 1);
        CHECK(all[0].reason == "listed");
        CHECK(all[0].since == k_t0);
    }
    TEST_CASE("suppression: a number twice in one batch is added once, its first entry stands") {
        LedgerPlace place;
        if (place.skipped()) {
            return;
        }
        auto book = place.open();
        auto added = book->suppress(
            {Suppression{"1", "listed", k_t0, "file:dnc.csv"}, Suppression{"1", "manual", k_t0 + 1s, "manual"}});
        REQUIRE(added.ok());
        CHECK(*added == 1);
        const auto all = listed(*book);
        REQUIRE(all.size() == 1);
        CHECK(all[0].reason == "listed");
    }
    TEST_CASE("per_recipient: a second send within the window is refused, allowed once it has passed") {
        LedgerPlace place;
        if (place.skipped()) {
            return;
        }
        auto book = place.open();
        const auto limits = per_recipient(1, std::chrono::days(7));
        auto first = book->reserve(request(sends("spring", {"14155550100"}), limits, k_t0));
        REQUIRE(first.ok());
        CHECK(first->at(0).granted());
        // Another campaign, a day later: the number was messaged within 7 days.
        auto second = book->reserve(request(sends("summer", {"14155550100"}), limits, k_t0 + 24h));
        REQUIRE(second.ok());
        CHECK(second->at(0).refusal == Refusal::frequency_cap);
        CHECK(second->at(0).room_at == k_t0 + std::chrono::days(7));
        auto later = book->reserve(request(sends("summer", {"14155550100"}), limits, k_t0 + std::chrono::days(7) + 1s));
        REQUIRE(later.ok());
        CHECK(later->at(0).granted());
    }
    TEST_CASE("per_recipient: a number twice in one batch is granted once") {
        LedgerPlace place;
        if (place.skipped()) {
            return;
        }
        auto book = place.open();
        auto answers = book->reserve(request(sends("spring", {"1", "1", "2"}), per_recipient(1, 24h), k_t0));
        REQUIRE(answers.ok());
        CHECK(granted(*answers) == std::vector<bool>{true, false, true});
    }
    TEST_CASE("per_recipient: a number twice in one batch under max 2 is granted twice, as a preview says") {
        LedgerPlace place;
        if (place.skipped()) {
            return;
        }
        auto book = place.open();
        const auto limits = per_recipient(2, 24h);
        auto seen = book->reserve(request(sends("spring", {"1", "1", "1"}), limits, k_t0, account::Apply::preview));
        REQUIRE(seen.ok());
        CHECK(granted(*seen) == std::vector<bool>{true, true, false});
        auto answers = book->reserve(request(sends("spring", {"1", "1", "1"}), limits, k_t0));
        REQUIRE(answers.ok());
        CHECK(granted(*answers) == std::vector<bool>{true, true, false});
        CHECK(answers->at(2).room_at == k_t0 + 24h);
    }
    TEST_CASE("per_recipient: reserving a row again (a retry) does not count it twice") {
        LedgerPlace place;
        if (place.skipped()) {
            return;
        }
        auto book = place.open();
        const auto limits = per_recipient(1, std::chrono::days(7));
        REQUIRE(book->reserve(request(for_attempt(sends("spring", {"14155550100"}), 1), limits, k_t0)).ok());
        auto retry = book->reserve(request(taking_over(sends("spring", {"14155550100"}), 2, 1), limits, k_t0 + 1min));
        REQUIRE(retry.ok());
        CHECK(retry->at(0).granted());
    }
    TEST_CASE("one row, one holder: a row reserved for a request not taken over, or sent, is refused") {
        LedgerPlace place;
        if (place.skipped()) {
            return;
        }
        auto book = place.open();
        // Two copies of one log resumed at once ask for the same row, for the same request.
        REQUIRE(book->reserve(request(taking_over(sends("spring", {"1", "2"}), 3, 2), {}, k_t0)).ok());
        auto copy = book->reserve(request(taking_over(sends("spring", {"1", "2"}), 3, 2), {}, k_t0 + 1ms));
        REQUIRE(copy.ok());
        CHECK(copy->at(0).refusal == Refusal::row_reserved);
        CHECK(copy->at(0).attempt == 3);
        // A fresh row, and a row another campaign holds, are not held by this campaign's row.
        auto fresh = book->reserve(request(for_attempt(sends("spring", {"1"}, 9), 1), {}, k_t0 + 2ms));
        auto other = book->reserve(request(for_attempt(sends("autumn", {"1"}), 1), {}, k_t0 + 2ms));
        REQUIRE((fresh.ok() && other.ok()));
        CHECK(fresh->at(0).granted());
        CHECK(other->at(0).granted());
        // The run holding request 3 takes it over with its retry, request 4; the copy still may not.
        auto retry = book->reserve(request(taking_over(sends("spring", {"1"}), 4, 3), {}, k_t0 + 3ms));
        REQUIRE(retry.ok());
        CHECK(retry->at(0).granted());
        auto late = book->reserve(request(taking_over(sends("spring", {"1"}), 4, 3), {}, k_t0 + 4ms));
        REQUIRE(late.ok());
        CHECK(late->at(0).refusal == Refusal::row_reserved);
        CHECK(late->at(0).attempt == 4);
        // Once sent, the row is refused to every request, taking over or not, with or without limits.
        auto delivered = batch_at(k_t0 + 5ms);
        delivered.delivered = for_attempt(sends("spring", {"1"}), 4);
        REQUIRE(book->record(delivered).ok());
        for (const auto& limits : {account::Limits{}, per_recipient(5, std::chrono::days(7)), per_day(100)}) {
            for (const auto& asked : {taking_over(sends("spring", {"1"}), 5, 4), sends("spring", {"1"})}) {
                auto sent = book->reserve(request(asked, limits, k_t0 + 6ms));
                REQUIRE(sent.ok());
                CHECK(sent->at(0).refusal == Refusal::row_sent);
                CHECK(sent->at(0).attempt == 4);
            }
        }
        // A preview says the same, and one batch asking for a row twice is granted it once.
        auto preview = book->reserve(request(sends("spring", {"2"}, 2), {}, k_t0 + 7ms, account::Apply::preview));
        REQUIRE(preview.ok());
        CHECK(preview->at(0).refusal == Refusal::row_reserved);
        auto same_row = sends("spring", {"8"}, 8);
        same_row.push_back(same_row.front());
        auto doubled = book->reserve(request(same_row, {}, k_t0 + 8ms));
        REQUIRE(doubled.ok());
        CHECK(granted(*doubled) == std::vector<bool>{true, false});
        CHECK(doubled->at(1).refusal == Refusal::row_reserved);
        // Rows far apart in one batch are found as rows close together are (SQLite reads a
        // batch's rows in one range only when they lie close).
        REQUIRE(book->reserve(request(for_attempt(sends("spring", {"x"}, 1000), 1), {}, k_t0 + 9ms)).ok());
        auto far = sends("spring", {"y"}, 3);
        far.push_back(sends("spring", {"x"}, 1000).front());
        far.push_back(sends("spring", {"z"}, 1000).front());  // the same row under another number
        auto apart = book->reserve(request(far, {}, k_t0 + 10ms));
        REQUIRE(apart.ok());
        CHECK(granted(*apart) == std::vector<bool>{true, false, true});
        CHECK(apart->at(1).refusal == Refusal::row_reserved);
        auto close = sends("spring", {"w"}, 999);
        close.push_back(sends("spring", {"x"}, 1000).front());
        auto near = book->reserve(request(close, {}, k_t0 + 11ms));
        REQUIRE(near.ok());
        CHECK(granted(*near) == std::vector<bool>{true, false});
    }
    TEST_CASE("per_recipient: a row's own send counts against it once an answer confirmed it, not while reserved") {
        LedgerPlace place;
        if (place.skipped()) {
            return;
        }
        auto book = place.open();
        const auto limits = per_recipient(1, std::chrono::days(7));
        REQUIRE(book->reserve(request(sends("spring", {"14155550100"}), limits, k_t0)).ok());
        auto results = batch_at(k_t0 + 1s);
        results.delivered = sends("spring", {"14155550100"});
        REQUIRE(book->record(results).ok());
        // The same row again (its log forgot the send) is the campaign's already; another row of
        // the number finds the ledger's sent send in the window.
        auto again = book->reserve(request(sends("spring", {"14155550100"}), limits, k_t0 + 1min));
        REQUIRE(again.ok());
        CHECK(again->at(0).refusal == Refusal::row_sent);
        auto other_row = book->reserve(request(sends("spring", {"14155550100"}, 2), limits, k_t0 + 1min));
        REQUIRE(other_row.ok());
        CHECK(other_row->at(0).refusal == Refusal::frequency_cap);
        CHECK(other_row->at(0).room_at == k_t0 + std::chrono::days(7));
    }
    TEST_CASE("campaign_sends: the campaign's reserved and sent sends of the numbers asked, in one read") {
        LedgerPlace place;
        if (place.skipped()) {
            return;
        }
        auto book = place.open();
        auto none = book->campaign_sends("spring", {"1", "2"});
        REQUIRE(none.ok());
        CHECK(none->empty());
        REQUIRE(book->reserve(request(sends("spring", {"1", "2", "3"}), account::Limits{}, k_t0)).ok());
        REQUIRE(book->reserve(request(sends("summer", {"1"}), account::Limits{}, k_t0)).ok());
        auto results = batch_at(k_t0 + 1s);
        results.delivered = sends("spring", {"1"});
        results.not_delivered = sends("spring", {"3"}, 3);
        REQUIRE(book->record(results).ok());
        auto held = book->campaign_sends("spring", {"1", "2", "3", "4"});
        REQUIRE(held.ok());
        std::map<std::string, account::CampaignSend> by_number;
        for (const auto& send : *held) {
            by_number[send.wa_id] = send;
        }
        REQUIRE(by_number.size() == 2);  // "3" was released; "4" never sent; summer's "1" is not spring's
        CHECK(by_number["1"].state == account::SendState::sent);
        CHECK(by_number["1"].row == 1);
        CHECK(by_number["2"].state == account::SendState::reserved);
        CHECK(by_number["2"].row == 2);
        CHECK(by_number["2"].at == k_t0);
        auto other = book->campaign_sends("autumn", {"1"});
        REQUIRE(other.ok());
        CHECK(other->empty());
    }
    TEST_CASE(
        "a send written once: a run's reservations before its mark are sent, one disowned or after it reserved, "
        "another run's untouched") {
        LedgerPlace place;
        if (place.skipped()) {
            return;
        }
        auto book = place.open();
        const auto run = book->begin_run("spring", k_t0);
        const auto other_run = book->begin_run("spring", k_t0);
        REQUIRE(run.ok());
        REQUIRE(other_run.ok());
        CHECK(*run != *other_run);
        auto reserve = [&](std::int64_t by, const std::string& wa_id, std::int64_t row, util::TimePoint at) {
            auto req = request(sends("spring", {wa_id}, row), per_recipient(1, std::chrono::days(7)), at);
            req.sends[0].attempt = 1;
            req.run = by;
            auto answers = book->reserve(req);
            REQUIRE(answers.ok());
            REQUIRE(answers->at(0).granted());
        };
        reserve(*run, "1", 1, k_t0);              // delivered: no write of its own
        reserve(*run, "2", 2, k_t0 + 1ms);        // an answer in doubt: disowned
        reserve(*run, "3", 3, k_t0 + 2ms);        // in flight when the mark is set
        reserve(*other_run, "4", 4, k_t0 + 1ms);  // another run's, never answered (killed)
        auto results = batch_at(k_t0 + 3ms);
        results.ambiguous = sends("spring", {"2"}, 2);
        results.ambiguous[0].attempt = 1;
        results.answered = account::RunMark{*run, k_t0 + 2ms};
        REQUIRE(book->record(results).ok());
        auto held = book->campaign_sends("spring", {"1", "2", "3", "4"});
        REQUIRE(held.ok());
        std::map<std::string, account::SendState> by_number;
        for (const auto& send : *held) {
            by_number[send.wa_id] = send.state;
        }
        REQUIRE(by_number.size() == 4);
        CHECK(by_number["1"] == account::SendState::sent);
        CHECK(by_number["2"] == account::SendState::reserved);
        CHECK(by_number["3"] == account::SendState::reserved);
        CHECK(by_number["4"] == account::SendState::reserved);
        // The rule reads them so: row 1 is the campaign's sent, row 3 its run's to take over.
        auto again = request(sends("spring", {"1", "2", "3"}), per_recipient(1, std::chrono::days(7)), k_t0 + 1s);
        for (auto& send : again.sends) {
            send.attempt = 2;
            send.replaces = 1;
        }
        auto answers = book->reserve(again);
        REQUIRE(answers.ok());
        CHECK(answers->at(0).refusal == Refusal::row_sent);
        CHECK(answers->at(1).granted());  // --resend-unknown takes the one in doubt over
        CHECK(answers->at(2).granted());
        // The mark moves past row 3's time: it is sent; row 2, taken over at k_t0 + 1s, is not.
        auto later = batch_at(k_t0 + 2s);
        later.answered = account::RunMark{*run, k_t0 + 3ms};
        REQUIRE(book->record(later).ok());
        held = book->campaign_sends("spring", {"2", "3", "4"});
        REQUIRE(held.ok());
        by_number.clear();
        for (const auto& send : *held) {
            by_number[send.wa_id] = send.state;
        }
        CHECK(by_number["2"] == account::SendState::reserved);
        CHECK(by_number["3"] == account::SendState::reserved);  // taken over at k_t0 + 1s, after the mark
        CHECK(by_number["4"] == account::SendState::reserved);
    }
    TEST_CASE("last_messaged: the latest send to each number asked, by any campaign, reserved or sent") {
        LedgerPlace place;
        if (place.skipped()) {
            return;
        }
        auto book = place.open();
        auto none = book->last_messaged({"1", "2"});
        REQUIRE(none.ok());
        CHECK(none->empty());
        REQUIRE(book->reserve(request(sends("spring", {"1", "2"}), account::Limits{}, k_t0)).ok());
        REQUIRE(book->reserve(request(sends("summer", {"1"}), account::Limits{}, k_t0 + 3h)).ok());
        auto results = batch_at(k_t0 + 3h + 1s);
        results.delivered = sends("summer", {"1"});
        REQUIRE(book->record(results).ok());
        auto last = book->last_messaged({"1", "2", "3"});
        REQUIRE(last.ok());
        std::map<std::string, util::TimePoint> by_number;
        for (const auto& l : *last) {
            by_number[l.wa_id] = l.at;
        }
        REQUIRE(by_number.size() == 2);  // "3" was never messaged
        CHECK(by_number["1"] == k_t0 + 3h);
        CHECK(by_number["2"] == k_t0);
    }
    TEST_CASE("per_day counts unique numbers and says when room opens") {
        LedgerPlace place;
        if (place.skipped()) {
            return;
        }
        auto book = place.open();
        REQUIRE(book->reserve(request(sends("spring", {"1", "2"}), per_day(3), k_t0)).ok());
        // A number already messaged today costs nothing; a third new one fits, a fourth not.
        auto answers = book->reserve(request(sends("summer", {"1", "3", "4"}), per_day(3), k_t0 + 1h));
        REQUIRE(answers.ok());
        CHECK(granted(*answers) == std::vector<bool>{true, true, false});
        CHECK(answers->at(2).refusal == Refusal::per_day);
        // "2" is the number whose latest send is oldest: room opens when it ages out.
        CHECK(answers->at(2).room_at == k_t0 + 24h);
        auto next_day = book->reserve(request(sends("summer", {"4"}, 10), per_day(3), k_t0 + 24h + 1s));
        REQUIRE(next_day.ok());
        CHECK(next_day->at(0).granted());
    }
    TEST_CASE("a preview decides as a commit would and writes nothing") {
        LedgerPlace place;
        if (place.skipped()) {
            return;
        }
        auto book = place.open();
        const auto preview = account::Apply::preview;
        auto seen = book->reserve(request(sends("spring", {"1", "2", "3"}), per_day(2), k_t0, preview));
        REQUIRE(seen.ok());
        CHECK(granted(*seen) == std::vector<bool>{true, true, false});
        auto real = book->reserve(request(sends("spring", {"3", "4"}), per_day(2), k_t0));
        REQUIRE(real.ok());
        CHECK(granted(*real) == std::vector<bool>{true, true});
    }
    TEST_CASE("a release gives the slot back; a confirmed send is never released") {
        LedgerPlace place;
        if (place.skipped()) {
            return;
        }
        auto book = place.open();
        REQUIRE(book->reserve(request(sends("spring", {"1", "2"}), per_day(2), k_t0)).ok());
        auto results = batch_at(k_t0 + 1s);
        results.delivered = sends("spring", {"1"});
        results.not_delivered = sends("spring", {"1", "2"});  // "1" was delivered: it stays
        REQUIRE(book->record(results).ok());
        auto answers = book->reserve(request(sends("summer", {"3", "4"}), per_day(2), k_t0 + 2s));
        REQUIRE(answers.ok());
        CHECK(granted(*answers) == std::vector<bool>{true, false});
    }
    TEST_CASE(
        "a failure releases only its own request's reservation: an older request's never releases a later one's") {
        LedgerPlace place;
        if (place.skipped()) {
            return;
        }
        auto book = place.open();
        REQUIRE(book->reserve(request(for_attempt(sends("spring", {"1", "2"}), 2), per_day(2), k_t0)).ok());
        auto results = batch_at(k_t0 + 1s);
        // "1": the failure of its first request (an older copy of the log folded in) while its
        // second is reserved: it stays; "2": its own request's failure.
        results.not_delivered = for_attempt(sends("spring", {"1"}), 1);
        const auto second = for_attempt(sends("spring", {"1", "2"}), 2);
        results.not_delivered.push_back(second[1]);
        REQUIRE(book->record(results).ok());
        auto held = book->campaign_sends("spring", {"1", "2"});
        REQUIRE(held.ok());
        REQUIRE(held->size() == 1);
        CHECK(held->front().wa_id == "1");
        CHECK(held->front().attempt == 2);
        CHECK(held->front().state == account::SendState::reserved);
        // Its own request's failure releases it.
        auto own = batch_at(k_t0 + 2s);
        own.not_delivered = {second[0]};
        REQUIRE(book->record(own).ok());
        auto none = book->campaign_sends("spring", {"1"});
        REQUIRE(none.ok());
        CHECK(none->empty());
    }
    TEST_CASE("131026: the number is suppressed once the threshold is reached") {
        LedgerPlace place;
        if (place.skipped()) {
            return;
        }
        auto book = place.open();
        auto once = batch_at(k_t0);
        once.undeliverable = {account::Answer{"14155550100", k_t0}};
        auto first = book->record(once);
        REQUIRE(first.ok());
        CHECK(first->suppressed.empty());
        once.undeliverable[0].at = k_t0 + 1h;
        auto second = book->record(once);
        REQUIRE(second.ok());
        CHECK(second->suppressed == std::vector<std::string>{"14155550100"});
        const auto all = listed(*book);
        REQUIRE(all.size() == 1);
        CHECK(all[0].reason == "undeliverable");
        CHECK(all[0].source == "campaign:spring");
        CHECK(all[0].since == k_t0 + 1h);
    }
    TEST_CASE("131049 holds the number 24 h from the answer") {
        LedgerPlace place;
        if (place.skipped()) {
            return;
        }
        auto book = place.open();
        auto results = batch_at(k_t0 + 1min);
        results.marketing_limited = {account::Answer{"14155550100", k_t0}};
        REQUIRE(book->record(results).ok());
        auto holds = book->held({"14155550100", "2"}, k_t0 + 23h);
        REQUIRE(holds.ok());
        REQUIRE(holds->size() == 1);
        CHECK(holds->at(0).until == k_t0 + 24h);
        auto after = book->held({"14155550100"}, k_t0 + 24h);
        REQUIRE(after.ok());
        CHECK(after->empty());
    }
    TEST_CASE("reserve refuses a suppressed number, with or without limits, granted again once removed") {
        LedgerPlace place;
        if (place.skipped()) {
            return;
        }
        auto book = place.open();
        // Another runner's 131050 answer, recorded after this one screened its rows.
        auto opted_out = batch_at(k_t0);
        opted_out.suppress = {Suppression{"14155550100", "opted_out", k_t0, "campaign:other"}};
        REQUIRE(book->record(opted_out).ok());
        std::int64_t row = 1;  // each turn its own rows: a row reserved is not granted again
        for (const auto& limits : {account::Limits{}, per_recipient(5, std::chrono::days(7)), per_day(100)}) {
            auto answers = book->reserve(request(sends("spring", {"14155550100", "2"}, row), limits, k_t0 + 1s));
            row += 2;
            REQUIRE(answers.ok());
            CHECK(answers->at(0).refusal == Refusal::suppressed);
            CHECK_FALSE(answers->at(0).room_at.has_value());
            CHECK(answers->at(1).granted());
        }
        // A preview decides the same.
        auto preview = book->reserve(request(sends("spring", {"14155550100"}), {}, k_t0 + 1s, account::Apply::preview));
        REQUIRE(preview.ok());
        CHECK(preview->at(0).refusal == Refusal::suppressed);
        REQUIRE(book->unsuppress({"14155550100"}).ok());
        auto again = book->reserve(request(sends("spring", {"14155550100"}), {}, k_t0 + 2s));
        REQUIRE(again.ok());
        CHECK(again->at(0).granted());
    }
    TEST_CASE("reserve refuses a number held by a 131049 answer until the hold ends") {
        LedgerPlace place;
        if (place.skipped()) {
            return;
        }
        auto book = place.open();
        auto limited = batch_at(k_t0);
        limited.marketing_limited = {account::Answer{"14155550100", k_t0}};
        REQUIRE(book->record(limited).ok());
        auto held = book->reserve(request(sends("spring", {"14155550100"}), {}, k_t0 + 1h));
        REQUIRE(held.ok());
        CHECK(held->at(0).refusal == Refusal::held);
        CHECK(held->at(0).room_at == k_t0 + 24h);
        auto after = book->reserve(request(sends("spring", {"14155550100"}), {}, k_t0 + 24h));
        REQUIRE(after.ok());
        CHECK(after->at(0).granted());
    }
    TEST_CASE("a 131049 hold refuses a send whose marketing holds apply and grants one whose do not") {
        LedgerPlace place;
        if (place.skipped()) {
            return;
        }
        auto book = place.open();
        auto limited = batch_at(k_t0);
        limited.marketing_limited = {account::Answer{"14155550100", k_t0}};
        REQUIRE(book->record(limited).ok());
        auto holding = [&](account::MarketingHolds holds, account::Apply apply, std::int64_t row) {
            auto req = request(sends("spring", {"14155550100"}, row), per_recipient(5, std::chrono::days(7)), k_t0 + 1h,
                               apply);
            req.marketing_holds = holds;
            auto answers = book->reserve(req);
            REQUIRE(answers.ok());
            return answers->at(0);
        };
        // A text, image or MARKETING template campaign's send is held back; a UTILITY one's is not,
        // in a preview as in a commit.
        for (const auto apply : {account::Apply::preview, account::Apply::commit}) {
            CAPTURE(apply == account::Apply::preview);
            const auto held = holding(account::MarketingHolds::apply, apply, 1);
            CHECK(held.refusal == Refusal::held);
            CHECK(held.room_at == k_t0 + 24h);
            CHECK(holding(account::MarketingHolds::ignored, apply, 2).granted());
        }
        // The grant counts as a send, as any other.
        auto capped = request(sends("spring", {"14155550100"}, 3), per_recipient(1, std::chrono::days(7)), k_t0 + 2h);
        capped.marketing_holds = account::MarketingHolds::ignored;
        auto answers = book->reserve(capped);
        REQUIRE(answers.ok());
        CHECK(answers->at(0).refusal == Refusal::frequency_cap);
    }
    TEST_CASE("the fold mark moves with its batch and survives reopening") {
        LedgerPlace place;
        if (place.skipped()) {
            return;
        }
        {
            auto book = place.open();
            auto none = book->folded("spring@2025-03-01T00:00:00Z");
            REQUIRE(none.ok());
            CHECK(*none == 0);
            auto results = batch_at(k_t0);
            results.fold = account::FoldMark{"spring@2025-03-01T00:00:00Z", 4096};
            REQUIRE(book->record(results).ok());
        }
        auto book = place.open();
        auto mark = book->folded("spring@2025-03-01T00:00:00Z");
        REQUIRE(mark.ok());
        CHECK(*mark == 4096);
    }
    TEST_CASE("a delivered send the ledger missed is counted at its own time") {
        LedgerPlace place;
        if (place.skipped()) {
            return;
        }
        auto book = place.open();
        auto folded = batch_at(k_t0 + 30h);
        folded.delivered.push_back(account::Send{"1", "spring", 1, k_t0});
        REQUIRE(book->record(folded).ok());
        // Sent at k_t0, so 30 h later it no longer counts against a day's cap of 1...
        auto later = book->reserve(request(sends("summer", {"2"}), per_day(1), k_t0 + 30h, account::Apply::preview));
        REQUIRE(later.ok());
        CHECK(granted(*later) == std::vector<bool>{true});
        // ...but did within the day it was sent.
        auto then = book->reserve(request(sends("summer", {"2"}), per_day(1), k_t0 + 1h, account::Apply::preview));
        REQUIRE(then.ok());
        CHECK(granted(*then) == std::vector<bool>{false});
    }
    TEST_CASE("pruning removes sends older than the given time") {
        LedgerPlace place;
        if (place.skipped()) {
            return;
        }
        auto book = place.open();
        REQUIRE(book->reserve(request(sends("spring", {"1"}), per_day(1), k_t0)).ok());
        REQUIRE(book->reserve(request(sends("summer", {"2"}), account::Limits{}, k_t0 + 1h)).ok());
        auto pruned = book->prune(k_t0 + 1s);
        REQUIRE(pruned.ok());
        CHECK(*pruned == 1);
    }

    TEST_CASE("accounts: every account with anything in the ledger, sorted; none in a fresh one") {
        LedgerPlace place;
        if (place.skipped()) {
            return;
        }
        auto missing = place.open(account::Access::read_only)->accounts();  // no file, no schema yet
        REQUIRE_MESSAGE(missing.ok(), (missing.ok() ? "" : missing.error().message));
        CHECK(missing->empty());
        auto acme = place.open();
        auto none = acme->accounts();
        REQUIRE(none.ok());
        CHECK(none->empty());
        REQUIRE(acme->suppress({Suppression{"14155550100", "manual", k_t0, "manual"}}).ok());
        auto zeta = place.open(account::Access::read_write, "zeta:8080");
        REQUIRE(zeta->reserve(request(sends("spring", {"14155550100"}), per_day(10), k_t0)).ok());
        auto beta = place.open(account::Access::read_write, "beta");
        auto folded = batch_at(k_t0);
        folded.fold = account::FoldMark{"spring", 10};
        REQUIRE(beta->record(folded).ok());
        auto other = place.open(account::Access::read_only, "nobody");
        auto known = other->accounts();
        REQUIRE_MESSAGE(known.ok(), (known.ok() ? "" : known.error().message));
        CHECK(*known == std::vector<std::string>{"acme", "beta", "zeta:8080"});
    }
    TEST_CASE("a batch reserved whole and released in part gives back exactly the released numbers' places") {
        LedgerPlace place;
        if (place.skipped()) {
            return;
        }
        auto book = place.open();
        std::vector<std::string> numbers;
        for (int i = 0; i < 60; ++i) {
            numbers.push_back(std::to_string(4470000000 + i));
        }
        const account::Limits limits{account::PerRecipient{1, 24h}, 50};
        auto first = book->reserve(request(sends("spring", numbers), limits, k_t0));
        REQUIRE(first.ok());
        const std::vector<bool> first_granted = granted(*first);
        CHECK(std::count(first_granted.begin(), first_granted.end(), true) == 50);
        CHECK(first->at(50).refusal == Refusal::per_day);
        auto answered = batch_at(k_t0 + 1s);
        answered.delivered = sends("spring", std::vector<std::string>(numbers.begin(), numbers.begin() + 40));
        answered.not_delivered =
            sends("spring", std::vector<std::string>(numbers.begin() + 40, numbers.begin() + 50), 41);
        REQUIRE(book->record(answered).ok());
        // The ten released numbers are free under both limits; the delivered ones under neither.
        auto again = book->reserve(
            request(sends("summer", std::vector<std::string>(numbers.begin() + 30, numbers.end())), limits, k_t0 + 2s));
        REQUIRE(again.ok());
        std::vector<bool> expected(30, false);
        std::fill(expected.begin() + 10, expected.begin() + 20, true);
        CHECK(granted(*again) == expected);
        CHECK(again->at(0).refusal == Refusal::frequency_cap);
        CHECK(again->at(20).refusal == Refusal::per_day);
    }
    TEST_CASE("two runners reserving one number at once under per_recipient: exactly one is granted, every time") {
        LedgerPlace place;
        if (place.skipped()) {
            return;
        }
        auto first = place.open();
        auto second = place.open();
        const account::Limits once{account::PerRecipient{1, 24h}, 25};
        std::vector<std::vector<account::Reservation>> answers(2);
        std::vector<std::string> failures(2);
        auto runner = [&](account::Ledger& book, int which) {
            for (int round = 0; round < 30; ++round) {
                // Each runner its own campaign, the same number each round.
                auto answer =
                    book.reserve(request({account::Send{std::to_string(4480000000 + round),
                                                        which == 0 ? "spring" : "summer", round, std::nullopt}},
                                         once, k_t0 + std::chrono::seconds(round)));
                if (!answer) {
                    failures[static_cast<std::size_t>(which)] = answer.error().message;
                    return;
                }
                answers[static_cast<std::size_t>(which)].push_back(answer->at(0));
            }
        };
        std::thread one(runner, std::ref(*first), 0);
        std::thread two(runner, std::ref(*second), 1);
        one.join();
        two.join();
        REQUIRE_MESSAGE(failures[0].empty(), failures[0]);
        REQUIRE_MESSAGE(failures[1].empty(), failures[1]);
        int day_refusals = 0;
        for (std::size_t round = 0; round < 30; ++round) {
            CAPTURE(round);
            const auto& a = answers[0].at(round);
            const auto& b = answers[1].at(round);
            if (round < 25) {
                CHECK(a.granted() != b.granted());  // one number, one send: never both, never neither
            } else {
                CHECK_FALSE(a.granted());
                CHECK_FALSE(b.granted());
            }
            day_refusals += (a.refusal == Refusal::per_day ? 1 : 0) + (b.refusal == Refusal::per_day ? 1 : 0);
        }
        // The day's 25 numbers are taken between the two: the last 5 rounds are refused by it.
        CHECK(day_refusals >= 10);
    }
}
