#include <doctest/doctest.h>

#include <fstream>
#include <vector>

#include "campaign/recipients.hpp"
#include "fakes.hpp"
#include "results/replay.hpp"
#include "runner/decide.hpp"

using results::Cause;
using results::RowState;
using results::Status;
using runner::Decision;
using runner::ResendUnknown;
using runner::RetryRejected;
using namespace std::chrono_literals;

namespace {

// 2026-11-21T09:30:00Z: "now" for every decision here.
const util::TimePoint k_now = util::TimePoint(1'795'253'400s);

RowState row(Status status, Cause cause = Cause::none, std::uint8_t extra_flags = 0) {
    RowState s;
    s.status = status;
    s.cause = cause;
    s.flags = static_cast<std::uint8_t>(RowState::k_has_result | extra_flags |
                                        (status == Status::sent ? RowState::k_ever_sent : 0));
    return s;
}

runner::RowFacts facts(RowState state, campaign::Verdict verdict = campaign::Verdict::ok, bool sent = false,
                       bool unknown = false) {
    return {state, verdict, sent, unknown, std::nullopt};
}

// A row whose latest result was Meta's marketing limit, answered at `at`.
runner::RowFacts marketing_limited(util::TimePoint at) {
    auto f = facts(row(Status::failed, Cause::marketing_limit));
    f.marketing_limited_at = at;
    return f;
}

Decision plain(const runner::RowFacts& f, util::TimePoint now = k_now) {
    return runner::decide(f, RetryRejected::no, ResendUnknown::no, now);
}

Decision asked(const runner::RowFacts& f) {
    return runner::decide(f, RetryRejected::yes, ResendUnknown::no, k_now);
}

}  // namespace

TEST_SUITE("runner::decide") {
    TEST_CASE("a row the log never saw is sent, or recorded invalid or duplicate") {
        CHECK(plain(facts({})) == Decision::send);
        CHECK(plain(facts({}, campaign::Verdict::invalid)) == Decision::record_invalid);
        CHECK(plain(facts({}, campaign::Verdict::duplicate)) == Decision::record_duplicate);
    }
    TEST_CASE("sent, invalid and skipped rows are never touched again") {
        CHECK(plain(facts(row(Status::sent))) == Decision::done);
        CHECK(plain(facts(row(Status::invalid, Cause::invalid))) == Decision::done);
        CHECK(plain(facts(row(Status::skipped, Cause::duplicate))) == Decision::done);
        CHECK(runner::decide(facts(row(Status::sent)), RetryRejected::yes, ResendUnknown::yes, k_now) ==
              Decision::done);
    }
    TEST_CASE("a row skipped for its region (message.paused_regions) is looked at again by every run") {
        const auto paused = row(Status::skipped, Cause::region_paused);
        CHECK_FALSE(runner::settled(paused));
        CHECK(plain(facts(paused)) == Decision::send);
        CHECK(plain(facts(paused, campaign::Verdict::ok, true)) == Decision::record_already_sent);
        CHECK(runner::settled(row(Status::skipped, Cause::frequency_cap)));
    }
    TEST_CASE("a row once sent stays done even if a later record says otherwise") {
        auto s = row(Status::failed, Cause::transient, RowState::k_ever_sent);
        CHECK(runner::decide(facts(s), RetryRejected::yes, ResendUnknown::yes, k_now) == Decision::done);
    }
    TEST_CASE("retryable failures are sent again; rejected ones only when asked") {
        CHECK(plain(facts(row(Status::failed, Cause::transient))) == Decision::send);
        CHECK(plain(facts(row(Status::failed, Cause::rate_limited))) == Decision::send);
        CHECK(plain(facts(row(Status::failed, Cause::auth))) == Decision::send);
        CHECK(plain(facts(row(Status::failed, Cause::rejected))) == Decision::hold_rejected);
        CHECK(runner::decide(facts(row(Status::failed, Cause::rejected)), RetryRejected::yes, ResendUnknown::no,
                             k_now) == Decision::send);
    }
    TEST_CASE("unknown rows, and requests in flight at a crash, wait for --resend-unknown") {
        RowState in_flight;
        in_flight.flags = RowState::k_in_flight;
        in_flight.status = Status::unknown;
        CHECK(plain(facts(in_flight)) == Decision::hold_unknown);
        CHECK(plain(facts(row(Status::unknown, Cause::transient))) == Decision::hold_unknown);
        CHECK(runner::decide(facts(in_flight), RetryRejected::no, ResendUnknown::yes, k_now) == Decision::send);
    }
    TEST_CASE("a number already sent from another row is not sent again") {
        CHECK(plain(facts({}, campaign::Verdict::ok, true)) == Decision::record_already_sent);
        CHECK(runner::decide(facts({}, campaign::Verdict::ok, true), RetryRejected::yes, ResendUnknown::yes, k_now) ==
              Decision::record_already_sent);
    }
    TEST_CASE("a number of unknown outcome under an earlier CSV is held") {
        CHECK(plain(facts({}, campaign::Verdict::ok, false, true)) == Decision::hold_unknown);
        CHECK(runner::decide(facts({}, campaign::Verdict::ok, false, true), RetryRejected::no, ResendUnknown::yes,
                             k_now) == Decision::send);
    }
    TEST_CASE("rows refused for the pace or the account are always sent again") {
        for (const auto cause : {Cause::pair_rate, Cause::transient, Cause::rate_limited, Cause::auth, Cause::account,
                                 Cause::spam_limit}) {
            CAPTURE(results::to_string(cause));
            CHECK(plain(facts(row(Status::failed, cause))) == Decision::send);
        }
    }
    TEST_CASE("a marketing-limit refusal holds the row until 24 h have passed since that answer") {
        CHECK(plain(marketing_limited(k_now - 1min)) == Decision::hold_marketing_limit);
        CHECK(plain(marketing_limited(k_now - 23h - 59min)) == Decision::hold_marketing_limit);
        CHECK(plain(marketing_limited(k_now - 24h)) == Decision::send);
        CHECK(plain(marketing_limited(k_now - 24h), k_now - 1s) == Decision::hold_marketing_limit);
        CHECK(plain(marketing_limited(k_now - 3 * 24h)) == Decision::send);
        // --retry-failed does not lift Meta's limit.
        CHECK(asked(marketing_limited(k_now - 1h)) == Decision::hold_marketing_limit);
    }
    TEST_CASE("undeliverable and outside-window rows, like rejected ones, are sent again only when asked") {
        for (const auto cause : {Cause::rejected, Cause::undeliverable, Cause::outside_window}) {
            CAPTURE(results::to_string(cause));
            CHECK(plain(facts(row(Status::failed, cause))) == Decision::hold_rejected);
            CHECK(asked(facts(row(Status::failed, cause))) == Decision::send);
        }
    }
    TEST_CASE("opted-out and suppressed rows are never sent again, even when asked") {
        for (const auto cause : {Cause::opted_out, Cause::suppressed}) {
            CAPTURE(results::to_string(cause));
            CHECK(plain(facts(row(Status::failed, cause))) == Decision::done);
            CHECK(runner::decide(facts(row(Status::failed, cause)), RetryRejected::yes, ResendUnknown::yes, k_now) ==
                  Decision::done);
        }
    }
    TEST_CASE(
        "template and policy answers: paused, disabled and blocked rows go again; the template's refusals "
        "only when asked; an experiment never") {
        for (const auto cause : {Cause::template_paused, Cause::template_disabled, Cause::policy_block}) {
            CAPTURE(results::to_string(cause));
            CHECK(plain(facts(row(Status::failed, cause))) == Decision::send);
        }
        for (const auto cause : {Cause::template_refused, Cause::template_params}) {
            CAPTURE(results::to_string(cause));
            CHECK(plain(facts(row(Status::failed, cause))) == Decision::hold_rejected);
            CHECK(asked(facts(row(Status::failed, cause))) == Decision::send);
        }
        CHECK(plain(facts(row(Status::failed, Cause::experiment))) == Decision::done);
        CHECK(runner::decide(facts(row(Status::failed, Cause::experiment)), RetryRejected::yes, ResendUnknown::yes,
                             k_now) == Decision::done);
    }
}

TEST_CASE("runner::settled: a settled row is done whatever its facts and the options; every other is not") {
    // Every state the fold can give (each status and cause, each combination of flags), with
    // every verdict, number mark and option: settled() is exactly "decide() says done for all".
    int settled_states = 0;
    for (int status = 0; status < static_cast<int>(results::k_status_count); ++status) {
        for (int cause = 0; cause <= static_cast<int>(Cause::experiment); ++cause) {
            for (std::uint8_t flags = 0; flags < 8; ++flags) {
                RowState s;
                s.status = static_cast<Status>(status);
                s.cause = static_cast<Cause>(cause);
                s.flags = flags;
                bool always_done = true;
                for (const auto verdict :
                     {campaign::Verdict::ok, campaign::Verdict::invalid, campaign::Verdict::duplicate}) {
                    for (const bool sent : {false, true}) {
                        for (const bool unknown : {false, true}) {
                            for (const auto retry : {RetryRejected::no, RetryRejected::yes}) {
                                for (const auto resend : {ResendUnknown::no, ResendUnknown::yes}) {
                                    auto f = facts(s, verdict, sent, unknown);
                                    for (const auto limited :
                                         {std::optional<util::TimePoint>{}, std::optional(k_now)}) {
                                        f.marketing_limited_at = limited;
                                        always_done =
                                            always_done && runner::decide(f, retry, resend, k_now) == Decision::done;
                                    }
                                }
                            }
                        }
                    }
                }
                CAPTURE(status);
                CAPTURE(cause);
                CAPTURE(static_cast<int>(flags));
                if (runner::settled(s)) {
                    CHECK(always_done);
                    ++settled_states;
                }
                if (!runner::settled(s) && s.status != Status::failed) {
                    CHECK_FALSE(always_done);  // a failed row's cause may make it done: see below
                }
            }
        }
    }
    CHECK(settled_states > 0);
    CHECK_FALSE(runner::settled(row(Status::failed, Cause::opted_out)));  // done, but by its cause: read in full
    CHECK_FALSE(runner::settled(RowState{}));
    CHECK(runner::settled(row(Status::sent)));
}

TEST_CASE("runner::facts_of: a row whose number differs from the one the log was joined with stops the run") {
    fakes::TempDir dir;
    const auto log = (dir.path / "log.jsonl").string();
    std::ofstream(log, std::ios::binary)
        << R"({"event":"campaign","name":"spring","campaign_file":"c.yaml","campaign_sha256":"aa",)"
           R"("recipients_file":"r.csv","recipients_sha256":"bb","started_at":"2026-11-21T09:00:00.000Z",)"
           R"("version":"0.1.0","mode":"send"})"
           "\n"
           R"({"event":"result","row":1,"wa_id":"919800000001","user_name":"N","status":"sent","attempts":1,)"
           R"("at":"2026-11-21T09:30:01.000Z"})"
           "\n";
    // The list when the run began: row 1 is the number sent, row 2 another one.
    std::vector<results::ListedRow> list{{1, "919800000001", ""}, {2, "919800000002", ""}};
    std::size_t next = 0;
    results::ReplayOptions options;
    options.rows = [&](results::ListedRow& out) -> util::Result<bool> {
        if (next == list.size()) {
            return false;
        }
        out = list[next++];
        return true;
    };
    auto state = results::replay(log, options);
    REQUIRE(state);
    campaign::Recipient r;
    r.row = 2;
    r.message.wa_id = "919800000002";
    auto same = runner::facts_of(r, &*state);
    REQUIRE(same);
    CHECK_FALSE(same->number_sent);
    // The list rewritten in place during the run: row 2 now holds the number row 1 was sent.
    r.message.wa_id = "919800000001";
    auto changed = runner::facts_of(r, &*state);
    REQUIRE_FALSE(changed);
    CHECK(changed.error().message.find("row 2") != std::string::npos);
    CHECK(changed.error().message.find("changed while the run read it") != std::string::npos);
    // An invalid row is never sent: nothing to compare.
    r.verdict = campaign::Verdict::invalid;
    CHECK(runner::facts_of(r, &*state));
}
