#include <doctest/doctest.h>

#include "sandbox/faults.hpp"

using namespace std::chrono_literals;
using sandbox::FaultInjector;
using sandbox::FaultOptions;
using sandbox::RateWindow;
using sandbox::SendVerdict;
using sandbox::SteadyTime;

namespace {

const SteadyTime t0{};
const std::string number = "919812345678";

// How many of `n` sends, one millisecond apart, get `verdict`.
int count_verdicts(FaultInjector& faults, int n, SendVerdict verdict) {
    int count = 0;
    for (int i = 0; i < n; ++i) {
        count += faults.decide_send(number, t0 + std::chrono::milliseconds(i)).verdict == verdict ? 1 : 0;
    }
    return count;
}

}  // namespace

TEST_SUITE("sandbox::RateWindow") {
    TEST_CASE("admits up to the limit within one second, then refuses") {
        RateWindow window(3, 1000ms);
        CHECK(window.admit(t0));
        CHECK(window.admit(t0 + 100ms));
        CHECK(window.admit(t0 + 200ms));
        CHECK_FALSE(window.admit(t0 + 300ms));
        CHECK_FALSE(window.admit(t0 + 999ms));
    }
    TEST_CASE("slides: room comes back one second after each admitted event") {
        RateWindow window(2, 1000ms);
        CHECK(window.admit(t0));
        CHECK(window.admit(t0 + 500ms));
        CHECK_FALSE(window.admit(t0 + 999ms));
        CHECK(window.admit(t0 + 1000ms));  // the first has left the window
        CHECK_FALSE(window.admit(t0 + 1400ms));
        CHECK(window.admit(t0 + 1500ms));
    }
    TEST_CASE("refused events do not use up the window") {
        RateWindow window(1, 1000ms);
        CHECK(window.admit(t0));
        for (int i = 1; i < 10; ++i) {
            CHECK_FALSE(window.admit(t0 + std::chrono::milliseconds(i * 100)));
        }
        CHECK(window.admit(t0 + 1000ms));
    }
    TEST_CASE("a limit of zero admits everything") {
        RateWindow window(0, 1000ms);
        for (int i = 0; i < 1000; ++i) {
            CHECK(window.admit(t0));
        }
    }
}

