// Connections opened before the first send: over TLS, as many as the concurrency keeps requests
// in flight, every send on one of them; a warm-up the service does not answer changes nothing
// of the run; a dry run opens none.
#include <doctest/doctest.h>

#include <atomic>
#include <set>

#include "../support/scripted_server.hpp"
#include "fixtures.hpp"

using namespace e2e;

namespace {

const std::string k_templates_path = "/whatsapp-automation/wa/templates";
const std::string k_send_path = "/whatsapp-automation/wa/send-message";

// The connections (client ports) of the journal's requests to `path`, in `from`..`to`.
std::set<int> ports_of(const std::vector<nlohmann::json>& journal, const std::string& path, size_t from, size_t to) {
    std::set<int> ports;
    for (size_t i = from; i < to; ++i) {
        if (journal[i].value("path", "") == path) {
            ports.insert(journal[i].value("peer_port", 0));
        }
    }
    return ports;
}

// Where the journal's first send-message request is; its size when there is none.
size_t first_send(const std::vector<nlohmann::json>& journal) {
    size_t i = 0;
    while (i < journal.size() && journal[i].value("path", "") != k_send_path) {
        ++i;
    }
    return i;
}

// A service whose template list fails as `templates` says and that answers every send 200.
struct FailingList {
    explicit FailingList(test_support::Reply templates)
        : server([this, templates](const test_support::ReceivedRequest& request) {
              if (test_support::path_of(request) == k_templates_path) {
                  ++list_requests;
                  return templates;
              }
              std::lock_guard<std::mutex> lock(mutex);
              ++sends[nlohmann::json::parse(request.body).value("wa_id", "")];
              return test_support::answer(200, R"({"success": true, "data": {"messageId": "wamid.ok"}})");
          }) {}

    std::atomic<int> list_requests{0};
    std::mutex mutex;
    std::map<std::string, int> sends;  // per wa_id
    test_support::ScriptedServer server;
};

}  // namespace

TEST_SUITE("e2e: warm-up") {
    TEST_CASE("over TLS, the concurrency's connections are open before the first send and carry every send") {
        // Answers 300 ms late, as a service far away would: the warm-up's requests are in
        // flight together (a sandbox answering at once may free a connection for one of them
        // before it needs one of its own).
        Sandbox sandbox({"--latency", "300"}, Scheme::https);
        const int rows = 16;
        const int concurrency = 4;
        CampaignFixture f(sandbox, numbers_csv(rows),
                          "rate: {per_second: 200, concurrency: " + std::to_string(concurrency) + "}\n");
        add_service_line(f, "  ca_file: " + sandbox.ca_file().string());
        auto r = f.wacamp({"run", f.campaign.string(), "--no-progress"});
        CAPTURE(r.err);
        REQUIRE(r.exit_code == 0);
        const auto journal = sandbox.journal();
        const size_t first = first_send(journal);
        REQUIRE(first < journal.size());
        const auto opened = ports_of(journal, k_templates_path, 0, first);
        const auto used = ports_of(journal, k_send_path, first, journal.size());
        CHECK(opened.size() == static_cast<size_t>(concurrency));
        CHECK(opened.count(0) == 0);  // every request's port was journaled
        CHECK(ports_of(journal, k_templates_path, first, journal.size()).empty());
        for (int port : used) {
            CAPTURE(port);
            CHECK(opened.count(port) == 1);  // no connection opened after the first send
        }
        CHECK(once_each(delivered(sandbox), rows) == "");
        // The log holds the sends alone.
        CHECK(count_events(f, "attempt") == rows);
        CHECK(status_counts(f)["sent"] == rows);
        for (const auto& record : f.records()) {
            CHECK(record.dump().find("templates") == std::string::npos);
        }
    }
    TEST_CASE("a warm-up the service fails stops nothing: every row sent once, the log as without it") {
        const std::vector<std::pair<std::string, test_support::Reply>> failures = {
            {"hung up", {test_support::Reply::Kind::hang_up, ""}},
            {"500", test_support::answer(500, R"({"success": false})")},
        };
        for (const auto& [name, reply] : failures) {
            SUBCASE(name.c_str()) {
                FailingList service(reply);
                const int rows = 12;
                CampaignFixture f(service.server.url(), numbers_csv(rows), "rate: {per_second: 200, concurrency: 4}\n");
                auto r = f.wacamp({"run", f.campaign.string(), "--no-progress"});
                CAPTURE(r.err);
                CHECK(r.exit_code == 0);
                CHECK(service.list_requests == 1);  // no more after the first failed
                CHECK(service.sends.size() == static_cast<size_t>(rows));
                for (const auto& [wa_id, times] : service.sends) {
                    CAPTURE(wa_id);
                    CHECK(times == 1);
                }
                CHECK(count_events(f, "attempt") == rows);
                CHECK(status_counts(f)["sent"] == rows);
                CHECK_FALSE(contains(r.out + r.err, k_api_key));
            }
        }
    }
    TEST_CASE("a warm-up answered 401 or 403 stops the run before its first send: exit 3, reason auth") {
        for (const long status : {401L, 403L}) {
            CAPTURE(status);
            FailingList service(test_support::answer(status, R"({"error": {"message": "Invalid key", "code": 190}})"));
            CampaignFixture f(service.server.url(), numbers_csv(6), "rate: {per_second: 200, concurrency: 4}\n");
            auto r = f.wacamp({"run", f.campaign.string(), "--no-progress"});
            CAPTURE(r.err);
            CHECK(r.exit_code == 3);
            CHECK(contains(r.out + r.err, "refused the credentials"));
            CHECK(service.list_requests == 1);
            CHECK(service.sends.empty());
            CHECK(count_events(f, "attempt") == 0);
            const auto records = f.records();
            REQUIRE_FALSE(records.empty());
            CHECK(records.back().value("event", "") == "end");
            CHECK(records.back().value("reason", "") == "auth");
            CHECK_FALSE(contains(r.out + r.err, k_api_key));
        }
    }
    TEST_CASE("a dry run opens no connection") {
        FailingList service(test_support::answer(200, R"({"success": true, "data": []})"));
        CampaignFixture f(service.server.url(), numbers_csv(5), "rate: {per_second: 200, concurrency: 4}\n");
        auto r = f.wacamp({"run", f.campaign.string(), "--dry-run", "--no-progress"});
        CAPTURE(r.err);
        CHECK(r.exit_code == 0);
        CHECK(service.server.requests() == 0);
    }
}
