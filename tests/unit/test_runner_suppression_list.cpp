#include <doctest/doctest.h>

#include <fstream>

#include "account_ledger_fixture.hpp"
#include "cli/run_common.hpp"
#include "runner/account_book.hpp"
#include "runner/suppression_list.hpp"

namespace {

using namespace account_fixture;
using account::Suppression;
using fakes::TempDir;
using runner::NumberForm;

campaign::PhoneNormalizer phones(const std::string& country) {
    auto made = campaign::PhoneNormalizer::create(country);
    REQUIRE(made.ok());
    return std::move(*made);
}

std::string write(const TempDir& dir, const std::string& name, const std::string& text) {
    std::ofstream(dir.file(name), std::ios::binary) << text;
    return dir.file(name);
}

std::vector<Suppression> listed(account::Ledger& ledger) {
    std::vector<Suppression> out;
    REQUIRE(ledger.list_suppressed([&](const Suppression& s) { out.push_back(s); }).ok());
    return out;
}

// A ledger that keeps the size of every suppress() batch and answers "all new", or fails.
class RecordingLedger final : public account::Ledger {
public:
    std::vector<std::size_t> batches;
    std::vector<Suppression> entries;
    bool fail = false;

    util::Result<std::size_t> suppress(const std::vector<Suppression>& batch) override {
        if (fail) {
            return util::fail("ledger x.sqlite: adding to the suppression list: database is locked");
        }
        batches.push_back(batch.size());
        entries.insert(entries.end(), batch.begin(), batch.end());
        return batch.size();
    }
    util::Result<std::size_t> unsuppress(const std::vector<std::string>&) override { return std::size_t{0}; }
    util::Result<std::vector<Suppression>> suppressed(const std::vector<std::string>&) override {
        return std::vector<Suppression>{};
    }
    util::Result<void> list_suppressed(const std::function<void(const Suppression&)>&) override { return {}; }
    util::Result<std::vector<account::Reservation>> reserve(const account::ReservationRequest&) override {
        return std::vector<account::Reservation>{};
    }
    util::Result<std::int64_t> begin_run(const std::string&, util::TimePoint) override { return std::int64_t{1}; }
    util::Result<account::Recorded> record(const account::ResultBatch&) override { return account::Recorded{}; }
    util::Result<std::vector<account::Hold>> held(const std::vector<std::string>&, util::TimePoint) override {
        return std::vector<account::Hold>{};
    }
    util::Result<std::vector<account::CampaignSend>> campaign_sends(const std::string&,
                                                                    const std::vector<std::string>&) override {
        return std::vector<account::CampaignSend>{};
    }
    util::Result<std::vector<account::LastMessaged>> last_messaged(const std::vector<std::string>&) override {
        return std::vector<account::LastMessaged>{};
    }
    util::Result<std::uint64_t> folded(const std::string&) override { return std::uint64_t{0}; }
    util::Result<std::vector<std::string>> accounts() override { return std::vector<std::string>{}; }
    util::Result<std::size_t> prune(util::TimePoint) override { return std::size_t{0}; }
};

// A CSV of `count` Indian mobile numbers (wa_ids 919812300000 + i) in a `phone` column.
std::string numbers_csv(int count) {
    std::string csv = "name,phone\n";
    for (int i = 0; i < count; ++i) {
        csv += "p," + std::to_string(9812300000LL + i) + "\n";
    }
    return csv;
}

}  // namespace

