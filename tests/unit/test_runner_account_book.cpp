#include <doctest/doctest.h>

#include <filesystem>

#include "account_ledger_fixture.hpp"
#include "campaign_file_fixture.hpp"
#include "cli/run_common.hpp"
#include "runner/account_book.hpp"

using namespace account_fixture;
using campaign_file_test::Folder;
using campaign_file_test::k_minimal;
using results::Cause;

namespace {

const std::string k_key = "spring@2025-03-01T00:00:00.000Z";

// The minimal campaign with the ledger at state/ledger.sqlite (account "acme", as the
// ledger fixture opens it), then `extra`.
campaign::Campaign load(const Folder& folder, const std::string& extra = "") {
    auto c = folder.load(k_minimal + "account: {name: acme, ledger: state/ledger.sqlite}\n" + extra);
    REQUIRE_MESSAGE(c.ok(), (c.ok() ? "" : c.error().message));
    return std::move(c.value());
}

std::unique_ptr<runner::AccountBook> open_book(const campaign::Campaign& c,
                                               account::Access access = account::Access::read_write) {
    auto book = cli::open_account_book(c, access);
    REQUIRE_MESSAGE(book.ok(), (book.ok() ? "" : book.error().message));
    REQUIRE(book.value() != nullptr);
    return std::move(book.value());
}

std::vector<account::Suppression> listed(account::Ledger& ledger) {
    std::vector<account::Suppression> out;
    REQUIRE(ledger.list_suppressed([&](const account::Suppression& s) { out.push_back(s); }).ok());
    return out;
}

std::vector<runner::Screening> screen(runner::AccountBook& book, const std::vector<std::string>& wa_ids,
                                      util::TimePoint now) {
    auto screened = book.screen(sends(k_key, wa_ids), now);
    REQUIRE_MESSAGE(screened.ok(), (screened.ok() ? "" : screened.error().message));
    return std::move(screened.value());
}

std::vector<Cause> causes(const std::vector<runner::Screening>& screenings) {
    std::vector<Cause> out;
    for (const auto& s : screenings) {
        out.push_back(s.cause);
    }
    return out;
}

const auto k_no_warnings = [](const std::string& warning) { FAIL("unexpected warning: " << warning); };

}  // namespace

