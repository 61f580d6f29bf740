#include <doctest/doctest.h>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <vector>

#include "sandbox/fake_service.hpp"
#include "sandbox/templates.hpp"

using namespace std::chrono_literals;
using nlohmann::json;
using sandbox::Answer;
using sandbox::FakeService;
using sandbox::Incoming;
using sandbox::SandboxOptions;

namespace {

const sandbox::SteadyTime t0{};
const util::TimePoint wall0{std::chrono::milliseconds(1'700'000'000'123)};

Incoming send(const std::string& wa_id, const std::string& key = "sandbox-key") {
    Incoming in;
    in.method = "POST";
    in.path = sandbox::k_send_message_path;
    in.content_type = "application/json";
    in.key.header = key;
    in.body = json{{"userName", "Asha"}, {"wa_id", wa_id}, {"type", "text"}, {"message", {{"text", "Hi"}}}}.dump();
    return in;
}

// A send-template of the built-in spring_sale (image header, two body variables) to `wa_id`.
Incoming send_template(const std::string& wa_id, json params = nullptr) {
    if (params.is_null()) {
        params = json::parse(R"([
          {"type": "header", "parameters": [{"type": "image", "image": {"link": "https://cdn.example.com/a.jpg"}}]},
          {"type": "body", "parameters": [{"type": "text", "text": "Asha"}, {"type": "text", "text": "20%"}]}])");
    }
    Incoming in;
    in.method = "POST";
    in.path = sandbox::k_send_template_path;
    in.content_type = "application/json";
    in.key.header = "sandbox-key";
    in.body =
        json{{"userName", "Asha"}, {"wa_id", wa_id}, {"templateId", "65d4f61c25e7a9dbf3142536"}, {"params", params}}
            .dump();
    return in;
}

Incoming list_templates() {
    Incoming in;
    in.method = "GET";
    in.path = sandbox::k_templates_path;
    in.key.query = "sandbox-key";
    return in;
}

Incoming delete_users(const std::string& authorization) {
    Incoming in;
    in.method = "PUT";
    in.path = sandbox::k_status_update_path;
    in.content_type = "application/json";
    in.authorization = authorization;
    in.body = R"({"ids": ["u1", "u2", "u1"], "status": "DELETED"})";
    return in;
}

std::string header(const Answer& answer, const std::string& name) {
    for (const auto& [key, value] : answer.headers) {
        if (key == name) {
            return value;
        }
    }
    return "";
}

// A FakeService with a journal in a fresh temporary file.
struct Fixture {
    explicit Fixture(SandboxOptions options = {}) {
        path = std::filesystem::temp_directory_path() /
               ("wacamp-sandbox-test-" + std::to_string(reinterpret_cast<std::uintptr_t>(this)) + ".jsonl");
        std::filesystem::remove(path);
        journal = std::move(sandbox::Journal::open(path.string()).value());
        service = std::make_unique<FakeService>(options, sandbox::builtin_templates(), journal.get());
    }
    ~Fixture() { std::filesystem::remove(path); }

    Answer handle(const Incoming& in) { return service->handle(in, t0, wall0); }

    std::vector<json> lines() const {
        std::ifstream in(path);
        std::vector<json> out;
        for (std::string line; std::getline(in, line);) {
            out.push_back(json::parse(line));
        }
        return out;
    }
    std::string raw() const {
        std::ifstream in(path);
        return std::string(std::istreambuf_iterator<char>(in), {});
    }

    std::filesystem::path path;
    std::unique_ptr<sandbox::Journal> journal;
    std::unique_ptr<FakeService> service;
};

}  // namespace

