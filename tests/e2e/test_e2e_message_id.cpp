// Answers that name a message id, end to end against a scripted service: such a row is sent with
// that id whatever the status or code (a 404, a code that stops the campaign), and no rerun or
// resume sends it again; the code still stops the run or marks the number in the ledger. And a
// 404 without a message id: a wrong endpoint that names the URL requested, unless its Meta code
// has a cause of its own.

#include <doctest/doctest.h>

#include <atomic>
#include <functional>
#include <map>
#include <memory>
#include <mutex>

#include "../support/scripted_server.hpp"
#include "fixtures.hpp"

using namespace e2e;
using nlohmann::json;

namespace {

const std::string k_templates_path = "/whatsapp-automation/wa/templates";
const std::string k_thank_you = "message:\n  type: template\n  template: thank_you\n";  // no variables
// One request at a time, in the list's order: the rows after a stop are never asked.
const std::string k_one_at_a_time = "rate: {per_second: 50, concurrency: 1}\n";

// The template list: thank_you, a UTILITY template without variables.
const std::string k_template_list = R"json({"success": true, "data": [{
  "_id": "65e5072d36f8baec04253647",
  "_user": "64b7f0c2a1e4d5f6a7b8c9d0",
  "configuration": {
    "name": "thank_you", "category": "UTILITY", "language": "en", "header": "text",
    "textHeader": "Thank you", "media": "", "mediaHeader": {"image": "", "video": ""},
    "body": "Thank you for shopping with us.", "footer": "", "button": "",
    "ctaButtonType": [], "ctaButton": [], "quickReply": []
  },
  "whatsAppId": "1092837465565164", "status": "APPROVED",
  "namespace": "b2c4e6f8_a1b3_4c5d_8e9f_0a1b2c3d4e5f",
  "createdAt": "2024-03-06T12:00:00.000Z", "updatedAt": "2024-03-06T15:41:08.512Z", "__v": 0
}]})json";

// A service whose template list is k_template_list and whose sends `answer` answers by wa_id;
// it counts the sends per wa_id and the paths they went to.
class Service {
public:
    using Answer = std::function<test_support::Reply(const std::string& wa_id)>;

    explicit Service(Answer answer)
        : m_state(std::make_shared<State>()),
          m_server([state = m_state, answer = std::move(answer)](const test_support::ReceivedRequest& request) {
              const std::string path = test_support::path_of(request);
              if (path == k_templates_path) {
                  return test_support::answer(200, k_template_list);
              }
              const auto body = json::parse(request.body, nullptr, false);
              const std::string wa_id = body.is_object() ? body.value("wa_id", "") : "";
              {
                  std::lock_guard lock(state->mutex);
                  ++state->sends[wa_id];
                  ++state->paths[path];
              }
              return answer(wa_id);
          }) {}

    std::string url() const { return m_server.url(); }
    int sends_to(const std::string& wa_id) const {
        std::lock_guard lock(m_state->mutex);
        const auto it = m_state->sends.find(wa_id);
        return it == m_state->sends.end() ? 0 : it->second;
    }
    std::map<std::string, int> paths() const {
        std::lock_guard lock(m_state->mutex);
        return m_state->paths;
    }

private:
    struct State {
        mutable std::mutex mutex;
        std::map<std::string, int> sends;
        std::map<std::string, int> paths;
    };
    std::shared_ptr<State> m_state;
    test_support::ScriptedServer m_server;
};

// The service's answer naming message id `id`, with Meta's `code` when given.
std::string accepted(const std::string& id, std::optional<long long> code = std::nullopt) {
    json body = {{"success", true}, {"data", {{"messageId", id}}}};
    if (code) {
        body["error"] = {{"code", *code}, {"message", "(#" + std::to_string(*code) + ") said so"}};
    }
    return body.dump();
}

// Every number accepted, its message id "wamid.<wa_id>".
test_support::Reply accept(const std::string& wa_id) {
    return test_support::answer(200, accepted("wamid." + wa_id));
}

// The "end" record of the log's last run; null when there is none.
json end_of(const CampaignFixture& f) {
    json out;
    for (const auto& r : f.records()) {
        if (r.value("event", "") == "end") {
            out = r;
        }
    }
    return out;
}

// Runs `wacamp ARGS…` for `f`, showing its output when a check fails.
ProcessResult run(const CampaignFixture& f, const std::vector<std::string>& args) {
    auto r = f.wacamp(args);
    CAPTURE(r.out);
    CAPTURE(r.err);
    return r;
}

}  // namespace

