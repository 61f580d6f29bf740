#include <doctest/doctest.h>

#include <nlohmann/json.hpp>

#include "cli/send_causes.hpp"
#include "util/time.hpp"

using namespace std::chrono_literals;
using results::Cause;

namespace {

const util::TimePoint k_now = util::TimePoint(1'795'253'400s);  // 2026-11-21T09:30:00Z

bool has(const std::string& text, const std::string& part) {
    return text.find(part) != std::string::npos;
}

}  // namespace

TEST_SUITE("cli::send_causes") {
    TEST_CASE("no failed or skipped row: nothing to say") {
        CHECK(cli::cause_lines(runner::SendReport{}, k_now, util::TimeZone::utc()).empty());
        CHECK(cli::failed_causes({}).empty());
        CHECK(cli::cause_counts_json({}).dump() == "{}");
    }
    TEST_CASE("counts by cause on one line, then explains the causes a person can act on") {
        runner::SendReport r;
        r.causes[Cause::outside_window] = 3;
        r.causes[Cause::marketing_limit] = 2;
        r.causes[Cause::opted_out] = 1;
        r.causes[Cause::duplicate] = 4;
        const auto text = cli::cause_lines(r, k_now, util::TimeZone::utc());
        CHECK(has(text,
                  "  failed or skipped, by cause: duplicate 4 · marketing_limit 2 · opted_out 1 · outside_window 3\n"));
        CHECK(has(text,
                  "  3 recipient(s) have not written in the last 24 h: WhatsApp only lets a template message reach "
                  "them (outside_window)\n"));
        CHECK(has(text, "retries them once 24 h have passed"));
        CHECK(has(text, "never sent again"));
        CHECK(cli::failed_causes(r.causes) == "marketing_limit 2, opted_out 1, outside_window 3");
        CHECK(cli::cause_counts_json(r.causes).dump() ==
              R"({"duplicate":4,"marketing_limit":2,"opted_out":1,"outside_window":3})");
    }
    TEST_CASE("rows held for the marketing limit: how many, and the latest time they may go") {
        runner::SendReport r;
        r.causes[Cause::marketing_limit] = 2;
        r.held_marketing_limit = 2;
        r.marketing_limit_until = k_now + 3h;
        CHECK(cli::marketing_hold_note(r, k_now, util::TimeZone::utc()) ==
              "2 recipient(s) held for WhatsApp's marketing limit until 12:30 UTC");
        CHECK(has(cli::cause_lines(r, k_now, util::TimeZone::utc()),
                  "until 12:30 UTC; a later run or resume sends them then"));
        // On the campaign's clock, UTC beside.
        CHECK(cli::marketing_hold_note(r, k_now, *util::TimeZone::locate("Asia/Kolkata")) ==
              "2 recipient(s) held for WhatsApp's marketing limit until 18:00 Asia/Kolkata (12:30 UTC)");
        r.held_marketing_limit = 0;
        CHECK(cli::marketing_hold_note(r, k_now, util::TimeZone::utc()).empty());
    }
}