TEST_SUITE("sandbox::FakeService") {
    TEST_CASE("lists the built-in templates with the _user header") {
        Fixture f;
        Answer a = f.handle(list_templates());
        CHECK(a.status == 200);
        CHECK(header(a, "_user") == sandbox::k_builtin_user);
        json body = json::parse(a.body);
        CHECK(body["success"] == true);
        REQUIRE(body["data"].size() == 7);
        CHECK(body["data"][0]["configuration"]["name"] == "appointment_update");
        CHECK(body["data"][0]["status"] == "APPROVED");
        CHECK(body["data"][1]["status"] == "PENDING");
        CHECK(body["data"][2]["status"] == "REJECTED");
        CHECK(f.lines().at(0)["outcome"] == "ok");
    }
    TEST_CASE("--recategorize and --pause-template change the list once N template sends were accepted") {
        SandboxOptions options;
        options.template_changes = {{.name = "spring_sale", .category = "UTILITY", .after = 2},
                                    {.name = "thank_you", .category = "", .after = 3}};
        Fixture f(options);
        const auto record = [&](const std::string& name) {
            json body = json::parse(f.handle(list_templates()).body);
            for (const auto& r : body["data"]) {
                if (r["configuration"]["name"] == name) {
                    return r;
                }
            }
            return json();
        };
        CHECK(record("spring_sale")["configuration"]["category"] == "MARKETING");
        REQUIRE(f.handle(send_template("919812300001")).status == 200);
        CHECK(f.handle(send("919812300009")).status == 200);  // a text send does not count
        CHECK(record("spring_sale")["configuration"]["category"] == "MARKETING");
        REQUIRE(f.handle(send_template("919812300002")).status == 200);
        CHECK(record("spring_sale")["configuration"]["category"] == "UTILITY");
        CHECK(record("thank_you")["status"] == "APPROVED");
        REQUIRE(f.handle(send_template("919812300003")).status == 200);
        CHECK(record("thank_you")["status"] == "PAUSED");
        CHECK(record("spring_sale")["status"] == "APPROVED");
    }
    TEST_CASE("the changes' option text: NAME=CATEGORY@N and NAME@N, every mistake named") {
        auto re = sandbox::parse_template_change("spring_sale=UTILITY@10", sandbox::ChangeKind::recategorize);
        REQUIRE(re.ok());
        CHECK(re->name == "spring_sale");
        CHECK(re->category == "UTILITY");
        CHECK(re->after == 10);
        auto pause = sandbox::parse_template_change("thank_you@0", sandbox::ChangeKind::pause);
        REQUIRE(pause.ok());
        CHECK(pause->name == "thank_you");
        CHECK(pause->category.empty());
        for (const char* bad : {"spring_sale=UTILITY", "spring_sale=@3", "=UTILITY@3", "spring_sale=UTILITY@-1",
                                "spring_sale=UTILITY@x", "spring_sale=UTILITY@"}) {
            CAPTURE(bad);
            auto parsed = sandbox::parse_template_change(bad, sandbox::ChangeKind::recategorize);
            REQUIRE_FALSE(parsed.ok());
            CHECK(parsed.error().message.find("--recategorize") != std::string::npos);
        }
        CHECK_FALSE(sandbox::parse_template_change("@3", sandbox::ChangeKind::pause).ok());
    }
    TEST_CASE("accepts a valid send with a message id and journals it once as ok") {
        Fixture f;
        Answer a = f.handle(send("919812345678"));
        CHECK(a.status == 200);
        json body = json::parse(a.body);
        CHECK(body["success"] == true);
        CHECK(body["message"] == "Message sent successfully");
        std::string id = body["data"]["messageId"];
        CHECK(id.rfind("wamid.", 0) == 0);
        auto lines = f.lines();
        REQUIRE(lines.size() == 1);
        CHECK(lines[0]["at"] == "2023-11-14T22:13:20.123Z");
        CHECK(lines[0]["method"] == "POST");
        CHECK(lines[0]["path"] == sandbox::k_send_message_path);
        CHECK(lines[0]["status"] == 200);
        CHECK(lines[0]["outcome"] == "ok");
        CHECK(lines[0]["wa_id"] == "919812345678");
        CHECK(lines[0]["message_id"] == id);
        CHECK(lines[0]["body"]["message"]["text"] == "Hi");
    }
    TEST_CASE("message ids are unique") {
        Fixture f;
        std::string a = json::parse(f.handle(send("919812345678")).body)["data"]["messageId"];
        std::string b = json::parse(f.handle(send("919812345678")).body)["data"]["messageId"];
        CHECK(a != b);
    }
    TEST_CASE("a wrong key is 401 code 190 and is written nowhere") {
        Fixture f;
        Answer a = f.handle(send("919812345678", "guessed-key-42"));
        CHECK(a.status == 401);
        json body = json::parse(a.body);
        CHECK(body["success"] == false);
        CHECK(body["error"]["code"] == 190);
        CHECK(body["error"]["type"] == "OAuthException");
        CHECK(body["error"]["message"] == "(#190) Invalid OAuth access token");
        CHECK(a.body.find("guessed-key-42") == std::string::npos);
        CHECK(f.lines().at(0)["outcome"] == "unauthorized");
        CHECK(f.raw().find("guessed-key-42") == std::string::npos);
    }
    TEST_CASE("secrets inside a body are masked in the journal") {
        Fixture f;
        Incoming in = send("919812345678");
        in.body = json{{"userName", "sandbox-key"},
                       {"wa_id", "919812345678"},
                       {"type", "text"},
                       {"message", {{"text", "token sandbox-token"}}}}
                      .dump();
        f.handle(in);
        CHECK(f.raw().find("sandbox-key") == std::string::npos);
        CHECK(f.raw().find("sandbox-token") == std::string::npos);
        CHECK(f.lines().at(0)["body"]["userName"] == "***");
    }
    TEST_CASE("an invalid body is 400 code 100 saying what is wrong") {
        Fixture f;
        Incoming in = send("+919812345678");
        Answer a = f.handle(in);
        CHECK(a.status == 400);
        json body = json::parse(a.body);
        CHECK(body["error"]["code"] == 100);
        std::string message = body["message"];
        CHECK(message.find("wa_id") != std::string::npos);
        CHECK(body["error"]["message"] == "(#100) " + message);
        CHECK(body["error"]["error_data"]["details"] == message);
        CHECK_FALSE(body["error"]["fbtrace_id"].get<std::string>().empty());
        auto line = f.lines().at(0);
        CHECK(line["outcome"] == "invalid");
        CHECK(line["wa_id"] == "+919812345678");
    }
    TEST_CASE("a body that is not JSON, or not sent as JSON, is 400 and journalled with a null body") {
        Fixture f;
        Incoming in = send("919812345678");
        in.body = "{\"userName\": ";
        CHECK(f.handle(in).status == 400);
        in = send("919812345678");
        in.content_type = "text/plain";
        Answer a = f.handle(in);
        CHECK(a.status == 400);
        CHECK(json::parse(a.body)["message"] == "Content-Type must be application/json");
        auto lines = f.lines();
        CHECK(lines.at(0)["body"].is_null());
        CHECK(lines.at(0)["outcome"] == "invalid");
    }
    TEST_CASE("throttles with 429, Retry-After and code 130429") {
        SandboxOptions options;
        options.faults.rate_limit = 1;
        options.faults.retry_after_s = 3;
        Fixture f(options);
        CHECK(f.handle(send("919812345678")).status == 200);
        Answer a = f.handle(send("919812345679"));
        CHECK(a.status == 429);
        CHECK(header(a, "Retry-After") == "3");
        CHECK(json::parse(a.body)["error"]["code"] == 130429);
        CHECK(f.lines().at(1)["outcome"] == "rate_limited");
    }
    TEST_CASE("the meta400 style throttles with HTTP 400 and the same code") {
        SandboxOptions options;
        options.faults.rate_limit = 1;
        options.faults.rate_limit_style = sandbox::RateLimitStyle::meta400;
        Fixture f(options);
        f.handle(send("919812345678"));
        Answer a = f.handle(send("919812345678"));
        CHECK(a.status == 400);
        CHECK(json::parse(a.body)["error"]["code"] == 130429);
    }
    TEST_CASE("a rejected number gets 400 code 131026") {
        SandboxOptions options;
        options.faults.reject_numbers = {"15550001111"};
        Fixture f(options);
        Answer a = f.handle(send("15550001111"));
        CHECK(a.status == 400);
        CHECK(json::parse(a.body)["error"]["code"] == 131026);
        CHECK(f.lines().at(0)["outcome"] == "rejected");
    }
    TEST_CASE("an error share is answered 5xx and a drop gets no answer, with a null status") {
        SandboxOptions options;
        options.faults.error_rate = 1.0;
        Fixture errors(options);
        Answer a = errors.handle(send("919812345678"));
        CHECK((a.status == 500 || a.status == 503));
        CHECK(errors.lines().at(0)["outcome"] == "error");
        options.faults.error_rate = 0.0;
        options.faults.drop_rate = 1.0;
        Fixture drops(options);
        Answer d = drops.handle(send("919812345678"));
        CHECK(d.delivery == sandbox::Delivery::drop);
        CHECK(header(d, "Connection") == "close");
        CHECK(drops.lines().at(0)["status"].is_null());
        CHECK(drops.lines().at(0)["outcome"] == "dropped");
    }
    TEST_CASE("after auth-fail-after accepted sends every operation gets 401") {
        SandboxOptions options;
        options.faults.auth_fail_after = 1;
        Fixture f(options);
        CHECK(f.handle(send("919812345678")).status == 200);
        CHECK(f.handle(send("919812345679")).status == 401);
        CHECK(f.handle(list_templates()).status == 401);
        CHECK(f.handle(delete_users("Bearer sandbox-token")).status == 401);
    }
    TEST_CASE("after spam-limit-after accepted sends, sends get 131048") {
        SandboxOptions options;
        options.faults.spam_limit_after = 1;
        Fixture f(options);
        f.handle(send("919812345678"));
        Answer a = f.handle(send("919812345679"));
        CHECK(a.status == 400);
        CHECK(json::parse(a.body)["error"]["code"] == 131048);
        CHECK(f.lines().at(1)["outcome"] == "spam_limit");
    }
    TEST_CASE("the status update needs the Bearer token and counts distinct ids") {
        Fixture f;
        CHECK(f.handle(delete_users("Bearer wrong-token")).status == 401);
        Answer a = f.handle(delete_users("Bearer sandbox-token"));
        CHECK(a.status == 200);
        json body = json::parse(a.body);
        CHECK(body["message"] == "Users status updated");
        CHECK(body["data"]["modifiedCount"] == 2);
        CHECK(f.raw().find("wrong-token") == std::string::npos);
    }
    TEST_CASE("an unknown path or method is 404 and journalled as invalid") {
        Fixture f;
        Incoming in = list_templates();
        in.method = "POST";
        CHECK(f.handle(in).status == 404);
        in.method = "GET";
        in.path = "/whatsapp-automation/wa/messages";
        CHECK(f.handle(in).status == 404);
        CHECK(f.lines().at(1)["outcome"] == "invalid");
        CHECK(f.service->counts()[static_cast<size_t>(sandbox::Outcome::invalid)] == 2);
    }
    TEST_CASE("send-template: a valid send is answered like send-message's and journaled by its path") {
        Fixture f;
        Answer a = f.handle(send_template("919812345678"));
        CHECK(a.status == 200);
        CHECK(json::parse(a.body)["data"]["messageId"].get<std::string>().rfind("wamid.", 0) == 0);
        auto line = f.lines().at(0);
        CHECK(line["path"] == "/whatsapp-automation/wa/send-template");
        CHECK(line["outcome"] == "ok");
        CHECK(line["wa_id"] == "919812345678");
        CHECK(line["body"]["templateId"] == "65d4f61c25e7a9dbf3142536");
    }
    TEST_CASE("send-template: the same key as send-message, and a body of its own shape") {
        Fixture f;
        CHECK(f.handle(send_template("919812345678")).status == 200);
        Incoming wrong_key = send_template("919812345678");
        wrong_key.key.header = "wrong";
        CHECK(f.handle(wrong_key).status == 401);
        Incoming as_message = send("919812345678");
        as_message.path = sandbox::k_send_template_path;
        Answer a = f.handle(as_message);
        CHECK(a.status == 400);
        CHECK(json::parse(a.body)["error"]["code"] == 100);
    }
    TEST_CASE("send-template: params that do not fit the template get Meta's error, 400, in the usual shape") {
        Fixture f;
        Answer a = f.handle(send_template("919812345678", json::parse(R"([{"type": "body", "parameters": []}])")));
        CHECK(a.status == 400);
        json body = json::parse(a.body);
        CHECK(body["success"] == false);
        CHECK(body["error"]["code"] == 132018);  // the image header is missing
        CHECK(body["error"]["message"].get<std::string>().starts_with("(#132018) "));
        CHECK(body["error"]["error_data"]["details"] ==
              "header: the template's header is image; params has no header component");
        CHECK(f.lines().at(0)["outcome"] == "meta_error");
    }
    TEST_CASE("send-template: --meta-error and --paused-template apply") {
        SandboxOptions options;
        options.faults.meta_errors = {{"919812345678", 130472, 1}};
        options.paused_templates = {"thank_you"};
        Fixture f(options);
        CHECK(json::parse(f.handle(send_template("919812345678")).body)["error"]["code"] == 130472);
        CHECK(f.handle(send_template("919812345678")).status == 200);
        Incoming paused = send_template("919812345679", json::array());
        paused.body = json{{"userName", "Asha"},
                           {"wa_id", "919812345679"},
                           {"templateId", "65e5072d36f8baec04253647"},
                           {"params", json::array()}}
                          .dump();
        Answer a = f.handle(paused);
        CHECK(a.status == 400);
        CHECK(json::parse(a.body)["error"]["code"] == 132015);
    }
    TEST_CASE("latency is handed back as the delay to wait") {
        SandboxOptions options;
        options.faults.latency = 25ms;
        Fixture f(options);
        CHECK(f.handle(list_templates()).delay == 25ms);
    }
}
