// The dispatcher and Meta's answers about one recipient: the pair rate (131056) holds back
// that row alone, refusals fail the row, an account code stops the campaign.
#include <doctest/doctest.h>

#include "queue_dispatch_rig.hpp"

using namespace std::chrono_literals;
using namespace dispatch_test;

namespace {

std::string meta_body(long long code, const std::string& text) {
    return R"({"error":{"message":"(#)" + std::to_string(code) + ") " + text + R"(","type":"OAuthException","code":)" +
           std::to_string(code) + R"(,"fbtrace_id":"Aabc"}})";
}

// An answer of Meta's `code` to every send to `wa_id` (the first `times` of them; -1: all),
// a success to the others.
fakes::FakeTransport::Responder meta_for(const std::string& wa_id, long long code, long status, int times = -1) {
    auto left = std::make_shared<int>(times);
    return [=](const service::HttpRequest& request) -> fakes::FakeTransport::Answer {
        if (request.body.find(wa_id) != std::string::npos && *left != 0) {
            --*left;
            return fakes::http_answer(status, meta_body(code, "error"));
        }
        return fakes::http_answer(200, k_ok);
    };
}

// The start times of the requests for `wa_id`.
std::vector<std::chrono::steady_clock::time_point> starts_of(const Rig& rig, const std::string& wa_id) {
    std::vector<std::chrono::steady_clock::time_point> out;
    for (const auto& s : rig.transport.started) {
        if (s.request.body.find(wa_id) != std::string::npos) {
            out.push_back(s.at);
        }
    }
    return out;
}

const std::string k_row1 = std::to_string(919812300001LL);

}  // namespace

TEST_SUITE("queue::dispatch") {
    TEST_CASE("a pair-rate answer holds back that row alone: the others go on at the normal pace") {
        Rig rig(meta_for(k_row1, 131056, 429, 1), 10, 0, 50ms);
        rig.settings.concurrency = 4;
        ListSource source(30);
        auto result = rig.run(source);
        CHECK(result.reason == queue::StopReason::completed);
        CHECK(rig.recorder.count(queue::JobStatus::sent) == 30);
        const auto& s = rig.transport.started;
        REQUIRE(s.size() == 31);
        const auto t0 = s.front().at;
        const auto row1 = starts_of(rig, k_row1);
        REQUIRE(row1.size() == 2);
        CHECK(row1[1] - row1[0] >= 6s + 50ms);  // 6 s after the answer
        // Rows 2…30 were started one every 100 ms (rate.per_second 10), without waiting for it.
        for (std::size_t i = 1; i < 30; ++i) {
            CAPTURE(i);
            CHECK(s[i].at - t0 <= std::chrono::milliseconds(100 * i + 10));
        }
        CHECK(s[29].at - t0 < 3s);
        // Not slowed down, and no queue-wide pause.
        CHECK(rig.limiter.current_rate() == doctest::Approx(10));
        CHECK_FALSE(rig.limiter.paused_until(rig.clock.steady_now()).has_value());
    }
    TEST_CASE("pair-rate waits grow as max(6 s, 4^n s) and the fifth answer ends the row failed") {
        Rig rig(meta_for(k_row1, 131056, 400), 1000, 0, 50ms);
        rig.settings.max_consecutive_failures = 1;  // pair-rate answers do not count
        ListSource source(1);
        auto result = rig.run(source);
        CHECK(result.reason == queue::StopReason::completed);
        const auto row1 = starts_of(rig, k_row1);
        REQUIRE(row1.size() == 5);  // more than retry.max_attempts (3): not counted as attempts
        const std::chrono::seconds waits[] = {6s, 16s, 64s, 256s};
        for (std::size_t i = 0; i < 4; ++i) {
            CAPTURE(i);
            const auto gap = row1[i + 1] - row1[i];
            CHECK(gap >= waits[i] + 50ms);
            CHECK(gap < waits[i] + 150ms);
        }
        CHECK(rig.recorder.count(queue::JobStatus::retrying) == 4);
        REQUIRE(rig.recorder.events.size() == 5);
        CHECK(rig.recorder.events.back().status == queue::JobStatus::failed);
        CHECK(rig.recorder.events.back().cause == service::Cause::pair_rate);
        CHECK(rig.recorder.events.back().requests == 5);
    }
    TEST_CASE("the pair-rate wait: max(6 s, 4^n s)") {
        CHECK(queue::pair_rate_wait(1) == 6s);
        CHECK(queue::pair_rate_wait(2) == 16s);
        CHECK(queue::pair_rate_wait(3) == 64s);
        CHECK(queue::pair_rate_wait(4) == 256s);
        CHECK(queue::pair_rate_wait(0) == 6s);
        CHECK(queue::pair_rate_wait(1000) == 24h);  // bounded
    }
    TEST_CASE("opted out, undeliverable, outside the window, marketing limit: failed once, not retried") {
        for (const long long code : {131050LL, 131026LL, 131047LL, 131049LL}) {
            CAPTURE(code);
            Rig rig(meta_for(k_row1, code, 400));
            ListSource source(3);
            auto result = rig.run(source);
            CHECK(result.reason == queue::StopReason::completed);
            CHECK(starts_of(rig, k_row1).size() == 1);
            CHECK(rig.recorder.count(queue::JobStatus::failed) == 1);
            CHECK(rig.recorder.count(queue::JobStatus::sent) == 2);
        }
    }
    TEST_CASE("recipient refusals count toward abort.max_consecutive_failures") {
        Rig rig([](const service::HttpRequest&) -> fakes::FakeTransport::Answer {
            return fakes::http_answer(400, meta_body(131049, "healthy ecosystem engagement"));
        });
        rig.settings.concurrency = 1;
        rig.settings.max_consecutive_failures = 3;
        ListSource source(10);
        auto result = rig.run(source);
        CHECK(result.reason == queue::StopReason::failure_threshold);
        CHECK(rig.transport.started.size() == 3);
    }
    TEST_CASE("an account code stops the campaign at once, saying what the service said") {
        for (const long long code : {131031LL, 131042LL, 131045LL, 133010LL, 131064LL}) {
            CAPTURE(code);
            Rig rig([code](const service::HttpRequest&) -> fakes::FakeTransport::Answer {
                return fakes::http_answer(400, meta_body(code, "Account has been locked"));
            });
            rig.settings.concurrency = 2;
            ListSource source(50);
            auto result = rig.run(source);
            CHECK(result.reason == queue::StopReason::account);
            CHECK(result.message.find("(#" + std::to_string(code) + ") Account has been locked") != std::string::npos);
            CHECK(rig.transport.started.size() <= 2);
            REQUIRE_FALSE(rig.recorder.events.empty());
            CHECK(rig.recorder.events.front().status == queue::JobStatus::failed);
            CHECK(rig.recorder.events.front().cause == service::Cause::account);
        }
        CHECK(queue::to_string(queue::StopReason::account) == "account");
    }
    TEST_CASE("a template refused, paused or disabled, or a policy block, stops the campaign at once") {
        const std::pair<long long, queue::StopReason> stops[] = {
            {132000, queue::StopReason::template_refused},  {132001, queue::StopReason::template_refused},
            {132007, queue::StopReason::template_refused},  {132015, queue::StopReason::template_paused},
            {132016, queue::StopReason::template_disabled}, {368, queue::StopReason::policy_block}};
        for (const auto& [code, reason] : stops) {
            CAPTURE(code);
            Rig rig([code](const service::HttpRequest&) -> fakes::FakeTransport::Answer {
                return fakes::http_answer(400, meta_body(code, "refused"));
            });
            rig.settings.concurrency = 2;
            ListSource source(50);
            auto result = rig.run(source);
            CHECK(result.reason == reason);
            CHECK(result.message.find("(#" + std::to_string(code) + ") refused") != std::string::npos);
            CHECK(rig.transport.started.size() <= 2);
            REQUIRE_FALSE(rig.recorder.events.empty());
            CHECK(rig.recorder.events.front().status == queue::JobStatus::failed);
        }
        CHECK(queue::to_string(queue::StopReason::template_refused) == "template");
        CHECK(queue::to_string(queue::StopReason::template_paused) == "template_paused");
        CHECK(queue::to_string(queue::StopReason::template_disabled) == "template_disabled");
        CHECK(queue::to_string(queue::StopReason::policy_block) == "policy_block");
    }
    TEST_CASE("a row's template values refused fail that row; 10 such answers in a row stop the campaign") {
        for (const long long code : {132005LL, 132012LL, 132018LL}) {
            CAPTURE(code);
            Rig rig([code](const service::HttpRequest&) -> fakes::FakeTransport::Answer {
                return fakes::http_answer(400, meta_body(code, "parameter problem"));
            });
            rig.settings.concurrency = 1;
            ListSource source(30);
            auto result = rig.run(source);
            CHECK(result.reason == queue::StopReason::template_refused);
            CHECK(result.message.find("last 10 rows") != std::string::npos);
            CHECK(rig.transport.started.size() == queue::k_template_params_stop);
            CHECK(rig.recorder.count(queue::JobStatus::failed) == queue::k_template_params_stop);
            CHECK(rig.recorder.events.back().cause == service::Cause::template_params);
        }
    }
    TEST_CASE("a success between template-values refusals starts the count again") {
        // Rows 1-9 and 11-19 refused, row 10 sent: never 10 in a row.
        Rig rig([](const service::HttpRequest& request) -> fakes::FakeTransport::Answer {
            if (request.body.find(std::to_string(919812300010LL)) != std::string::npos) {
                return fakes::http_answer(200, k_ok);
            }
            return fakes::http_answer(400, meta_body(132018, "parameter problem"));
        });
        rig.settings.concurrency = 1;
        rig.settings.max_consecutive_failures = 0;
        ListSource source(19);
        auto result = rig.run(source);
        CHECK(result.reason == queue::StopReason::completed);
        CHECK(rig.recorder.count(queue::JobStatus::failed) == 18);
        CHECK(rig.recorder.count(queue::JobStatus::sent) == 1);
    }
    TEST_CASE("a user in a marketing experiment fails once, not retried, and the run goes on") {
        Rig rig(meta_for(k_row1, 130472, 400));
        ListSource source(3);
        auto result = rig.run(source);
        CHECK(result.reason == queue::StopReason::completed);
        CHECK(starts_of(rig, k_row1).size() == 1);
        REQUIRE_FALSE(rig.recorder.events.empty());
        CHECK(rig.recorder.events.front().cause == service::Cause::experiment);
        CHECK(rig.recorder.count(queue::JobStatus::failed) == 1);
        CHECK(rig.recorder.count(queue::JobStatus::sent) == 2);
    }
    TEST_CASE("131049 to a template that is not marketing is an ordinary refusal, not the marketing limit") {
        for (const auto hold : {service::MarketingHold::applies, service::MarketingHold::not_applicable}) {
            Rig rig(meta_for(k_row1, 131049, 400));
            ListSource source(2);
            for (auto& job : source.jobs()) {
                job.marketing_hold = hold;
            }
            auto result = rig.run(source);
            CHECK(result.reason == queue::StopReason::completed);
            REQUIRE_FALSE(rig.recorder.events.empty());
            CHECK(rig.recorder.events.front().status == queue::JobStatus::failed);
            CHECK(
                rig.recorder.events.front().cause ==
                (hold == service::MarketingHold::applies ? service::Cause::marketing_limit : service::Cause::rejected));
        }
    }
}