TEST_SUITE("runner::AccountBook") {
    TEST_CASE("with account.ledger: off there is no book") {
        Folder folder;
        auto c = folder.load(k_minimal + "account: {ledger: off}\n");
        REQUIRE(c);
        auto book = cli::open_account_book(*c, account::Access::read_write);
        REQUIRE(book.ok());
        CHECK(book.value() == nullptr);
    }

    TEST_CASE("take_lists adds suppression.files to the ledger, reason listed, source file:NAME; again adds nothing") {
        Folder folder;
        folder.put("lists/dnc.csv", "phone\n+919812345678\nnot a number\n+919812345679\n");
        const auto c = load(folder, "suppression: {files: [lists/dnc.csv]}\n");
        auto book = open_book(c);
        std::vector<std::string> warnings;
        auto taken = book->take_lists(k_t0, [&](const std::string& w) { warnings.push_back(w); });
        REQUIRE(taken.ok());
        CHECK(*taken == 2);
        REQUIRE(warnings.size() == 1);
        CHECK(warnings[0].find("1 row of") != std::string::npos);
        auto first = listed(book->ledger());
        REQUIRE(first.size() == 2);
        CHECK(first[0].wa_id == "919812345678");
        CHECK(first[0].reason == "listed");
        CHECK(first[0].source == "file:dnc.csv");
        CHECK(first[0].since == k_t0);
        CHECK(first[1].wa_id == "919812345679");

        auto again = book->take_lists(k_t0 + 1h, [](const std::string&) {});
        REQUIRE(again.ok());
        auto second = listed(book->ledger());
        REQUIRE(second.size() == 2);
        CHECK(second[0].since == k_t0);  // the first entries stand
        CHECK(second[1].since == k_t0);
    }

    TEST_CASE("read_only: take_lists creates no ledger, yet screening counts the listed numbers as suppressed") {
        Folder folder;
        folder.put("lists/dnc.csv", "wa_id\n919812345678\n");
        const auto c = load(folder, "suppression: {files: [lists/dnc.csv]}\n");
        auto book = open_book(c, account::Access::read_only);
        auto taken = book->take_lists(k_t0, k_no_warnings);
        REQUIRE(taken.ok());
        CHECK(*taken == 1);
        const auto screened = screen(*book, {"919812345678", "919812345679"}, k_t0);
        CHECK(causes(screened) == std::vector<Cause>{Cause::suppressed, Cause::none});
        CHECK(screened[0].why == "listed in suppression.files");
        CHECK_FALSE(std::filesystem::exists(folder.str("state/ledger.sqlite")));
    }

    TEST_CASE("read_only: an existing ledger is left as it was") {
        Folder folder;
        folder.put("lists/dnc.csv", "phone\n+919812345678\n");
        const auto c = load(folder, "suppression: {files: [lists/dnc.csv]}\n");
        open_book(c);  // creates the ledger, empty
        auto book = open_book(c, account::Access::read_only);
        REQUIRE(book->take_lists(k_t0, k_no_warnings).ok());
        CHECK(screen(*book, {"919812345678"}, k_t0)[0].cause == Cause::suppressed);
        auto writable = open_at(folder.str("state/ledger.sqlite"));
        CHECK(listed(*writable).empty());
    }

    TEST_CASE("screen: a number on the ledger's suppression list is suppressed, saying why") {
        Folder folder;
        const auto c = load(folder);
        auto book = open_book(c);
        REQUIRE(book->ledger().suppress({account::Suppression{"2", "opted_out", k_t0, "campaign:autumn"}}).ok());
        const auto screened = screen(*book, {"1", "2"}, k_t0 + 1h);
        CHECK(causes(screened) == std::vector<Cause>{Cause::none, Cause::suppressed});
        CHECK(screened[1].why ==
              "on the account's suppression list (opted_out, since 2025-03-01T00:00:00.000Z, campaign:autumn)");
        CHECK(screened[0].why.empty());
    }

    TEST_CASE("screen: rate.per_recipient {max 1, per 7d} caps a number sent a day ago, not one sent 8 days ago") {
        Folder folder;
        const auto c = load(folder, "rate:\n  per_recipient: {max: 1, per: 7d}\n");
        auto book = open_book(c);
        auto results = batch_at(k_t0);
        results.delivered.push_back(account::Send{"1", "autumn@2025-02-01T00:00:00.000Z", 1, k_t0 - 24h});
        REQUIRE(book->ledger().record(results).ok());

        const auto screened = screen(*book, {"1", "2"}, k_t0);
        CHECK(causes(screened) == std::vector<Cause>{Cause::frequency_cap, Cause::none});
        CHECK(screened[0].why ==
              "the account messaged this number 1 time within 7d00h (rate.per_recipient); "
              "next possible at 2025-03-07T00:00:00.000Z");
        // A preview: screening wrote nothing, so "2" is still free for another campaign.
        auto other = book->screen({account::Send{"2", "summer@x", 7, std::nullopt}}, k_t0);
        REQUIRE(other.ok());
        CHECK(other->at(0).cause == Cause::none);

        CHECK(screen(*book, {"1"}, k_t0 + std::chrono::days(7) + 1s)[0].cause == Cause::none);
    }

    TEST_CASE("screen: a 131049 answer holds the number for 24 h, then no longer") {
        Folder folder;
        const auto c = load(folder);
        auto book = open_book(c);
        auto results = batch_at(k_t0);
        results.marketing_limited = {account::Answer{"1", k_t0}};
        REQUIRE(book->ledger().record(results).ok());
        const auto held = screen(*book, {"1", "2"}, k_t0 + 23h);
        CHECK(causes(held) == std::vector<Cause>{Cause::marketing_limit, Cause::none});
        CHECK(held[0].why.find("held until 2025-03-02T00:00:00.000Z") == 0);
        CHECK(screen(*book, {"1"}, k_t0 + 24h + 1s)[0].cause == Cause::none);
    }

    TEST_CASE("screen: a hold keeps back text and MARKETING templates (or one not checked), not other templates") {
        Folder folder;
        auto c = load(folder, "rate:\n  per_recipient: {max: 1, per: 7d}\n");
        auto book = open_book(c);
        auto results = batch_at(k_t0);
        results.marketing_limited = {account::Answer{"1", k_t0}};
        REQUIRE(book->ledger().record(results).ok());
        auto cause_as = [&](campaign::MessageType type, const std::string& category) {
            c.message.type = type;
            c.message.templated.category = category;  // as the check before sending found it
            return screen(*book, {"1"}, k_t0 + 1h)[0].cause;
        };
        CHECK(cause_as(campaign::MessageType::text, "") == Cause::marketing_limit);
        CHECK(cause_as(campaign::MessageType::template_message, "marketing") == Cause::marketing_limit);
        CHECK(cause_as(campaign::MessageType::template_message, "") == Cause::marketing_limit);  // --offline
        // Neither held nor taken for capped: the number had no send within the window.
        CHECK(cause_as(campaign::MessageType::template_message, "UTILITY") == Cause::none);
        CHECK(cause_as(campaign::MessageType::template_message, "AUTHENTICATION") == Cause::none);
        CHECK(book->marketing_holds() == account::MarketingHolds::ignored);
    }

    TEST_CASE("screen: suppression goes before a hold") {
        Folder folder;
        const auto c = load(folder);
        auto book = open_book(c);
        auto results = batch_at(k_t0);
        results.marketing_limited = {account::Answer{"1", k_t0}};
        results.suppress = {account::Suppression{"1", "opted_out", k_t0, "campaign:spring"}};
        REQUIRE(book->ledger().record(results).ok());
        CHECK(screen(*book, {"1"}, k_t0 + 1h)[0].cause == Cause::suppressed);
    }

    TEST_CASE("campaign_key: the name and the log's started_at, to the millisecond") {
        CHECK(runner::campaign_key("spring", k_t0 + 5ms) == "spring@2025-03-01T00:00:00.005Z");
        CHECK(runner::campaign_key("spring", k_t0) != runner::campaign_key("spring", k_t0 + 1s));
    }
    TEST_CASE("screen: the campaign's own sends in the ledger mark a row sent or reserved (any row, with dedupe)") {
        Folder folder;
        const auto c = load(folder, "rate:\n  per_recipient: {max: 1, per: 7d}\n");
        auto book = open_book(c);
        // This campaign: "1" sent from row 1 (a log folded in), "2" reserved for row 2 (its
        // request may have left), "3" for row 9's second request; another campaign sent "4".
        REQUIRE(book->ledger().reserve(request(sends(k_key, {"2"}, 2), account::Limits{}, k_t0)).ok());
        REQUIRE(book->ledger().reserve(request(for_attempt(sends(k_key, {"3"}, 9), 2), account::Limits{}, k_t0)).ok());
        auto results = batch_at(k_t0 + 1s);
        results.delivered = sends(k_key, {"1"});
        results.delivered[0].at = k_t0;
        results.delivered.push_back(account::Send{"4", "autumn@2025-02-01T00:00:00.000Z", 1, k_t0});
        REQUIRE(book->ledger().record(results).ok());
        // Rows 5..8 now hold numbers 1..4 (a CSV reordered: dedupe is on, any row counts).
        auto screened = book->screen(sends(k_key, {"1", "2", "3", "4"}, 5), k_t0 + 1h);
        REQUIRE(screened.ok());
        const auto& s = *screened;
        CHECK(s[0].ledger_sent);
        CHECK_FALSE(s[1].ledger_sent);
        CHECK(s[1].ledger_reserved);      // reserved under row 2: its number's request may have left
        CHECK(s[1].ledger_attempt == 0);  // not row 6's request
        CHECK(s[2].ledger_reserved);
        CHECK_FALSE(s[3].ledger_sent);  // another campaign's send: the cap's business
        CHECK_FALSE(s[3].ledger_reserved);
        CHECK(s[3].cause == Cause::frequency_cap);
        // The rows themselves.
        auto own = book->screen(sends(k_key, {"1", "2"}), k_t0 + 1h);
        REQUIRE(own.ok());
        CHECK((*own)[0].ledger_sent);
        CHECK((*own)[1].ledger_reserved);
        CHECK((*own)[1].cause == Cause::none);  // a row's own reservation does not count against it
        auto ninth = book->screen(sends(k_key, {"3"}, 9), k_t0 + 1h);
        REQUIRE(ninth.ok());
        CHECK((*ninth)[0].ledger_attempt == 2);
    }

    TEST_CASE(
        "screen: with recipients.dedupe false, a number sent from another row of the campaign is not this row's") {
        Folder folder;
        std::string yaml = k_minimal + "account: {name: acme, ledger: state/ledger.sqlite}\n";
        const std::string columns = "  columns: {wa_id: phone, user_name: name}\n";
        yaml.replace(yaml.find(columns), columns.size(), columns + "  dedupe: false\n");
        auto c = folder.load(yaml);
        REQUIRE_MESSAGE(c.ok(), (c.ok() ? "" : c.error().message));
        auto book = open_book(*c);
        REQUIRE(book->ledger().reserve(request(sends(k_key, {"2"}), account::Limits{}, k_t0)).ok());
        auto results = batch_at(k_t0 + 1s);
        results.delivered = sends(k_key, {"1"});  // a log folded in: held as sent
        REQUIRE(book->ledger().record(results).ok());
        auto screened = book->screen(sends(k_key, {"1", "1"}), k_t0 + 1h);  // rows 1 and 2
        REQUIRE(screened.ok());
        CHECK((*screened)[0].ledger_sent);
        CHECK_FALSE((*screened)[1].ledger_sent);
        auto other = book->screen(sends(k_key, {"2", "2"}), k_t0 + 1h);  // row 1's reservation
        REQUIRE(other.ok());
        CHECK((*other)[0].ledger_reserved);
        CHECK_FALSE((*other)[1].ledger_reserved);
    }

    TEST_CASE("recovery_of: sent whatever the log says; unknown only for a reservation the log holds no record of") {
        runner::Screening sent;
        sent.ledger_sent = true;
        runner::Screening reserved;
        reserved.ledger_reserved = true;
        const results::RowState pending{};
        results::RowFold failed;
        failed.attempt(1);
        failed.result(results::Status::failed, Cause::transient, 1);
        results::RowFold in_flight;
        in_flight.attempt(1);
        CHECK(runner::recovery_of(sent, pending) == runner::Recovery::sent);
        CHECK(runner::recovery_of(sent, failed.state) == runner::Recovery::sent);
        CHECK(runner::recovery_of(sent, in_flight.state) == runner::Recovery::sent);
        CHECK(runner::recovery_of(reserved, pending) == runner::Recovery::unknown);
        CHECK(runner::recovery_of(reserved, failed.state) == runner::Recovery::none);
        CHECK(runner::recovery_of(reserved, in_flight.state) == runner::Recovery::none);
        CHECK(runner::recovery_of(runner::Screening{}, pending) == runner::Recovery::none);
    }
    TEST_CASE("recovery_of: a reservation for a request the log does not know (an older copy of the log) is unknown") {
        runner::Screening second;
        second.ledger_reserved = true;
        second.ledger_attempt = 2;
        results::RowFold failed;
        failed.attempt(1);
        failed.result(results::Status::failed, Cause::transient, 1);
        CHECK(runner::recovery_of(second, failed.state) == runner::Recovery::unknown);
        failed.attempt(2);
        failed.result(results::Status::failed, Cause::transient, 2);
        CHECK(runner::recovery_of(second, failed.state) == runner::Recovery::none);  // the log knows it
        runner::Screening first = second;
        first.ledger_attempt = 1;
        CHECK(runner::recovery_of(first, failed.state) == runner::Recovery::none);
    }
}
