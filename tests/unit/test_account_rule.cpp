// The ledger's one rule without a database: the facts are written by hand, as a backend would
// load them, and the decision is read back. The contract suite (test_account_ledger*.cpp) checks
// that each backend loads and writes what the rule needs.
#include <doctest/doctest.h>

#include "account/rule.hpp"

namespace {

using namespace std::chrono_literals;
using account::Refusal;
using account::SendState;
namespace rule = account::rule;

const util::TimePoint k_t0 = util::TimePoint(std::chrono::seconds(1740787200));

account::Send send(const std::string& wa_id, std::int64_t row, const std::string& campaign = "spring") {
    return account::Send{wa_id, campaign, row, std::nullopt};
}

account::ReservationRequest asked(std::vector<account::Send> sends, account::Limits limits,
                                  util::TimePoint now = k_t0) {
    return account::ReservationRequest{std::move(sends), std::move(limits), now};
}

rule::StoredSend stored(util::TimePoint at, SendState state = SendState::sent, std::string_view campaign = "",
                        std::int64_t row = 0, std::int64_t attempt = 0) {
    return rule::StoredSend{campaign, row, at, state, attempt};
}

account::Send request(const std::string& wa_id, std::int64_t row, std::int64_t attempt) {
    auto out = send(wa_id, row);
    out.attempt = attempt;
    return out;
}

std::vector<Refusal> refusals(const rule::ReserveDecision& decision) {
    std::vector<Refusal> out;
    for (const auto& answer : decision.answers) {
        out.push_back(answer.refusal);
    }
    return out;
}

account::ResultBatch answers_at(util::TimePoint now) {
    account::ResultBatch batch;
    batch.source = "campaign:spring";
    batch.now = now;
    return batch;
}

}  // namespace