TEST_SUITE("sandbox::FaultInjector") {
    TEST_CASE("without faults every send is accepted and counted") {
        FaultInjector faults(FaultOptions{});
        CHECK(count_verdicts(faults, 100, SendVerdict::accept) == 100);
        CHECK(faults.accepted() == 100);
    }
    TEST_CASE("the rate limit throttles sends beyond N per second") {
        FaultOptions options;
        options.rate_limit = 5;
        FaultInjector faults(options);
        // 20 sends within 20 ms: 5 pass, 15 are throttled.
        CHECK(count_verdicts(faults, 20, SendVerdict::rate_limited) == 15);
        CHECK(faults.accepted() == 5);
        CHECK(faults.decide_send(number, t0 + 1000ms).verdict == SendVerdict::accept);
    }
    TEST_CASE("error and drop shares follow the rates and never overlap") {
        FaultOptions options;
        options.error_rate = 0.2;
        options.drop_rate = 0.1;
        options.seed = 42;
        FaultInjector faults(options);
        int errors = 0;
        int drops = 0;
        for (int i = 0; i < 10'000; ++i) {
            auto verdict = faults.decide_send(number, t0).verdict;
            errors += verdict == SendVerdict::error ? 1 : 0;
            drops += verdict == SendVerdict::dropped ? 1 : 0;
        }
        CHECK(errors == doctest::Approx(2000).epsilon(0.1));
        CHECK(drops == doctest::Approx(1000).epsilon(0.15));
        CHECK(faults.accepted() == 10'000 - errors - drops);
    }
    TEST_CASE("the same seed gives the same decisions, another seed others") {
        FaultOptions options;
        options.error_rate = 0.5;
        options.seed = 7;
        FaultInjector a(options);
        FaultInjector b(options);
        options.seed = 8;
        FaultInjector c(options);
        int differences = 0;
        for (int i = 0; i < 200; ++i) {
            auto verdict = a.decide_send(number, t0).verdict;
            CHECK(verdict == b.decide_send(number, t0).verdict);
            differences += verdict != c.decide_send(number, t0).verdict ? 1 : 0;
        }
        CHECK(differences > 0);
    }
    TEST_CASE("a rejected number always gets 131026, others are untouched") {
        FaultOptions options;
        options.reject_numbers = {"15550001111"};
        FaultInjector faults(options);
        for (int i = 0; i < 5; ++i) {
            CHECK(faults.decide_send("15550001111", t0).verdict == SendVerdict::rejected);
        }
        CHECK(faults.decide_send(number, t0).verdict == SendVerdict::accept);
        CHECK(faults.accepted() == 1);
    }
    TEST_CASE("auth-fail-after revokes the key after N accepted sends") {
        FaultOptions options;
        options.auth_fail_after = 3;
        FaultInjector faults(options);
        CHECK_FALSE(faults.key_revoked());
        CHECK(count_verdicts(faults, 3, SendVerdict::accept) == 3);
        CHECK(faults.key_revoked());
        CHECK(faults.decide_send(number, t0 + 5s).verdict == SendVerdict::revoked);
        CHECK(faults.accepted() == 3);
    }
    TEST_CASE("auth-fail-after 0 refuses from the start") {
        FaultOptions options;
        options.auth_fail_after = 0;
        FaultInjector faults(options);
        CHECK(faults.key_revoked());
    }
    TEST_CASE("rejected and throttled sends do not count towards auth-fail-after") {
        FaultOptions options;
        options.auth_fail_after = 1;
        options.rate_limit = 1;
        options.reject_numbers = {"15550001111"};
        FaultInjector faults(options);
        CHECK(faults.decide_send("15550001111", t0).verdict == SendVerdict::rejected);
        CHECK_FALSE(faults.key_revoked());
        CHECK(faults.decide_send(number, t0 + 1s).verdict == SendVerdict::accept);
        CHECK(faults.key_revoked());
    }
    TEST_CASE("spam-limit-after refuses sends after N accepted ones") {
        FaultOptions options;
        options.spam_limit_after = 2;
        FaultInjector faults(options);
        CHECK(count_verdicts(faults, 2, SendVerdict::accept) == 2);
        CHECK(faults.decide_send(number, t0 + 1s).verdict == SendVerdict::spam_limit);
        CHECK_FALSE(faults.key_revoked());
    }
    TEST_CASE("latency is fixed without jitter and within bounds with it") {
        FaultOptions options;
        options.latency = 100ms;
        FaultInjector fixed(options);
        CHECK(fixed.draw_latency() == 100ms);
        options.latency_jitter = 50ms;
        FaultInjector jittery(options);
        bool varied = false;
        auto first = jittery.draw_latency();
        for (int i = 0; i < 100; ++i) {
            auto d = jittery.draw_latency();
            CHECK(d >= 100ms);
            CHECK(d <= 150ms);
            varied = varied || d != first;
        }
        CHECK(varied);
    }
    TEST_CASE("an error is answered 500 or 503") {
        FaultInjector faults(FaultOptions{});
        bool saw500 = false;
        bool saw503 = false;
        for (int i = 0; i < 100; ++i) {
            int status = faults.draw_error_status();
            CHECK((status == 500 || status == 503));
            saw500 = saw500 || status == 500;
            saw503 = saw503 || status == 503;
        }
        CHECK(saw500);
        CHECK(saw503);
    }
    TEST_CASE("lost answers: only sends on a reused connection, at the rate given") {
        FaultOptions options;
        options.lost_answer_rate = 0.5;
        FaultInjector faults(options);
        int lost = 0;
        for (int i = 0; i < 1000; ++i) {
            CHECK_FALSE(faults.lose_answer(sandbox::ConnectionUse::first));
            lost += faults.lose_answer(sandbox::ConnectionUse::reused) ? 1 : 0;
        }
        CHECK(lost > 400);
        CHECK(lost < 600);
        FaultInjector none(FaultOptions{});
        CHECK_FALSE(none.lose_answer(sandbox::ConnectionUse::reused));
    }
}
