#include <doctest/doctest.h>

#include "service/classify.hpp"
#include "service/retry_after.hpp"

using namespace std::chrono_literals;
using service::Cause;

namespace {

const auto k_now = std::chrono::system_clock::from_time_t(1'700'000'000);

service::Outcome answer(long status, std::string body, service::Headers headers = {}) {
    service::HttpResponse r;
    r.status = status;
    r.body = std::move(body);
    r.headers = std::move(headers);
    return service::classify_response(r, k_now);
}

std::string meta_error(long long code, const std::string& message = "boom") {
    return R"({"error":{"message":")" + message + R"(","type":"OAuthException","code":)" + std::to_string(code) +
           R"(,"error_data":{"details":"more"},"fbtrace_id":"x"}})";
}

service::Outcome lost(service::TransportFailure failure, bool sent) {
    service::TransportError e;
    e.failure = failure;
    e.request_sent = sent;
    e.message = "curl said no";
    return service::classify_transport_error(e);
}

}  // namespace

TEST_SUITE("service::classify") {
    TEST_CASE("2xx with the service's envelope is sent, with its message id") {
        auto o = answer(200, R"({"success":true,"message":"ok","data":{"messageId":"wamid.A1"}})");
        CHECK(o.sent());
        CHECK(o.message_id == "wamid.A1");
        CHECK(*o.http_status == 200);
    }
    TEST_CASE("message id is found in each documented place") {
        CHECK(answer(200, R"({"messageId":"m1"})").message_id == "m1");
        CHECK(answer(201, R"({"id":"m2"})").message_id == "m2");
        CHECK(answer(200, R"({"messages":[{"id":"wamid.m3"}]})").message_id == "wamid.m3");
        CHECK(answer(200, "OK").message_id.empty());
        CHECK(answer(200, "OK").sent());
        CHECK(answer(204, "").sent());
    }
    TEST_CASE("2xx with success false is not sent") {
        auto o = answer(200, R"({"success":false,"message":"number not on WhatsApp"})");
        CHECK(o.cause == Cause::rejected);
        CHECK(o.error == "HTTP 200: number not on WhatsApp");
    }
    TEST_CASE("429 is rate limited and honours Retry-After in seconds") {
        auto o = answer(429, "", {{"retry-after", "7"}});
        CHECK(o.cause == Cause::rate_limited);
        CHECK(o.retryable());
        CHECK(*o.retry_after == 7s);
    }
    TEST_CASE("Retry-After as an HTTP date") {
        // 1'700'000'000 is Tue, 14 Nov 2023 22:13:20 GMT.
        auto o = answer(429, "", {{"retry-after", "Tue, 14 Nov 2023 22:13:50 GMT"}});
        CHECK(*o.retry_after == 30s);
        CHECK(*service::parse_retry_after("Tue, 14 Nov 2023 22:00:00 GMT", k_now) == 0ms);
        CHECK_FALSE(service::parse_retry_after("soon", k_now).has_value());
        CHECK(*service::parse_retry_after("1.5", k_now) == 1500ms);
    }
    TEST_CASE("Retry-After may have spaces and tabs around its value") {
        CHECK(*service::parse_retry_after(" 120 ", k_now) == 120s);
        CHECK(*service::parse_retry_after("\t120\t", k_now) == 120s);
        CHECK(*answer(429, "", {{"retry-after", "\t7 "}}).retry_after == 7s);
    }
    TEST_CASE("Meta's rate-limit codes are rate limited whatever the status") {
        for (long long code : {4LL, 80007LL, 130429LL}) {
            CAPTURE(code);
            CHECK(answer(400, meta_error(code)).cause == Cause::rate_limited);
            CHECK(answer(200, meta_error(code)).cause == Cause::rate_limited);
        }
    }
    TEST_CASE("a 2xx that names its message id is sent, whatever retryable or refusing code it also carries") {
        for (long long code : {130429LL, 4LL, 131056LL, 1LL, 131026LL}) {
            CAPTURE(code);
            const auto o = answer(200, R"({"success":true,"data":{"messageId":"wamid.Y"},"error":{"code":)" +
                                           std::to_string(code) + "}}");
            CHECK(o.cause == Cause::none);
            CHECK(o.message_id == "wamid.Y");
            CHECK_FALSE(o.retry_after.has_value());
        }
        // Without an id the code decides as before.
        CHECK(answer(200, R"({"success":true,"error":{"code":130429}})").cause == Cause::rate_limited);
        // A named message id counts even with success false: resending could deliver it twice.
        CHECK(answer(200, R"({"success":false,"messageId":"wamid.Y","error":{"code":130429}})").sent());
    }
    TEST_CASE("a 2xx that names its message id and a code that stops the campaign is sent, and still stops") {
        const std::pair<long long, Cause> codes[] = {
            {132015, Cause::template_paused}, {132016, Cause::template_disabled},
            {368, Cause::policy_block},       {190, Cause::auth},
            {131048, Cause::spam_limit},      {131031, Cause::account},
            {132001, Cause::template_refused}};
        for (const auto& [code, cause] : codes) {
            CAPTURE(code);
            const auto o = answer(200, R"({"success":true,"data":{"messageId":"wamid.S"},"error":{"code":)" +
                                           std::to_string(code) + R"(,"message":"said so"}})");
            CHECK(o.sent());
            CHECK(o.message_id == "wamid.S");
            CHECK(o.code_cause == cause);
            CHECK(o.error_code == code);
            CHECK(o.error == "HTTP 200: said so");
        }
        // Refused credentials by status, too.
        const auto refused = answer(401, R"({"messages":[{"id":"wamid.R"}]})");
        CHECK(refused.sent());
        CHECK(refused.code_cause == Cause::auth);
    }
    TEST_CASE("a sent answer's 131050, 131026 and 131049 keep their cause for the ledger; others keep none") {
        const auto with = [](long long code) {
            return R"({"data":{"messageId":"wamid.L"},"error":{"code":)" + std::to_string(code) + "}}";
        };
        CHECK(answer(200, with(131050)).code_cause == Cause::opted_out);
        CHECK(answer(200, with(131026)).code_cause == Cause::undeliverable);
        CHECK(answer(200, with(131049)).code_cause == Cause::marketing_limit);
        service::HttpResponse r;
        r.status = 200;
        r.body = with(131049);
        const auto utility = service::classify_response(r, k_now, service::MarketingHold::not_applicable);
        CHECK(utility.sent());
        CHECK(utility.code_cause == Cause::none);  // an ordinary refusal: no hold
        for (long long code : {130429LL, 131056LL, 131047LL, 130472LL, 132018LL, 100LL}) {
            CAPTURE(code);
            CHECK(answer(200, with(code)).code_cause == Cause::none);
        }
        CHECK(answer(200, R"({"data":{"messageId":"wamid.L"}})").code_cause == Cause::none);
    }
    TEST_CASE("an answer of any status that names a message id is sent with it") {
        for (long status : {404L, 405L, 400L, 429L, 500L}) {
            CAPTURE(status);
            for (const std::string body : {R"({"success":false,"data":{"messageId":"wamid.N"}})",
                                           R"({"messageId":"wamid.N","message":"Not Found"})",
                                           R"({"messages":[{"id":"wamid.N"}],"error":{"code":130429}})"}) {
                CAPTURE(body);
                const auto o = answer(status, body);
                CHECK(o.sent());
                CHECK(o.message_id == "wamid.N");
                CHECK(o.code_cause == Cause::none);
                CHECK_FALSE(o.retry_after.has_value());
            }
        }
        const auto undeliverable = answer(404, R"({"data":{"messageId":"wamid.N"},"error":{"code":131026}})");
        CHECK(undeliverable.sent());
        CHECK(undeliverable.code_cause == Cause::undeliverable);
    }
    TEST_CASE("a bare top-level id is a message id only on a 2xx that is not success false") {
        const auto ok = answer(200, R"({"id":"wamid.T"})");
        CHECK(ok.sent());
        CHECK(ok.message_id == "wamid.T");
        CHECK(answer(200, R"({"id":"wamid.T","error":{"code":132015}})").code_cause == Cause::template_paused);
        const auto refused = answer(200, R"({"success":false,"id":"req-1"})");
        CHECK(refused.cause == Cause::rejected);
        CHECK(refused.message_id.empty());
        // A gateway's error with a request id: a wrong endpoint, not a sent message.
        const auto gateway = answer(404, R"({"id":"req-2","message":"no route"})");
        CHECK(gateway.cause == Cause::endpoint);
        CHECK(gateway.message_id.empty());
        CHECK(answer(400, R"({"id":"req-3"})").cause == Cause::rejected);
        CHECK(answer(500, R"({"id":"req-4"})").cause == Cause::transient);
        // A named message id wins over a top-level id.
        CHECK(answer(200, R"({"id":"req-5","messages":[{"id":"wamid.M"}]})").message_id == "wamid.M");
    }
    TEST_CASE("408 and 5xx are transient and not ambiguous: the service answered that it failed") {
        auto timeout = answer(408, "");
        CHECK(timeout.cause == Cause::transient);
        CHECK_FALSE(timeout.ambiguous);
        for (long status : {500L, 502L, 503L, 504L}) {
            auto o = answer(status, "<html>oops</html>");
            CHECK(o.cause == Cause::transient);
            CHECK_FALSE(o.ambiguous);
        }
    }
    TEST_CASE("401, 403 and codes 0, 190 are auth") {
        CHECK(answer(401, "").cause == Cause::auth);
        CHECK(answer(403, "").cause == Cause::auth);
        for (long long code : {0LL, 190LL}) {
            CHECK(answer(400, meta_error(code)).cause == Cause::auth);
        }
    }
    TEST_CASE("code 368 is a policy block, not refused credentials, whatever the status") {
        for (long status : {400L, 403L, 401L, 200L}) {
            CAPTURE(status);
            const auto o = answer(status, meta_error(368, "(#368) Temporarily blocked for policies violations"));
            CHECK(o.cause == Cause::policy_block);
            CHECK(o.error_code == 368);
            CHECK_FALSE(o.retryable());
        }
    }
    TEST_CASE("Meta's template answers get causes of their own, whatever the status") {
        const std::pair<long long, Cause> codes[] = {
            {132000, Cause::template_refused}, {132001, Cause::template_refused},  {132007, Cause::template_refused},
            {132005, Cause::template_params},  {132012, Cause::template_params},   {132018, Cause::template_params},
            {132015, Cause::template_paused},  {132016, Cause::template_disabled}, {130472, Cause::experiment}};
        for (const auto& [code, cause] : codes) {
            CAPTURE(code);
            for (long status : {400L, 429L, 200L, 500L}) {
                CAPTURE(status);
                const auto o = answer(status, meta_error(code, "(#" + std::to_string(code) + ") said so"));
                CHECK(o.cause == cause);
                CHECK(o.error_code == code);
                CHECK_FALSE(o.retryable());
            }
        }
    }
    TEST_CASE("131049 is the marketing limit only where the limit applies; else an ordinary refusal") {
        service::HttpResponse r;
        r.status = 400;
        r.body = meta_error(131049, "(#131049) healthy ecosystem engagement");
        CHECK(service::classify_response(r, k_now, service::MarketingHold::applies).cause == Cause::marketing_limit);
        const auto utility = service::classify_response(r, k_now, service::MarketingHold::not_applicable);
        CHECK(utility.cause == Cause::rejected);
        CHECK(utility.error_code == 131049);
        CHECK(utility.error == "HTTP 400: (#131049) healthy ecosystem engagement — more");
    }
    TEST_CASE("code 131048 is the spam limit") {
        auto o = answer(400, meta_error(131048, "(#131048) Spam rate limit hit"));
        CHECK(o.cause == Cause::spam_limit);
        CHECK(*o.error_code == 131048);
        CHECK(o.error == "HTTP 400: (#131048) Spam rate limit hit — more");
    }
    TEST_CASE("Meta's answers about one recipient get a cause of their own, whatever the status") {
        const std::pair<long long, Cause> codes[] = {{131056, Cause::pair_rate},      {131049, Cause::marketing_limit},
                                                     {131050, Cause::opted_out},      {131026, Cause::undeliverable},
                                                     {131047, Cause::outside_window}, {131031, Cause::account},
                                                     {131042, Cause::account},        {131045, Cause::account},
                                                     {133010, Cause::account},        {131064, Cause::account}};
        for (const auto& [code, cause] : codes) {
            CAPTURE(code);
            for (long status : {400L, 429L, 200L, 500L}) {
                CAPTURE(status);
                const auto o = answer(status, meta_error(code, "(#" + std::to_string(code) + ") said so"));
                CHECK(o.cause == cause);
                CHECK(o.error_code == code);
                CHECK_FALSE(o.retryable());
                CHECK_FALSE(o.retry_after.has_value());
            }
        }
        CHECK(answer(429, meta_error(131056), {{"retry-after", "30"}}).cause == Cause::pair_rate);
        CHECK(answer(400, meta_error(131047, "(#131047) Re-engagement message")).error ==
              "HTTP 400: (#131047) Re-engagement message — more");
    }
    TEST_CASE("refused credentials win over a recipient's code") {
        CHECK(answer(401, meta_error(131050)).cause == Cause::auth);
    }
    TEST_CASE("other 4xx and error codes are rejected") {
        CHECK(answer(400, meta_error(131051, "(#131051) Unsupported message type")).cause == Cause::rejected);
        CHECK(answer(400, meta_error(100)).cause == Cause::rejected);
        CHECK(answer(410, "gone").cause == Cause::rejected);  // a 404 without a code: a wrong endpoint
        CHECK(answer(422, R"({"success":false})").cause == Cause::rejected);
        CHECK_FALSE(answer(400, "").retryable());
    }
    TEST_CASE("unusual bodies: odd types, empty ids, repeated keys, arrays") {
        // The body is read by a pull scanner, with a DOM parse for what it does not take.
        auto o = answer(400, R"({"error":{"code":1.5,"message":"m"}})");
        CHECK(o.cause == Cause::rejected);
        CHECK_FALSE(o.error_code.has_value());
        CHECK(o.error == "HTTP 400: m");
        CHECK(answer(200, R"({"success":"false","messageId":"x"})").message_id == "x");
        CHECK(answer(200, R"({"messageId":"","id":"m2"})").message_id == "m2");
        CHECK(answer(200, R"({"id":"t","data":{"messageId":"d","other":[1,{"a":null}]}})").message_id == "d");
        CHECK(answer(200, R"({"messageId":"a","messageId":"b"})").message_id == "b");
        CHECK(answer(200, R"({"messages":[{"x":1},{"id":"second"}]})").message_id.empty());
        CHECK(answer(200, R"([1,2])").sent());
        CHECK(answer(400, R"({"error":"plain text"})").error == "HTTP 400: plain text");
        CHECK(answer(400, R"({"message":"top"})").error == "HTTP 400: top");
        o = answer(400, R"({"error":{"code":131048,"message":"spam"},"message":"top"})");
        CHECK(o.cause == Cause::spam_limit);
        CHECK(o.error == "HTTP 400: spam");
        o = answer(400, R"({"error":{"code":-1,"message":7}})");
        CHECK(o.error_code == std::optional<long long>(-1));
        CHECK(o.error == "HTTP 400");
        CHECK(answer(200, R"({"success":false} trailing)").sent());  // not JSON: only the status counts
    }
    TEST_CASE("error text comes from the body, clipped and on one line") {
        auto o = answer(400, std::string(1000, 'x') + "\nend");
        CHECK(o.error.size() < 400);
        CHECK(o.error.find('\n') == std::string::npos);
    }
    TEST_CASE("a clipped error text does not end inside a UTF-8 character") {
        // 299 bytes, then "é" (2 bytes) straddles the 300-byte limit.
        auto o = answer(400, std::string(299, 'x') + "é and more");
        CHECK(o.error == "HTTP 400: " + std::string(299, 'x') + "…");
    }
    TEST_CASE("connection failures are transient; ambiguous only once the request left") {
        using F = service::TransportFailure;
        auto refused = lost(F::connect, false);
        CHECK(refused.cause == Cause::transient);
        CHECK_FALSE(refused.ambiguous);
        CHECK_FALSE(refused.http_status.has_value());
        CHECK(lost(F::dns, false).cause == Cause::transient);
        auto timed_out = lost(F::timeout, true);
        CHECK(timed_out.cause == Cause::transient);
        CHECK(timed_out.ambiguous);
        CHECK(lost(F::connection_lost, true).ambiguous);
        CHECK(timed_out.error == "curl said no");
    }
    TEST_CASE("a certificate that fails verification is tls: not retried, not ambiguous") {
        auto o = lost(service::TransportFailure::certificate, false);
        CHECK(o.cause == Cause::tls);
        CHECK_FALSE(o.retryable());
        CHECK_FALSE(o.ambiguous);
        CHECK(o.error == "TLS certificate verification failed: curl said no");
        CHECK(lost(service::TransportFailure::tls, false).cause == Cause::transient);  // a failed handshake
    }
    TEST_CASE("cause names match the result log's") {
        CHECK(service::to_string(Cause::rate_limited) == "rate_limited");
        CHECK(service::to_string(Cause::spam_limit) == "spam_limit");
        CHECK(service::to_string(Cause::pair_rate) == "pair_rate");
        CHECK(service::to_string(Cause::outside_window) == "outside_window");
        CHECK(service::to_string(Cause::account) == "account");
        CHECK(service::to_string(Cause::template_refused) == "template");
        CHECK(service::to_string(Cause::template_params) == "template_params");
        CHECK(service::to_string(Cause::template_paused) == "template_paused");
        CHECK(service::to_string(Cause::template_disabled) == "template_disabled");
        CHECK(service::to_string(Cause::experiment) == "experiment");
        CHECK(service::to_string(Cause::policy_block) == "policy_block");
        CHECK(service::to_string(Cause::none).empty());
    }

    TEST_CASE("404 or 405 without a Meta code is a wrong endpoint, whatever the body") {
        CHECK(answer(404, R"({"success":false,"message":"Cannot POST /api/v1/whatsapp-automation/wa/send-message"})")
                  .cause == Cause::endpoint);
        CHECK(answer(404, "<html><body>Not Found</body></html>").cause == Cause::endpoint);
        CHECK(answer(405, "").cause == Cause::endpoint);
        CHECK(answer(404, "").error == "HTTP 404");
        CHECK_FALSE(answer(404, "").retryable());
        CHECK(service::to_string(Cause::endpoint) == "endpoint");
    }
    TEST_CASE("404 with a Meta code the contract names is classified by that code, as on any status") {
        CHECK(answer(404, meta_error(131026)).cause == Cause::undeliverable);
        CHECK(answer(405, meta_error(131047)).cause == Cause::outside_window);
        CHECK(answer(404, meta_error(132001)).cause == Cause::template_refused);
        CHECK(answer(404, meta_error(190)).cause == Cause::auth);
        CHECK(answer(404, meta_error(368)).cause == Cause::policy_block);
        CHECK(answer(404, meta_error(131048)).cause == Cause::spam_limit);
        CHECK(answer(405, meta_error(130429)).cause == Cause::rate_limited);
        CHECK(answer(400, R"({"success":false,"message":"bad"})").cause == Cause::rejected);
    }
    TEST_CASE("404 or 405 with a Meta code the contract names nowhere is a wrong endpoint") {
        for (long status : {404L, 405L}) {
            CAPTURE(status);
            const auto invalid = answer(status, meta_error(100, "(#100) Invalid parameter"));
            CHECK(invalid.cause == Cause::endpoint);
            CHECK(invalid.error_code == 100);
            CHECK(invalid.error == "HTTP " + std::to_string(status) + ": (#100) Invalid parameter — more");
            CHECK(answer(status, meta_error(2500, "Unknown path components")).cause == Cause::endpoint);
        }
    }
    TEST_CASE("a wrong endpoint's message names the method and URL, never the API key") {
        service::HttpRequest request;
        request.method = service::Method::post;
        request.url = "http://127.0.0.1:9/api/v1/whatsapp-automation/wa/send-message?apiKey=SECRET-KEY";
        const auto text = service::wrong_endpoint(request, answer(404, ""));
        CHECK(text.find("POST http://127.0.0.1:9/api/v1/whatsapp-automation/wa/send-message?apiKey=*** answered "
                        "HTTP 404") == 0);
        CHECK(text.find("SECRET") == std::string::npos);
        CHECK(text.find("service.base_url") != std::string::npos);
    }
}
