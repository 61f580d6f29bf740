// The rule for failed rows: what a later run or resume does with each cause, and the failed
// rows of a log counted by it.
#include <doctest/doctest.h>

#include "results/retry_rule.hpp"

using results::Cause;

TEST_SUITE("results::retry_rule") {
    TEST_CASE("the retry rule of every cause") {
        CHECK(results::retry_rule(Cause::pair_rate) == results::RetryRule::always);
        CHECK(results::retry_rule(Cause::account) == results::RetryRule::always);
        CHECK(results::retry_rule(Cause::marketing_limit) == results::RetryRule::after_a_day);
        CHECK(results::retry_rule(Cause::outside_window) == results::RetryRule::when_asked);
        CHECK(results::retry_rule(Cause::opted_out) == results::RetryRule::never);
        CHECK(results::retry_rule(Cause::suppressed) == results::RetryRule::never);
        CHECK(results::retry_rule(Cause::template_paused) == results::RetryRule::always);
        CHECK(results::retry_rule(Cause::template_disabled) == results::RetryRule::always);
        CHECK(results::retry_rule(Cause::policy_block) == results::RetryRule::always);
        CHECK(results::retry_rule(Cause::template_refused) == results::RetryRule::when_asked);
        CHECK(results::retry_rule(Cause::template_params) == results::RetryRule::when_asked);
        CHECK(results::retry_rule(Cause::experiment) == results::RetryRule::never);
    }
    TEST_CASE("failed rows by what a later run does with them") {
        results::CauseCounts causes;
        causes[Cause::pair_rate] = 1;
        causes[Cause::marketing_limit] = 2;
        causes[Cause::undeliverable] = 3;
        causes[Cause::outside_window] = 4;
        causes[Cause::opted_out] = 5;
        causes[Cause::duplicate] = 6;  // skipped rows are no failed rows
        const auto f = results::failed_rows(causes);
        CHECK(f.retried == 3);
        CHECK(f.when_asked == 7);
        CHECK(f.never == 5);
    }
}