TEST_SUITE("runner::suppression_list") {
    TEST_CASE("numbers are normalised with the default country, each once, in the order first given") {
        auto wa_ids = runner::normalize_numbers({"98123 45678", "+44 7400 123456", "+91-98123-45678", "9812345679"},
                                                phones("IN"), NumberForm::as_csv);
        REQUIRE(wa_ids.ok());
        CHECK(*wa_ids == std::vector<std::string>{"919812345678", "447400123456", "919812345679"});
    }

    TEST_CASE("international numbers must start with +, even when their digits carry a country code") {
        auto plain = runner::normalize_numbers({"919812345678"}, phones(""), NumberForm::international);
        REQUIRE_FALSE(plain.ok());
        CHECK(plain.error().message == "\"919812345678\" does not start with +: give the number with its country code");
        auto plus = runner::normalize_numbers({" +91 98123 45678"}, phones(""), NumberForm::international);
        REQUIRE(plus.ok());
        CHECK(*plus == std::vector<std::string>{"919812345678"});
    }

    TEST_CASE("one unusable number fails them all, naming every unusable one") {
        auto wa_ids =
            runner::normalize_numbers({"+919812345678", "abc", "+911", "12345"}, phones(""), NumberForm::as_csv);
        REQUIRE_FALSE(wa_ids.ok());
        const std::string& message = wa_ids.error().message;
        CHECK(message.find("\"abc\" is not a phone number") != std::string::npos);
        CHECK(message.find("\"+911\"") != std::string::npos);
        CHECK(message.find("\"12345\"") != std::string::npos);
        CHECK(message.find("919812345678") == std::string::npos);
        CHECK(std::count(message.begin(), message.end(), '\n') == 2);
    }

    TEST_CASE("a list's source is file: and its base name") {
        CHECK(runner::list_source("/srv/lists/do-not-contact.csv") == "file:do-not-contact.csv");
        CHECK(runner::list_source("dnc.csv") == "file:dnc.csv");
    }

    TEST_CASE("an import goes to the ledger in batches of 10,000, each entry as given") {
        TempDir dir;
        const auto csv = write(dir, "big.csv", numbers_csv(10'001));
        RecordingLedger ledger;
        auto import = runner::import_suppression_list(ledger, csv, phones("IN"), {"listed", "file:big.csv", k_t0});
        REQUIRE(import.ok());
        CHECK(ledger.batches == std::vector<std::size_t>{10'000, 1});
        CHECK(import->reading.numbers == 10'001);
        CHECK(import->added == 10'001);
        REQUIRE(ledger.entries.size() == 10'001);
        CHECK(ledger.entries.back().wa_id == "919812310000");
        CHECK(ledger.entries.back().reason == "listed");
        CHECK(ledger.entries.back().source == "file:big.csv");
        CHECK(ledger.entries.back().since == k_t0);
    }

    TEST_CASE("an import counts bad rows with examples, and what the list already held") {
        TempDir dir;
        const auto csv = write(dir, "dnc.csv", "wa_id,phone\n919812345678,x\nabc,x\n+44 7400 123456,x\n");
        auto ledger = open_at(dir.file("ledger.sqlite"));
        REQUIRE(ledger->suppress({Suppression{"447400123456", "opted_out", k_t0, "campaign:spring"}}).ok());
        auto import = runner::import_suppression_list(*ledger, csv, phones("IN"), {"vip", "file:dnc.csv", k_t0 + 1h});
        REQUIRE(import.ok());
        CHECK(import->reading.numbers == 2);
        CHECK(import->added == 1);
        CHECK(import->reading.problems == 1);
        REQUIRE(import->reading.examples.size() == 1);
        CHECK(import->reading.examples[0] == csv + ":3: \"abc\" is not a phone number");
        const auto all = listed(*ledger);
        REQUIRE(all.size() == 2);
        CHECK(all[0].reason == "opted_out");  // kept its first entry
        CHECK(all[1].wa_id == "919812345678");
        CHECK(all[1].reason == "vip");
        CHECK(all[1].since == k_t0 + 1h);
    }

    TEST_CASE("an import fails with the ledger's error, and on a file that cannot be read") {
        TempDir dir;
        RecordingLedger ledger;
        ledger.fail = true;
        const auto csv = write(dir, "dnc.csv", numbers_csv(3));
        auto failed = runner::import_suppression_list(ledger, csv, phones("IN"), {"listed", "file:dnc.csv", k_t0});
        REQUIRE_FALSE(failed.ok());
        CHECK(failed.error().message.find("database is locked") != std::string::npos);
        ledger.fail = false;
        auto missing = runner::import_suppression_list(ledger, dir.file("missing.csv"), phones("IN"),
                                                       {"listed", "file:missing.csv", k_t0});
        REQUIRE_FALSE(missing.ok());
        CHECK(missing.error().message.find("missing.csv") != std::string::npos);
        CHECK(ledger.batches.empty());
    }

    TEST_CASE("a run takes suppression.files in as listed, file:NAME; a dry run keeps them in memory") {
        TempDir dir;
        campaign::Campaign c;
        c.account.name = "acme";
        c.account.ledger = dir.file("ledger.sqlite");
        c.recipients.default_country = "IN";
        c.suppression.files = {write(dir, "dnc.csv", "phone\n98123 45678\nnope\n")};
        std::vector<std::string> warnings;
        auto warn = [&](const std::string& w) { warnings.push_back(w); };

        auto preview = cli::open_account_book(c, account::Access::read_only);
        REQUIRE(preview.ok());
        REQUIRE((*preview)->take_lists(k_t0, warn).ok());
        auto screened = (*preview)->screen(sends("spring", {"919812345678"}), k_t0);
        REQUIRE(screened.ok());
        CHECK(screened->at(0).cause == results::Cause::suppressed);
        CHECK(listed((*preview)->ledger()).empty());

        auto book = cli::open_account_book(c, account::Access::read_write);
        REQUIRE(book.ok());
        auto taken = (*book)->take_lists(k_t0, warn);
        REQUIRE(taken.ok());
        CHECK(*taken == 1);
        const auto all = listed((*book)->ledger());
        REQUIRE(all.size() == 1);
        CHECK(all[0].wa_id == "919812345678");
        CHECK(all[0].reason == "listed");
        CHECK(all[0].source == "file:dnc.csv");
        REQUIRE(warnings.size() == 2);
        CHECK(warnings[1].find("1 row of " + c.suppression.files[0] + " hold no usable number") != std::string::npos);
    }
}
