#include "results/retry_rule.hpp"

namespace results {

RetryRule retry_rule(Cause cause) {
    switch (cause) {
    case Cause::marketing_limit: return RetryRule::after_a_day;
    case Cause::rejected:
    case Cause::undeliverable:
    case Cause::outside_window:
    // The template or the row's values: sent again only once the campaign (or the row) is fixed.
    case Cause::template_refused:
    case Cause::template_params: return RetryRule::when_asked;
    case Cause::opted_out:
    case Cause::suppressed:
    case Cause::experiment: return RetryRule::never;
    // A failed row never has these, but an edited log might: a fresh look at the row decides.
    case Cause::none:
    case Cause::invalid:
    case Cause::duplicate:
    case Cause::frequency_cap:
    // Not refused for this recipient (the account or the pace was the trouble), or not processed.
    case Cause::rate_limited:
    case Cause::transient:
    case Cause::auth:
    case Cause::spam_limit:
    case Cause::pair_rate:
    case Cause::account:
    // A pause or a block that Meta lifts, or a template replaced (--force): the row goes then.
    case Cause::template_paused:
    case Cause::template_disabled:
    case Cause::policy_block:
    // Skipped, never sent: a run with other message.paused_regions (or Meta's) sends it.
    case Cause::region_paused: return RetryRule::always;
    }
    return RetryRule::always;
}

bool of_skipped_rows(Cause cause) {
    return cause == Cause::duplicate || cause == Cause::suppressed || cause == Cause::frequency_cap ||
           cause == Cause::invalid || cause == Cause::region_paused;
}

FailedRows failed_rows(const CauseCounts& causes) {
    FailedRows out;
    for (std::size_t i = 0; i < k_cause_count; ++i) {
        const auto cause = static_cast<Cause>(i);
        if (of_skipped_rows(cause)) {
            continue;
        }
        switch (retry_rule(cause)) {
        case RetryRule::always:
        case RetryRule::after_a_day: out.retried += causes[cause]; break;
        case RetryRule::when_asked: out.when_asked += causes[cause]; break;
        case RetryRule::never: out.never += causes[cause]; break;
        }
    }
    return out;
}

}  // namespace results
