// Meta's answers about one recipient, end to end: the sandbox answers chosen numbers with Meta's
// codes (--meta-error), and wacamp retries, fails, explains or stops as docs/result-log.md says.

#include <doctest/doctest.h>

#include "fixtures.hpp"
#include "util/time.hpp"
#include "util/zone.hpp"

using namespace e2e;
using nlohmann::json;

namespace {

// The log's records for `row`, in order.
std::vector<json> records_of(const CampaignFixture& f, long long row) {
    std::vector<json> out;
    for (const auto& r : f.records()) {
        if ((r.value("event", "") == "attempt" || r.value("event", "") == "result") && r["row"] == row) {
            out.push_back(r);
        }
    }
    return out;
}

util::TimePoint at_of(const json& record) {
    return util::parse_timestamp(record["at"].get<std::string>(), util::TimestampSyntax::rfc3339).value();
}

std::string meta_error(int i, const std::string& code) {
    return numbers_wa_id(i) + "=" + code;
}

}  // namespace

TEST_SUITE("e2e: meta") {
    TEST_CASE("a pair-rate answer holds back that number alone: it is sent after 6 s, the list goes on") {
        Sandbox sandbox({"--meta-error", meta_error(1, "131056x1")});
        const int n = 8;
        CampaignFixture f(sandbox, numbers_csv(n), "rate: {per_second: 50, concurrency: 2}\n");
        auto r = f.wacamp({"run", f.campaign.string(), "--no-progress"});
        CAPTURE(r.out);
        CAPTURE(r.err);
        CHECK(r.exit_code == 0);
        CHECK(once_each(delivered(sandbox), n) == "");
        CHECK(requests_for(sandbox, numbers_wa_id(1)) == 2);
        // Row 2: attempt, interim failed result (pair_rate, the code), attempt, sent.
        const auto row = records_of(f, 2);
        REQUIRE(row.size() == 4);
        CHECK(row[0]["event"] == "attempt");
        CHECK(row[0]["attempt"] == 1);
        CHECK(row[1]["event"] == "result");
        CHECK(row[1]["status"] == "failed");
        CHECK(row[1]["cause"] == "pair_rate");
        CHECK(row[1]["error_code"] == 131056);
        CHECK(row[1]["http_status"] == 429);
        CHECK(row[2]["event"] == "attempt");
        CHECK(row[2]["attempt"] == 2);
        CHECK(row[3]["status"] == "sent");
        CHECK_FALSE(row[3].contains("error_code"));
        CHECK(at_of(row[2]) - at_of(row[1]) >= std::chrono::seconds(6));
        // Every other row was sent before the held one went again: none waited for it.
        for (int other = 1; other <= n; ++other) {
            if (other != 2) {
                CAPTURE(other);
                const auto rec = records_of(f, other);
                REQUIRE_FALSE(rec.empty());
                CHECK(rec.back()["status"] == "sent");
                CHECK(at_of(rec.back()) < at_of(row[2]));
            }
        }
        // Not a throttle: no queue-wide slow-down was reported.
        CHECK_FALSE(contains(r.out, "rate limited"));
    }
    TEST_CASE("an opted-out number fails with its code, exit 1, and is never sent again, even with --retry-failed") {
        Sandbox sandbox({"--meta-error", meta_error(2, "131050")});
        CampaignFixture f(sandbox, numbers_csv(4));
        auto r = f.wacamp({"run", f.campaign.string(), "--no-progress"});
        CAPTURE(r.out);
        CAPTURE(r.err);
        CHECK(r.exit_code == 1);
        const auto row = records_of(f, 3);
        REQUIRE(row.size() == 2);
        CHECK(row[1]["status"] == "failed");
        CHECK(row[1]["cause"] == "opted_out");
        CHECK(row[1]["error_code"] == 131050);
        CHECK(contains(r.out, "opted_out 1"));
        CHECK(contains(r.err, "opted_out 1"));
        CHECK(requests_for(sandbox, numbers_wa_id(2)) == 1);

        auto resumed = f.wacamp({"resume", f.log.string(), "--retry-failed", "--no-progress"});
        CAPTURE(resumed.out);
        CAPTURE(resumed.err);
        CHECK(resumed.exit_code == 1);
        CHECK(requests_for(sandbox, numbers_wa_id(2)) == 1);  // the journal: no second request
        CHECK(contains(resumed.err, "1 opted out, suppressed or in a Meta experiment (never sent again)"));
        CHECK(once_each(delivered(sandbox), 3) == "");

        auto report = f.wacamp({"report", f.log.string(), "--format", "json"});
        REQUIRE(report.exit_code == 0);
        const auto errors = json::parse(report.out)["errors"];
        REQUIRE(errors.size() == 1);
        CHECK(errors[0]["cause"] == "opted_out");
        CHECK(errors[0]["error_code"] == 131050);
    }
    TEST_CASE("the summary explains outside_window: such users need a template message") {
        Sandbox sandbox({"--meta-error", meta_error(0, "131047"), "--meta-error", meta_error(3, "131047")});
        CampaignFixture f(sandbox, numbers_csv(5));
        auto r = f.wacamp({"run", f.campaign.string(), "--no-progress"});
        CAPTURE(r.out);
        CAPTURE(r.err);
        CHECK(r.exit_code == 1);
        CHECK(contains(r.out,
                       "2 recipient(s) have not written in the last 24 h: WhatsApp only lets a template message "
                       "reach them"));
        CHECK(contains(r.err, "2 recipient(s) failed (outside_window 2)"));
        CHECK(status_counts(f)["failed"] == 2);
        // Not retried without --retry-failed.
        auto resumed = f.wacamp({"resume", f.log.string(), "--no-progress"});
        CHECK(requests_for(sandbox, numbers_wa_id(0)) == 1);
        CHECK(contains(resumed.out, "2 recipient(s) were refused by the service for good"));
        CHECK(contains(resumed.err, "to try them again: wacamp resume " + f.log.string() + " --retry-failed"));
    }
    TEST_CASE("an account code stops the campaign at once: exit 3, reason account, saying what the service said") {
        Sandbox sandbox({"--meta-error", meta_error(1, "131031")});
        CampaignFixture f(sandbox, numbers_csv(30), "rate: {per_second: 20, concurrency: 1}\n");
        auto r = f.wacamp({"run", f.campaign.string(), "--no-progress"});
        CAPTURE(r.out);
        CAPTURE(r.err);
        CHECK(r.exit_code == 3);
        const auto records = f.records();
        REQUIRE_FALSE(records.empty());
        CHECK(records.back()["event"] == "end");
        CHECK(records.back()["reason"] == "account");
        CHECK(send_requests(sandbox) == 2);  // row 1 sent, row 2 refused, nothing after
        const auto row = records_of(f, 2);
        REQUIRE(row.size() == 2);
        CHECK(row[1]["cause"] == "account");
        CHECK(row[1]["error_code"] == 131031);
        CHECK(contains(r.err, "(#131031) Account has been locked"));
        CHECK(contains(r.err, "WhatsApp refused the account"));
        CHECK(contains(r.out, "wacamp resume "));
    }
    TEST_CASE("a marketing-limit refusal is not retried by an immediate resume, which says until when") {
        Sandbox sandbox({"--meta-error", meta_error(1, "131049")});
        CampaignFixture f(sandbox, numbers_csv(3));
        f.env["TZ"] = "UTC";
        auto r = f.wacamp({"run", f.campaign.string(), "--no-progress"});
        CAPTURE(r.out);
        CHECK(r.exit_code == 1);
        CHECK(contains(r.out, "a later run or resume retries them once 24 h have passed"));
        const auto row = records_of(f, 2);
        REQUIRE(row.size() == 2);
        CHECK(row[1]["cause"] == "marketing_limit");
        CHECK(row[1]["error_code"] == 131049);
        // In UTC (TZ), said once, as the summary and resume say it.
        const auto until =
            util::format_zoned_time(at_of(row[1]) + std::chrono::hours(24), at_of(row[1]), util::TimeZone::utc());

        auto resumed = f.wacamp({"resume", f.log.string(), "--no-progress"});
        CAPTURE(resumed.out);
        CAPTURE(resumed.err);
        CHECK(resumed.exit_code == 1);
        CHECK(requests_for(sandbox, numbers_wa_id(1)) == 1);
        // The held row and when it may go: in the summary, on stderr, and in what resume found.
        CHECK(contains(resumed.out, "1 recipient(s) held for WhatsApp's marketing limit until " + until));
        CHECK(contains(resumed.err, "held for WhatsApp's marketing limit until " + until));
        // Even --retry-failed does not lift Meta's limit.
        f.wacamp({"resume", f.log.string(), "--retry-failed", "--no-progress"});
        CHECK(requests_for(sandbox, numbers_wa_id(1)) == 1);
    }
    TEST_CASE("368 stops the campaign as a policy block, not a credentials problem; resume sends the row later") {
        Sandbox sandbox({"--meta-error", meta_error(1, "368x1")});
        CampaignFixture f(sandbox, numbers_csv(20), "rate: {per_second: 20, concurrency: 1}\n");
        auto r = f.wacamp({"run", f.campaign.string(), "--no-progress"});
        CAPTURE(r.out);
        CAPTURE(r.err);
        CHECK(r.exit_code == 3);
        const auto records = f.records();
        REQUIRE_FALSE(records.empty());
        CHECK(records.back()["reason"] == "policy_block");
        CHECK(send_requests(sandbox) == 2);  // row 1 sent, row 2 blocked, nothing after
        const auto row = records_of(f, 2);
        REQUIRE(row.size() == 2);
        CHECK(row[1]["cause"] == "policy_block");
        CHECK(row[1]["error_code"] == 368);
        CHECK(contains(r.err, "temporarily blocked the account for a policy violation"));
        CHECK_FALSE(contains(r.err, "service.api_key"));
        CHECK_FALSE(contains(r.err, "refused the credentials"));

        // Once the block has ended (the sandbox answers 368 once), a plain resume sends the row.
        auto resumed = f.wacamp({"resume", f.log.string(), "--no-progress"});
        CAPTURE(resumed.out);
        CAPTURE(resumed.err);
        CHECK(resumed.exit_code == 0);
        CHECK(requests_for(sandbox, numbers_wa_id(1)) == 2);
        CHECK(once_each(delivered(sandbox), 20) == "");
    }
    TEST_CASE("a user in a marketing experiment fails with its code, and even --retry-failed does not resend it") {
        Sandbox sandbox({"--meta-error", meta_error(1, "130472")});
        CampaignFixture f(sandbox, numbers_csv(3));
        auto r = f.wacamp({"run", f.campaign.string(), "--no-progress"});
        CAPTURE(r.out);
        CAPTURE(r.err);
        CHECK(r.exit_code == 1);
        const auto row = records_of(f, 2);
        REQUIRE(row.size() == 2);
        CHECK(row[1]["status"] == "failed");
        CHECK(row[1]["cause"] == "experiment");
        CHECK(row[1]["error_code"] == 130472);
        CHECK(contains(r.err, "experiment 1"));

        auto resumed = f.wacamp({"resume", f.log.string(), "--retry-failed", "--no-progress"});
        CAPTURE(resumed.out);
        CAPTURE(resumed.err);
        CHECK(resumed.exit_code == 1);
        CHECK(requests_for(sandbox, numbers_wa_id(1)) == 1);
        CHECK(once_each(delivered(sandbox), 2) == "");
        // Not suppressed: the account's list does not name it.
        auto listed = f.wacamp({"suppress", "list", "--campaign", f.campaign.string()});
        CHECK_FALSE(contains(listed.out, numbers_wa_id(1)));
    }
    TEST_CASE("a bad --meta-error is refused with exit 2, saying what is wrong") {
        for (const auto& [bad, why] : std::vector<std::pair<std::string, std::string>>{
                 {"12345=131050", "not a wa_id"},
                 {"919812300001=abc", "the code must be a positive number"},
                 {"919812300001=131056x0", "the count after 'x'"},
                 {"919812300001", "no '='"}}) {
            CAPTURE(bad);
            auto r = run_wacamp({"sandbox", "--meta-error", bad});
            CHECK(r.exit_code == 2);
            CHECK(contains(r.err, why));
        }
        auto twice =
            run_wacamp({"sandbox", "--meta-error", "919812300001=131050", "--meta-error", "919812300001=131047"});
        CHECK(twice.exit_code == 2);
        CHECK(contains(twice.err, "given twice"));
    }
}