TEST_SUITE("account::rule") {
    TEST_CASE("reserve: suppressed never, held until the hold ends, and only when holds apply") {
        rule::ReserveFacts facts;
        facts.numbers["1"].suppressed = true;
        facts.numbers["2"].hold_until = k_t0 + 5h;
        facts.numbers["3"].hold_until = k_t0;  // ended: a hold ends at its time
        auto request = asked({send("1", 1), send("2", 2), send("3", 3)}, {});
        auto decision = rule::decide(request, facts);
        CHECK(refusals(decision) == std::vector{Refusal::suppressed, Refusal::held, Refusal::none});
        CHECK_FALSE(decision.answers[0].room_at);
        CHECK(decision.answers[1].room_at == k_t0 + 5h);
        CHECK(decision.written == std::vector<std::size_t>{2});
        request.marketing_holds = account::MarketingHolds::ignored;
        CHECK(refusals(rule::decide(request, facts)) == std::vector{Refusal::suppressed, Refusal::none, Refusal::none});
    }
    TEST_CASE(
        "reserve: per_recipient counts the window's sends and the batch's grants, room when the oldest ages out") {
        rule::ReserveFacts facts;
        facts.numbers["1"].sends = {stored(k_t0 - 3h), stored(k_t0 - 1h), stored(k_t0 - 30h)};
        const account::Limits two_a_day{account::PerRecipient{2, 24h}, std::nullopt};
        auto decision = rule::decide(asked({send("1", 1)}, two_a_day), facts);
        CHECK(refusals(decision) == std::vector{Refusal::frequency_cap});
        CHECK(decision.answers[0].room_at == k_t0 + 21h);  // the send of 3 h ago ages out
        // A new number: the first two of the batch go, the third waits a whole window.
        auto batch = rule::decide(asked({send("2", 1), send("2", 2), send("2", 3)}, two_a_day), facts);
        CHECK(refusals(batch) == std::vector{Refusal::none, Refusal::none, Refusal::frequency_cap});
        CHECK(batch.answers[2].room_at == k_t0 + 24h);
    }
    TEST_CASE("reserve: a row's own reservation taken over does not count against it; its confirmed send does") {
        const account::Limits once{account::PerRecipient{1, 24h}, std::nullopt};
        rule::ReserveFacts facts;
        facts.numbers["1"].sends = {stored(k_t0 - 1h, SendState::reserved, "spring", 7)};
        auto retry_send = request("1", 7, 2);
        retry_send.replaces = 1;  // a request not known (attempt 0) is taken over by any
        auto retry = rule::decide(asked({retry_send}, once), facts);
        CHECK(retry.answers[0].granted());
        CHECK(retry.written == std::vector<std::size_t>{0});  // its time moves to now
        CHECK(rule::decide(asked({send("1", 8)}, once), facts).answers[0].refusal == Refusal::frequency_cap);
        facts.numbers["1"].sends[0].state = SendState::sent;
        // A row sent is the campaign's: never granted again, with a cap or without, taken over or not.
        for (const auto& limits : {once, account::Limits{}}) {
            for (const auto& asked_send : {send("1", 7), retry_send}) {
                const auto again = rule::decide(asked({asked_send}, limits), facts);
                CHECK(again.answers[0].refusal == Refusal::row_sent);
                CHECK(again.written.empty());
            }
        }
    }
    TEST_CASE("reserve: one row, one holder — a reservation is taken over only by the request that replaces it") {
        rule::ReserveFacts facts;
        facts.numbers["1"].sends = {stored(k_t0 - 1s, SendState::reserved, "spring", 1, 3)};
        facts.numbers["2"].sends = {stored(k_t0 - 1s, SendState::reserved, "autumn", 2, 3)};
        auto copy = request("1", 1, 3);
        copy.replaces = 2;                // a copy of the log, asking for the same request: another run holds it
        auto fresh = request("1", 1, 1);  // a row its log never tried
        auto retry = request("1", 1, 4);
        retry.replaces = 3;               // the run that made request 3 retries it
        auto other = request("2", 2, 1);  // the same row of another campaign is not this one's
        const auto decision = rule::decide(asked({copy, fresh, other}, {}), facts);
        CHECK(refusals(decision) == std::vector<Refusal>{Refusal::row_reserved, Refusal::row_reserved, Refusal::none});
        CHECK(decision.answers[0].attempt == 3);
        CHECK(decision.written == std::vector<std::size_t>{2});
        const auto taken = rule::decide(asked({retry, copy}, {}), facts);
        // The retry takes the row over; the copy after it in the batch finds it taken.
        CHECK(refusals(taken) == std::vector<Refusal>{Refusal::none, Refusal::row_reserved});
        CHECK(taken.written == std::vector<std::size_t>{0});
        // A row the batch asks for twice is granted once.
        const auto twice = rule::decide(asked({send("5", 5), send("5", 5), send("5", 6)}, {}), facts);
        CHECK(refusals(twice) == std::vector<Refusal>{Refusal::none, Refusal::row_reserved, Refusal::none});
    }
    TEST_CASE("reserve: per_day moves the count, refuses new numbers at the cap, and asks for the room once") {
        rule::ReserveFacts facts;
        facts.stored_day = rule::DayCount{rule::day_horizon(k_t0 - 1h), 3};
        facts.day_crossed = 1;  // one number's latest send left the window in that hour
        facts.numbers["1"].sends = {stored(k_t0 - 2h)};
        auto decision = rule::decide(
            asked({send("5", 1), send("1", 2), send("6", 3), send("7", 4)}, account::Limits{std::nullopt, 3}), facts);
        // 2 numbers before the batch: "5" makes 3; "1" is in the window already; "6" and "7" wait.
        CHECK(refusals(decision) == std::vector{Refusal::none, Refusal::none, Refusal::per_day, Refusal::per_day});
        REQUIRE(decision.day);
        CHECK(*decision.day == rule::DayCount{rule::day_horizon(k_t0), 3});
        REQUIRE(decision.day_room_offset);
        CHECK(*decision.day_room_offset == 0);  // the oldest number of the window
        CHECK_FALSE(decision.answers[2].room_at);
        rule::settle_day_room(decision, k_t0, k_t0 - 20h);
        CHECK(decision.answers[2].room_at == k_t0 + 4h);
        CHECK(decision.answers[3].room_at == k_t0 + 4h);
    }
    TEST_CASE("reserve: with no number in the window before the batch, room is a day after now") {
        auto decision = rule::decide(asked({send("1", 1), send("2", 2)}, account::Limits{std::nullopt, 1}), {});
        CHECK(refusals(decision) == std::vector{Refusal::none, Refusal::per_day});
        CHECK(decision.answers[1].room_at == k_t0 + 24h);
        CHECK_FALSE(decision.day_room_offset);
        REQUIRE(decision.day);
        CHECK(decision.day->numbers == 1);
    }
    TEST_CASE("reserve: a count is kept without a cap once it exists, and only a written row brings a number in") {
        rule::ReserveFacts facts;
        facts.stored_day = rule::DayCount{k_t0 - 24h, 4};
        facts.numbers["1"].sends = {stored(k_t0 - 30h, SendState::sent, "spring", 1)};  // before the window
        auto decision = rule::decide(asked({send("1", 1), send("2", 2)}, {}), facts);
        CHECK(decision.written == std::vector<std::size_t>{1});
        REQUIRE(decision.day);
        CHECK(decision.day->numbers == 5);                    // "2" came in; "1"'s row keeps its old time
        CHECK(decision.day->horizon == k_t0 - 24h);           // not moved: the request does not cap the day
        CHECK_FALSE(rule::decide(asked({}, {}), facts).day);  // nothing changed, nothing to store
    }
    TEST_CASE("the day's count moves forward and back by the numbers crossed, and starts from a full count") {
        const rule::DayCount stored_day{k_t0, 10};
        CHECK(rule::moved(stored_day, k_t0 + 1h, 3) == rule::DayCount{k_t0 + 1h, 7});
        CHECK(rule::moved(stored_day, k_t0 - 1h, 2) == rule::DayCount{k_t0 - 1h, 12});
        CHECK(rule::moved(stored_day, k_t0, 5) == stored_day);
        CHECK(rule::moved(std::nullopt, k_t0, 5) == rule::DayCount{k_t0, 5});
        CHECK(rule::prune_horizon(stored_day, k_t0 + 1s) == k_t0 + 999ms);
        CHECK_FALSE(rule::prune_horizon(stored_day, k_t0));
        CHECK_FALSE(rule::prune_horizon(std::nullopt, k_t0 + 1s));
    }
    TEST_CASE("record: confirms reservations, adds the sends it missed at their time, releases, never a sent one") {
        rule::RecordFacts facts;
        facts.stored_day = rule::DayCount{k_t0 - 24h, 2};
        facts.numbers["1"].sends = {stored(k_t0 - 1h, SendState::reserved, "spring", 1)};
        facts.numbers["2"].sends = {stored(k_t0 - 1h, SendState::reserved, "spring", 2), stored(k_t0 - 5h)};
        facts.numbers["3"].sends = {stored(k_t0 - 1h, SendState::sent, "spring", 3)};
        auto batch = answers_at(k_t0);
        batch.delivered = {send("1", 1), send("4", 4)};
        batch.delivered[1].at = k_t0 - 2h;
        batch.not_delivered = {send("2", 2), send("3", 3)};
        const auto decision = rule::decide(batch, facts);
        REQUIRE(decision.confirmed.size() == 1);
        CHECK(decision.confirmed[0]->wa_id == "1");
        REQUIRE(decision.added.size() == 1);
        CHECK(decision.added[0].first->wa_id == "4");
        CHECK(decision.added[0].second == k_t0 - 2h);
        REQUIRE(decision.released.size() == 1);  // "3" was confirmed: never given back
        CHECK(decision.released[0]->wa_id == "2");
        REQUIRE(decision.day);
        CHECK(decision.day->numbers == 3);  // "4" came in; "2" keeps another send in the window
    }
    TEST_CASE("record: the threshold's 131026 answer suppresses once; 131049 holds for the later end") {
        rule::RecordFacts facts;
        facts.numbers["1"].undeliverable = 1;
        facts.numbers["2"].suppressed = true;
        facts.numbers["3"].hold_until = k_t0 + 30h;
        auto batch = answers_at(k_t0);
        batch.undeliverable = {{"1", k_t0}, {"1", k_t0 + 1s}, {"2", k_t0}};
        batch.suppress = {account::Suppression{"1", "opted_out", k_t0, "campaign:spring"},
                          account::Suppression{"5", "opted_out", k_t0, "campaign:spring"}};
        batch.marketing_limited = {{"3", k_t0}, {"4", k_t0}};
        const auto decision = rule::decide(batch, facts);
        REQUIRE(decision.undeliverable.size() == 3);
        CHECK(decision.undeliverable[1].answers == 3);
        REQUIRE(decision.suppressed.size() == 2);
        CHECK(decision.suppressed[0].wa_id == "1");
        CHECK(decision.suppressed[0].reason == "undeliverable");  // its first entry stands
        CHECK(decision.suppressed[1].wa_id == "5");
        REQUIRE(decision.holds.size() == 1);  // "3"'s hold already ends later
        CHECK(decision.holds[0].wa_id == "4");
        CHECK(decision.holds[0].until == k_t0 + 24h);
    }
    TEST_CASE("row records: a row sent, under its own row or any row with dedupe, and a row reserved") {
        const std::vector<account::Send> rows{send("1", 1), send("1", 2), send("2", 3)};
        const std::vector<account::CampaignSend> held{{"1", 1, SendState::sent, k_t0},
                                                      {"2", 3, SendState::reserved, k_t0}};
        const auto own = rule::row_records(rows, held, rule::AnyRow::no);
        CHECK(own[0].sent);
        CHECK_FALSE(own[1].sent);
        CHECK(own[2].reserved);
        CHECK_FALSE(own[2].sent);
        const auto any = rule::row_records(rows, held, rule::AnyRow::yes);
        CHECK(any[1].sent);
        CHECK_FALSE(any[1].reserved);
    }
    TEST_CASE("record: an answer releases only the reservation of its own request") {
        rule::RecordFacts facts;
        facts.numbers["1"].sends = {stored(k_t0 - 1h, SendState::reserved, "spring", 1, 2)};
        facts.numbers["2"].sends = {stored(k_t0 - 1h, SendState::reserved, "spring", 2, 2)};
        facts.numbers["3"].sends = {stored(k_t0 - 1h, SendState::reserved, "spring", 3, 0)};  // before attempts
        auto batch = answers_at(k_t0);
        // "1": attempt 1's failure (an older copy of the log folded in) while attempt 2 is held;
        // "2": attempt 2's own failure; "3": a row of before, whose attempt is not known.
        batch.not_delivered = {request("1", 1, 1), request("2", 2, 2), request("3", 3, 1)};
        const auto decision = rule::decide(batch, facts);
        REQUIRE(decision.released.size() == 2);
        CHECK(decision.released[0]->wa_id == "2");
        CHECK(decision.released[1]->wa_id == "3");
        // A request not known (attempt 0) releases whatever the row holds, as before attempts.
        batch.not_delivered = {request("1", 1, 0)};
        CHECK(rule::decide(batch, facts).released.size() == 1);
    }
    TEST_CASE("a send's state: sent as written, or reserved before its run's mark; never one in doubt (no run)") {
        const std::int64_t at = rule::to_millis(k_t0);
        CHECK(rule::state_of("sent", at, 0) == SendState::sent);
        CHECK(rule::state_of("reserved", at, 0) == SendState::reserved);           // no run's, or no mark yet
        CHECK(rule::state_of("reserved", at, at) == SendState::reserved);          // the mark's own millisecond
        CHECK(rule::state_of("reserved", at, at + 1) == SendState::sent);          // passed by the mark
        CHECK(rule::state_of("reserved", at + 5, at + 1) == SendState::reserved);  // made after it
    }
    TEST_CASE("record: an answer in doubt disowns its own request's reservation only, never a sent row") {
        rule::RecordFacts facts;
        facts.numbers["1"].sends = {stored(k_t0 - 1h, SendState::reserved, "spring", 1, 2)};
        facts.numbers["2"].sends = {stored(k_t0 - 1h, SendState::reserved, "spring", 2, 2)};
        facts.numbers["3"].sends = {stored(k_t0 - 1h, SendState::sent, "spring", 3, 1)};
        auto batch = answers_at(k_t0);
        // "1": attempt 1's doubt while attempt 2 holds the row; "2": its own; "3": sent already.
        batch.ambiguous = {request("1", 1, 1), request("2", 2, 2), request("3", 3, 1)};
        const auto decision = rule::decide(batch, facts);
        REQUIRE(decision.disowned.size() == 1);
        CHECK(decision.disowned[0]->wa_id == "2");
        CHECK(decision.released.empty());
        CHECK(decision.confirmed.empty());
        // Without the rows read, the write's own conditions decide: every one is passed on.
        facts.rows_read = false;
        CHECK(rule::decide(batch, facts).disowned.size() == 3);
    }
    TEST_CASE("reserve: a row's reservation taken over moves to the new request; a row held as sent is refused") {
        rule::ReserveFacts facts;
        facts.numbers["1"].sends = {stored(k_t0 - 1h, SendState::reserved, "spring", 1, 1)};
        facts.numbers["2"].sends = {stored(k_t0 - 1h, SendState::sent, "spring", 2, 1)};
        auto retries = std::vector{request("1", 1, 2), request("2", 2, 2)};
        retries[0].replaces = retries[1].replaces = 1;
        const auto decision = rule::decide(asked(retries, account::Limits{account::PerRecipient{1, 24h}, {}}), facts);
        // "1"'s own reservation, taken over, does not count against it; "2"'s row is sent.
        CHECK(refusals(decision) == std::vector<Refusal>{Refusal::none, Refusal::row_sent});
        CHECK(decision.answers[1].attempt == 1);
        CHECK(decision.written == std::vector<std::size_t>{0});
    }
    TEST_CASE("row records: the request a row's reservation stands for; another row's with dedupe") {
        const std::vector<account::Send> rows{send("1", 1), send("1", 2)};
        const std::vector<account::CampaignSend> held{{"1", 1, SendState::reserved, k_t0, 3}};
        const auto own = rule::row_records(rows, held, rule::AnyRow::no);
        CHECK(own[0].reserved);
        CHECK(own[0].attempt == 3);
        CHECK_FALSE(own[1].reserved);
        const auto any = rule::row_records(rows, held, rule::AnyRow::yes);
        CHECK(any[1].reserved);      // its number's request may have left under row 1
        CHECK(any[1].attempt == 0);  // not this row's request
        CHECK_FALSE(any[1].sent);
    }
    TEST_CASE("what a backend must read: sends only for a limit or a kept count, holds only when they apply") {
        const auto plain = asked({send("1", 1)}, {});
        CHECK_FALSE(rule::needs(plain, std::nullopt).sends);
        CHECK(rule::needs(plain, std::nullopt).holds);
        CHECK(rule::needs(plain, rule::DayCount{k_t0, 1}).sends);
        CHECK(rule::needs(asked({send("1", 1)}, account::Limits{std::nullopt, 5}), std::nullopt).sends);
        CHECK(rule::needs(asked({send("1", 1)}, account::Limits{account::PerRecipient{1, 1h}, std::nullopt}),
                          std::nullopt)
                  .sends);
        auto utility = plain;
        utility.marketing_holds = account::MarketingHolds::ignored;
        CHECK_FALSE(rule::needs(utility, std::nullopt).holds);
        const rule::DayCount day{k_t0, 1};
        CHECK_FALSE(rule::record_needs_window(std::nullopt, true, std::nullopt));
        CHECK(rule::record_needs_window(day, true, std::nullopt));               // added
        CHECK_FALSE(rule::record_needs_window(day, true, SendState::reserved));  // confirmed: keeps its time
        CHECK(rule::record_needs_window(day, false, SendState::reserved));       // released
        CHECK_FALSE(rule::record_needs_window(day, false, SendState::sent));     // never released
        CHECK_FALSE(rule::record_needs_window(day, false, std::nullopt));
    }
    TEST_CASE("record without its rows read (no count kept): delivered sends marked, not-delivered ones released") {
        rule::RecordFacts facts;
        facts.rows_read = false;
        auto batch = answers_at(k_t0);
        batch.delivered = {send("1", 1), send("2", 2)};
        batch.delivered[1].at = k_t0 - 1h;
        batch.not_delivered = {send("3", 3)};
        const auto decision = rule::decide(batch, std::move(facts));
        CHECK(decision.confirmed.empty());
        CHECK(decision.added.empty());
        REQUIRE(decision.marked.size() == 2);
        CHECK(decision.marked[0].second == k_t0);
        CHECK(decision.marked[1].second == k_t0 - 1h);
        REQUIRE(decision.released.size() == 1);
        CHECK(decision.released[0] == &batch.not_delivered[0]);
        CHECK_FALSE(decision.day);
        CHECK_FALSE(rule::record_needs_rows(std::nullopt));
        CHECK(rule::record_needs_rows(rule::DayCount{k_t0, 0}));
    }
}
