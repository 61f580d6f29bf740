#include <doctest/doctest.h>
#include <nlohmann/json.hpp>

#include "sandbox/fake_service.hpp"
#include "sandbox/meta_errors.hpp"
#include "sandbox/templates.hpp"
#include "service/classify.hpp"

using nlohmann::json;
using sandbox::MetaErrorRule;
using sandbox::parse_meta_error;

namespace {

const std::string k_number = "919812345678";

std::string error_of(std::string_view text) {
    auto parsed = parse_meta_error(text);
    REQUIRE_FALSE(parsed.ok());
    return parsed.error().message;
}

sandbox::Answer send_to(sandbox::FakeService& service, const std::string& wa_id) {
    sandbox::Incoming in;
    in.method = "POST";
    in.path = sandbox::k_send_message_path;
    in.content_type = "application/json";
    in.key.header = "sandbox-key";
    in.body = json{{"userName", "Asha"}, {"wa_id", wa_id}, {"type", "text"}, {"message", {{"text", "Hi"}}}}.dump();
    return service.handle(in, sandbox::SteadyTime{}, util::TimePoint{});
}

// What wacamp makes of `answer`.
service::Outcome classified(const sandbox::Answer& answer) {
    service::HttpResponse response;
    response.status = answer.status;
    response.body = answer.body;
    return service::classify_response(response, std::chrono::system_clock::now());
}

}  // namespace

TEST_SUITE("sandbox::MetaErrors") {
    TEST_CASE("--meta-error WA_ID=CODE and WA_ID=CODExN") {
        CHECK(parse_meta_error("919812345678=131050").value() == MetaErrorRule{k_number, 131050, std::nullopt});
        CHECK(parse_meta_error("919812345678=131056x2").value() == MetaErrorRule{k_number, 131056, 2});
        CHECK(parse_meta_error("14155550123=1x1000000").value() == MetaErrorRule{"14155550123", 1, 1000000});
    }
    TEST_CASE("a bad wa_id, code or count is refused, saying which") {
        CHECK(error_of("+919812345678=131050").find("not a wa_id") != std::string::npos);
        CHECK(error_of("9198=131050").find("not a wa_id") != std::string::npos);
        CHECK(error_of("919812345678").find("no '='") != std::string::npos);
        for (const char* bad : {"919812345678=", "919812345678=abc", "919812345678=0", "919812345678=-5",
                                "919812345678=1310500000", "919812345678=+131050", "919812345678=x2"}) {
            CAPTURE(bad);
            CHECK(error_of(bad).find("the code must be a positive number") != std::string::npos);
        }
        for (const char* bad : {"919812345678=131056x", "919812345678=131056x0", "919812345678=131056x-1",
                                "919812345678=131056x2x", "919812345678=131056X2", "919812345678=131056x1000001"}) {
            CAPTURE(bad);
            const auto message = error_of(bad);
            CHECK((message.find("count after 'x'") != std::string::npos ||
                   message.find("the code must be") != std::string::npos));
        }
        CHECK(error_of("919812345678=131056x0").find("--meta-error 919812345678=131056x0: ") == 0);
    }
    TEST_CASE("the first N sends to the number get the error, then they go on as usual") {
        sandbox::MetaErrors errors({{k_number, 131056, 2}, {"14155550123", 131050, std::nullopt}});
        CHECK(errors.next(k_number) == 131056);
        CHECK(errors.next("919812345679") == 0);
        CHECK(errors.next(k_number) == 131056);
        CHECK(errors.next(k_number) == 0);
        CHECK(errors.next(k_number) == 0);
        for (int i = 0; i < 5; ++i) {
            CHECK(errors.next("14155550123") == 131050);  // always, without xN
        }
    }
    TEST_CASE("the sandbox answers in Meta's shape: 429 for the pair rate, 400 for the others") {
        sandbox::SandboxOptions options;
        options.faults.meta_errors = {{k_number, 131056, 1}, {"14155550123", 131031, std::nullopt}};
        sandbox::FakeService service(options, sandbox::builtin_templates(), nullptr);
        const auto pair_rate = send_to(service, k_number);
        CHECK(pair_rate.status == 429);
        const auto body = json::parse(pair_rate.body);
        CHECK(body["success"] == false);
        CHECK(body["error"]["code"] == 131056);
        CHECK(body["error"]["type"] == "OAuthException");
        CHECK(body["error"]["message"].get<std::string>().starts_with("(#131056) "));
        CHECK(body["error"]["error_data"]["details"].is_string());
        CHECK(body["error"]["fbtrace_id"].is_string());
        CHECK(classified(pair_rate).cause == service::Cause::pair_rate);
        CHECK(send_to(service, k_number).status == 200);  // x1: then sent

        const auto account = send_to(service, "14155550123");
        CHECK(account.status == 400);
        CHECK(classified(account).cause == service::Cause::account);
        CHECK(classified(account).error_code == 131031);
        CHECK(send_to(service, "14155550123").status == 400);
        CHECK(service.counts()[static_cast<std::size_t>(sandbox::Outcome::meta_error)] == 3);
        CHECK(sandbox::outcome_name(sandbox::Outcome::meta_error) == "meta_error");
    }
    TEST_CASE("every code wacamp handles gets a text of its own; others a generic one") {
        for (const int code : {131056, 131049, 131050, 131026, 131047, 131031, 131042, 131045, 133010, 131064,
                               132000, 132001, 132005, 132007, 132012, 132015, 132016, 132018, 130472, 368}) {
            CAPTURE(code);
            const auto error = sandbox::meta_error_for(code);
            CHECK(error.code == code);
            CHECK(error.title != "Message failed to send");
            CHECK_FALSE(error.details.empty());
        }
        CHECK(sandbox::meta_error_for(131000).code == 131000);
        CHECK(sandbox::meta_error_for(131000).title == "Message failed to send");
        CHECK(sandbox::meta_error_status(131056) == 429);
        CHECK(sandbox::meta_error_status(131050) == 400);
    }
}