TEST_SUITE("e2e: message id") {
    TEST_CASE(
        "a 200 naming its message id with a code that stops the campaign: exit 3 with the code's reason, the "
        "row sent with its id, never sent again") {
        const std::pair<long long, std::string> codes[] = {{132015, "template_paused"}, {132016, "template_disabled"},
                                                           {368, "policy_block"},       {190, "auth"},
                                                           {131048, "spam_limit"},      {131031, "account"}};
        for (const auto& [code, reason] : codes) {
            CAPTURE(code);
            const std::string first = numbers_wa_id(0);
            Service service([&, code = code](const std::string& wa_id) {
                return wa_id == first ? test_support::answer(200, accepted("wamid.stop", code)) : accept(wa_id);
            });
            const int n = 4;
            CampaignFixture f(service.url(), numbers_csv(n), k_one_at_a_time, k_thank_you);
            auto r = run(f, {"run", f.campaign.string(), "--no-progress"});
            CHECK(r.exit_code == 3);
            CHECK(end_of(f).value("reason", "") == reason);
            const json row = result_of(f, 1);
            REQUIRE_FALSE(row.is_null());
            CHECK(row["status"] == "sent");
            CHECK(row.value("message_id", "") == "wamid.stop");
            CHECK(row.value("error_code", 0LL) == code);
            CHECK_FALSE(row.contains("cause"));
            CHECK(status_counts(f) == std::map<std::string, int>{{"sent", 1}});

            auto resumed = run(f, {"resume", f.log.string(), "--no-progress"});
            CHECK(resumed.exit_code == 0);
            auto again = run(f, {"resume", f.log.string(), "--retry-failed", "--resend-unknown", "--no-progress"});
            CHECK(again.exit_code == 0);
            CHECK(service.sends_to(first) == 1);
            for (int i = 1; i < n; ++i) {
                CHECK(service.sends_to(numbers_wa_id(i)) == 1);
            }
            CHECK(status_counts(f) == std::map<std::string, int>{{"sent", n}});
        }
    }

    TEST_CASE("a 404 naming data.messageId is sent with that id, and no resume sends it again") {
        const std::string first = numbers_wa_id(0);
        Service service([&](const std::string& wa_id) {
            return wa_id == first
                       ? test_support::answer(
                             404, R"({"success":false,"message":"Not Found","data":{"messageId":"wamid.N"}})")
                       : accept(wa_id);
        });
        const int n = 3;
        CampaignFixture f(service.url(), numbers_csv(n), k_one_at_a_time);
        auto r = run(f, {"run", f.campaign.string(), "--no-progress"});
        CHECK(r.exit_code == 0);
        const json row = result_of(f, 1);
        REQUIRE_FALSE(row.is_null());
        CHECK(row["status"] == "sent");
        CHECK(row.value("message_id", "") == "wamid.N");
        CHECK(row.value("http_status", 0) == 404);
        CHECK(of_event(f.records(), "unsent").empty());
        auto again = run(f, {"resume", f.log.string(), "--retry-failed", "--resend-unknown", "--no-progress"});
        CHECK(again.exit_code == 0);
        CHECK(service.sends_to(first) == 1);
        CHECK(status_counts(f) == std::map<std::string, int>{{"sent", n}});
    }

    TEST_CASE("a send-template 404 is a wrong endpoint whose message names send-template, the URL requested") {
        Service service([](const std::string&) { return test_support::answer(404, "Not Found", "text/plain"); });
        CampaignFixture f(service.url(), numbers_csv(3), k_one_at_a_time, k_thank_you);
        auto r = run(f, {"run", f.campaign.string(), "--no-progress"});
        CHECK(r.exit_code == 3);
        CHECK(end_of(f).value("reason", "") == "endpoint");
        CHECK(contains(r.err,
                       "POST " + service.url() + "/whatsapp-automation/wa/send-template?apiKey=*** answered HTTP 404"));
        CHECK_FALSE(contains(r.out + r.err, "send-message"));
        CHECK(service.paths() == std::map<std::string, int>{{"/whatsapp-automation/wa/send-template", 1}});
    }

    TEST_CASE("a 404 or 405 with a Meta code the contract names nowhere is a wrong endpoint: no row failed") {
        for (const auto& [status, code] : {std::pair{404, 100}, std::pair{405, 2500}}) {
            CAPTURE(code);
            const json error = {{"error",
                                 {{"message", "(#" + std::to_string(code) + ") Invalid parameter"},
                                  {"type", "OAuthException"},
                                  {"code", code},
                                  {"fbtrace_id", "x"}}}};
            Service service([status = status, body = error.dump()](const std::string&) {
                return test_support::answer(status, body);
            });
            CampaignFixture f(service.url(), numbers_csv(5), k_one_at_a_time);
            auto r = run(f, {"run", f.campaign.string(), "--no-progress"});
            CHECK(r.exit_code == 3);
            CHECK(end_of(f).value("reason", "") == "endpoint");
            CHECK(contains(r.err,
                           "/whatsapp-automation/wa/send-message?apiKey=*** answered HTTP " + std::to_string(status)));
            const auto records = f.records();
            CHECK(of_event(records, "attempt").size() == 1);  // it stopped at the first
            CHECK(of_event(records, "result").empty());       // the row is not failed
            CHECK(of_event(records, "unsent").size() == 1);
            CHECK(f.final_status().empty());
        }
    }

    TEST_CASE("a sent answer carrying 131050 puts the number on the account's suppression list") {
        const std::string first = numbers_wa_id(0);
        Service service([&](const std::string& wa_id) {
            return wa_id == first ? test_support::answer(200, accepted("wamid.O", 131050)) : accept(wa_id);
        });
        CampaignFixture f(service.url(), numbers_csv(2), k_one_at_a_time);
        auto r = run(f, {"run", f.campaign.string(), "--no-progress"});
        CHECK(r.exit_code == 0);
        const json row = result_of(f, 1);
        REQUIRE_FALSE(row.is_null());
        CHECK(row["status"] == "sent");
        CHECK(row.value("error_code", 0) == 131050);
        auto list = run(f, {"suppress", "list", "--campaign", f.campaign.string(), "--json"});
        REQUIRE(list.exit_code == 0);
        CHECK(contains(list.out, "\"wa_id\":\"" + first + "\""));
        CHECK(contains(list.out, "\"reason\":\"opted_out\""));
        CHECK_FALSE(contains(list.out, numbers_wa_id(1)));
    }
}
