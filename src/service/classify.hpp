#pragma once
// What a response (or its absence) means, as a value: docs/decisions.md "The wire".

#include <chrono>
#include <optional>
#include <string>
#include <string_view>

#include "service/http.hpp"

namespace service {

enum class Cause {
    none,          // sent
    rate_limited,  // not processed; retry after a queue-wide pause, not counted as an attempt
    transient,     // 408, 5xx, timeout, connection trouble: retry with backoff
    auth,          // key or token refused: stop the campaign
    spam_limit,    // Meta 131048: stop the campaign
    rejected,      // any other 4xx or error code: permanent for this recipient
    tls,           // the service's certificate failed verification: stop, never retried
    // Meta's answers about one recipient, on any HTTP status (docs/decisions.md "Meta's answers"):
    pair_rate,        // 131056: too many messages to this user just now; retry this one later
    marketing_limit,  // 131049: the user's marketing limit; not retried in this run
    opted_out,        // 131050: the user stopped marketing messages; never retried
    undeliverable,    // 131026: not on WhatsApp, an old app, terms not accepted
    outside_window,   // 131047: more than 24 h since the user last wrote
    account,          // 131031, 131042, 131045, 133010, 131064: the account cannot send: stop
    // 404 or 405 without a Meta code that has a cause of its own (none, or one such as 100 or
    // 2500): no such URL at the service (service.base_url is wrong), not an answer about the
    // recipient: stop; the request was not acted on
    endpoint,
    // Meta's answers about a template (docs/decisions.md "Template answers"):
    template_refused,   // 132000, 132001, 132007: every row would fail alike: stop
    template_params,    // 132005, 132012, 132018: this row's values; failed
    template_paused,    // 132015: paused by Meta for low quality: stop until the pause lifts
    template_disabled,  // 132016: disabled: stop, a new template is needed
    experiment,         // 130472: the user is in a Meta marketing experiment; never retried
    policy_block,       // 368: the account is temporarily blocked for a policy violation: stop
};

// Whether Meta's per-user marketing limit (131049) holds a message back for a day: it does for
// text and image messages and MARKETING templates; for a template of another category 131049 is
// an ordinary refusal (`rejected`).
enum class MarketingHold { applies, not_applicable };

struct Outcome {
    Cause cause = Cause::none;
    bool ambiguous = false;               // no answer after the request left: may have been delivered
    std::optional<long> http_status;      // when there was a response
    std::optional<long long> error_code;  // Meta's error.code, when the body had one
    std::optional<std::chrono::milliseconds> retry_after;
    std::string message_id;  // when sent and the body named one
    // A sent answer (it named its message id) whose Meta code, or refused credentials, still
    // acts: the cause it would have had otherwise — one that stops the campaign (template_paused,
    // auth, …) or a mark in the account's ledger (opted_out, undeliverable, marketing_limit).
    // None otherwise; `error` then says what the service said.
    Cause code_cause = Cause::none;
    std::string error;  // for people, e.g. "HTTP 400: (#131026) Message undeliverable"

    bool sent() const { return cause == Cause::none; }
    bool retryable() const { return cause == Cause::rate_limited || cause == Cause::transient; }
};

// Returns the log's name of `cause`: "rate_limited", "transient", … ("" for none).
std::string_view to_string(Cause cause);

// Classifies an HTTP response; `now` resolves a Retry-After given as an HTTP date; `hold` says
// what a 131049 answer is. An answer that names a message id (data.messageId, messageId,
// messages[0].id on any status; a bare top-level id on a 2xx that is not `success: false`) is
// sent, whatever status or code it also carries (docs/decisions.md "An answer that names its
// message id").
Outcome classify_response(const HttpResponse& response, std::chrono::system_clock::time_point now,
                          MarketingHold hold = MarketingHold::applies);

// Classifies a request that got no response.
Outcome classify_transport_error(const TransportError& error);

// Classifies either kind of completion.
Outcome classify(const Completion& completion, std::chrono::system_clock::time_point now,
                 MarketingHold hold = MarketingHold::applies);

// Returns what a person is told of `outcome`, a wrong-endpoint answer to `request`: which URL
// (its API key masked) answered what, and what to fix.
std::string wrong_endpoint(const HttpRequest& request, const Outcome& outcome);

}  // namespace service
