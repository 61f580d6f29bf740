#include "service/classify.hpp"

#include <fmt/format.h>
#include <algorithm>

#include "service/requests.hpp"
#include "service/response_body.hpp"
#include "service/retry_after.hpp"

namespace service {

namespace {

constexpr long long k_rate_limit_codes[] = {4, 80007, 130429};
constexpr long long k_auth_codes[] = {0, 190};
// Not refused credentials: the account may not send for a while (docs/decisions.md "368").
constexpr long long k_policy_block_code = 368;
constexpr long long k_spam_limit_code = 131048;
constexpr long long k_account_codes[] = {131031, 131042, 131045, 133010, 131064};

bool contains(const auto& list, long long code) {
    return std::find(std::begin(list), std::end(list), code) != std::end(list);
}

// The cause of a Meta code that concerns one recipient, the template or the whole account,
// whatever the HTTP status; nothing for the others.
std::optional<Cause> recipient_cause(std::optional<long long> code, MarketingHold hold) {
    if (!code) {
        return std::nullopt;
    }
    switch (*code) {
    case 131056: return Cause::pair_rate;
    case 131049: return hold == MarketingHold::applies ? Cause::marketing_limit : Cause::rejected;
    case 132000:
    case 132001:
    case 132007: return Cause::template_refused;
    case 132005:
    case 132012:
    case 132018: return Cause::template_params;
    case 132015: return Cause::template_paused;
    case 132016: return Cause::template_disabled;
    case 130472: return Cause::experiment;
    case 131050: return Cause::opted_out;
    case 131026: return Cause::undeliverable;
    case 131047: return Cause::outside_window;
    default: break;
    }
    return contains(k_account_codes, *code) ? std::optional(Cause::account) : std::nullopt;
}

// Whether `cause` stops the whole campaign rather than concerning one message.
bool stops_campaign(Cause cause) {
    switch (cause) {
    case Cause::auth:
    case Cause::spam_limit:
    case Cause::account:
    case Cause::policy_block:
    case Cause::template_refused:
    case Cause::template_paused:
    case Cause::template_disabled: return true;
    default: return false;
    }
}

// Whether `cause` still acts when the answer is sent all the same (it named its message id): it
// stops the campaign, or marks the number in the account's ledger (suppressed, counted, held).
bool keeps_effect(Cause cause) {
    return stops_campaign(cause) || cause == Cause::opted_out || cause == Cause::undeliverable ||
           cause == Cause::marketing_limit;
}

std::string describe(long status, const BodyFacts& facts) {
    if (facts.error_text.empty()) {
        return fmt::format("HTTP {}", status);
    }
    return fmt::format("HTTP {}: {}", status, facts.error_text);
}

}  // namespace

std::string_view to_string(Cause cause) {
    switch (cause) {
    case Cause::none: return "";
    case Cause::rate_limited: return "rate_limited";
    case Cause::transient: return "transient";
    case Cause::auth: return "auth";
    case Cause::spam_limit: return "spam_limit";
    case Cause::rejected: return "rejected";
    case Cause::tls: return "tls";
    case Cause::pair_rate: return "pair_rate";
    case Cause::marketing_limit: return "marketing_limit";
    case Cause::opted_out: return "opted_out";
    case Cause::undeliverable: return "undeliverable";
    case Cause::outside_window: return "outside_window";
    case Cause::account: return "account";
    case Cause::endpoint: return "endpoint";
    case Cause::template_refused: return "template";
    case Cause::template_params: return "template_params";
    case Cause::template_paused: return "template_paused";
    case Cause::template_disabled: return "template_disabled";
    case Cause::experiment: return "experiment";
    case Cause::policy_block: return "policy_block";
    }
    return "";
}

Outcome classify_response(const HttpResponse& response, std::chrono::system_clock::time_point now, MarketingHold hold) {
    Outcome out;
    const long status = response.status;
    out.http_status = status;
    BodyFacts facts = read_body(response.body);
    out.error_code = facts.error_code;
    const bool is_2xx = status >= 200 && status < 300;
    const auto code = facts.error_code;

    if (code && *code == k_policy_block_code) {
        out.cause = Cause::policy_block;  // whatever the status: often 403, and not a key problem
    } else if (status == 401 || status == 403 || (code && contains(k_auth_codes, *code))) {
        out.cause = Cause::auth;
    } else if (code && *code == k_spam_limit_code) {
        out.cause = Cause::spam_limit;
    } else if (const auto meta = recipient_cause(code, hold)) {
        out.cause = *meta;
    } else if (status == 429 || (code && contains(k_rate_limit_codes, *code))) {
        out.cause = Cause::rate_limited;
        out.retry_after = parse_retry_after(find_header(response.headers, "retry-after"), now);
    } else if (status == 408 || (status >= 500 && status < 600)) {
        // The service answered that it failed: retried. Only no answer at all is ambiguous.
        out.cause = Cause::transient;
    } else if (status == 404 || status == 405) {
        // No Meta code with a cause of its own (every such code was read above; 100 or 2500 are
        // not) says it concerns the recipient: the URL itself is wrong (docs/decisions.md "A wrong
        // endpoint"), and every other row would get the same answer.
        out.cause = Cause::endpoint;
    } else if (is_2xx && !facts.success_false && !code) {
        out.cause = Cause::none;
    } else {
        out.cause = Cause::rejected;
    }
    // An answer that names the message it accepted was accepted, whatever its status or code
    // (130429, 131056, 132015, a 404, …): resending it would deliver it twice. A bare top-level
    // id counts only on a 2xx that is not `success: false`: an error may carry a request id.
    const bool named = !facts.message_id.empty();
    if (named || (is_2xx && !facts.success_false && !facts.top_id.empty())) {
        out.message_id = std::move(named ? facts.message_id : facts.top_id);
        if (keeps_effect(out.cause)) {
            out.code_cause = out.cause;  // the run stops, or the ledger marks the number, all the same
            out.error = describe(status, facts);
        }
        out.cause = Cause::none;
        out.retry_after.reset();
        return out;
    }
    if (out.cause != Cause::none) {
        out.error = describe(status, facts);
    }
    return out;
}

std::string wrong_endpoint(const HttpRequest& request, const Outcome& outcome) {
    return fmt::format(
        "{} {} answered {}: the service has no such URL; check service.base_url (wacamp adds the operations' "
        "paths, /whatsapp-automation/… and /inbox/…, to it)",
        method_name(request.method), redacted_url(request.url), outcome.error);
}

Outcome classify_transport_error(const TransportError& error) {
    Outcome out;
    if (error.failure == TransportFailure::certificate) {
        // Retrying would fail the same way, or worse, talk to whoever holds that certificate.
        out.cause = Cause::tls;
        out.error = "TLS certificate verification failed: " + error.message;
        return out;
    }
    out.cause = Cause::transient;
    out.ambiguous = error.request_sent;
    out.error = error.message;
    return out;
}

Outcome classify(const Completion& completion, std::chrono::system_clock::time_point now, MarketingHold hold) {
    if (const auto* response = std::get_if<HttpResponse>(&completion.result)) {
        return classify_response(*response, now, hold);
    }
    return classify_transport_error(std::get<TransportError>(completion.result));
}

}  // namespace service
