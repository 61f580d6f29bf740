#include <doctest/doctest.h>

#include <atomic>
#include <chrono>

#include "results/log_writer.hpp"
#include "runner/cleanup.hpp"
#include "runner/send.hpp"
#include "runner_fixture.hpp"
#include "service/requests.hpp"

using namespace std::chrono_literals;
using runner_test::read_log;

namespace {

bool is_status_update(const service::HttpRequest& request) {
    return request.url.find(service::k_status_update_path) != std::string::npos;
}

// The ids of each status update the transport was asked to send, in order.
std::vector<std::string> status_updates(const fakes::FakeTransport& transport) {
    std::vector<std::string> bodies;
    for (const auto& started : transport.started) {
        if (is_status_update(started.request)) {
            bodies.push_back(nlohmann::json::parse(started.request.body)["ids"].dump());
        }
    }
    return bodies;
}

struct Rig {
    campaign_file_test::Folder folder;
    fakes::FakeClock clock;
    fakes::FakeTransport transport;
    fakes::FakeUi ui;
    std::atomic<int> stops{0};

    explicit Rig(fakes::FakeTransport::Responder answer) : transport(clock, std::move(answer), 20ms) {}

    util::Result<runner::SendReport> send(const campaign::Campaign& c) {
        runner::SendOptions options;
        options.results_path = folder.str("results.jsonl");
        return runner::send_campaign(c, options,
                                     {.transport = transport, .clock = clock, .ui = ui, .stop_requests = stops});
    }
};

const std::string k_cleanup = "cleanup: {delete_contacts: true, batch_size: 2}\n";

}  // namespace

TEST_SUITE("runner::delete_contacts") {
    TEST_CASE("a completed run deletes the contacts it reached in batches of batch_size, each logged") {
        Rig rig(runner_test::accept_all);
        auto report = rig.send(runner_test::three_recipients(rig.folder, k_cleanup));
        REQUIRE(report);
        CHECK(report->cleanup.ran);
        CHECK(report->cleanup.batches_deleted == 2);
        CHECK(report->cleanup.ids_deleted == 3);
        CHECK(status_updates(rig.transport) == std::vector<std::string>{R"(["u-1","u-2"])", R"(["u-3"])"});
        int deleted = 0;
        for (const auto& line : read_log(rig.folder.str("results.jsonl"))) {
            deleted += line["event"] == "delete" ? 1 : 0;
        }
        CHECK(deleted == 2);
    }

    TEST_CASE("a rate-limited batch is retried after its Retry-After, waited through the clock") {
        int updates = 0;
        Rig rig([&](const service::HttpRequest& request) -> fakes::FakeTransport::Answer {
            if (is_status_update(request) && ++updates == 1) {
                return fakes::http_answer(429, "", "2");
            }
            return runner_test::accept_all(request);
        });
        auto report = rig.send(runner_test::three_recipients(rig.folder, k_cleanup));
        REQUIRE(report);
        CHECK(report->cleanup.batches_deleted == 2);
        CHECK(report->cleanup.batches_failed == 0);
        CHECK(updates == 3);
        CHECK(rig.clock.sleeps == 40);  // two seconds of Retry-After in slices of 50 ms
    }

    TEST_CASE("a stop request leaves every batch for a later run, which finishes them") {
        Rig rig(runner_test::accept_all);
        REQUIRE(rig.send(runner_test::three_recipients(rig.folder)));  // sent, with no deletion step
        const auto c = runner_test::three_recipients(rig.folder, k_cleanup);
        auto log = results::LogWriter::open(rig.folder.str("results.jsonl"));
        REQUIRE(log);
        rig.stops = 1;
        const runner::CleanupParts parts{.transport = rig.transport, .clock = rig.clock, .stop_requests = rig.stops};
        auto stopped = runner::delete_contacts(c, *log, parts);
        CHECK(stopped.interrupted);
        CHECK(stopped.batches_deleted == 0);
        CHECK(status_updates(rig.transport).empty());

        rig.stops = 0;
        auto finished = runner::delete_contacts(c, *log, parts);
        CHECK_FALSE(finished.interrupted);
        CHECK(finished.batches_deleted == 2);
        CHECK(status_updates(rig.transport).size() == 2);
    }

    TEST_CASE("a rerun with nothing left to send deletes what the log has not deleted yet, and nothing twice") {
        // Nothing is written to the log before the step: it works from the replay made before
        // sending instead of replaying the log again, and must find the same rows.
        bool refuse_second_batch = true;
        int updates = 0;
        Rig rig([&](const service::HttpRequest& request) -> fakes::FakeTransport::Answer {
            if (is_status_update(request) && request.body.find("u-3") != std::string::npos && refuse_second_batch) {
                return fakes::http_answer(401, R"({"message":"Invalid access token"})");
            }
            updates += is_status_update(request) ? 1 : 0;
            return runner_test::accept_all(request);
        });
        const auto c = runner_test::three_recipients(rig.folder, k_cleanup);
        auto first = rig.send(c);
        REQUIRE(first);
        CHECK(first->cleanup.batches_deleted == 1);  // u-1 and u-2; u-3's batch refused
        CHECK(first->cleanup.refused);

        refuse_second_batch = false;
        auto rerun = rig.send(c);
        REQUIRE(rerun);
        CHECK(rerun->already_complete);
        CHECK(rerun->cleanup.batches_deleted == 1);
        CHECK(rerun->cleanup.ids_deleted == 1);

        auto again = rig.send(c);
        REQUIRE(again);
        CHECK(again->cleanup.ran);
        CHECK(again->cleanup.ids_deleted == 0);
        CHECK(updates == 2);  // u-1 and u-2 once, u-3 once
        std::vector<std::string> deleted;
        int batches = 0;
        for (const auto& line : read_log(rig.folder.str("results.jsonl"))) {
            if (line["event"] == "delete") {
                CHECK(line["batch"] == ++batches);  // numbered on from the log
                if (line["status"] == "deleted") {
                    deleted.push_back(line["ids"].dump());
                }
            }
        }
        CHECK(deleted == std::vector<std::string>{R"(["u-1","u-2"])", R"(["u-3"])"});
    }

    TEST_CASE("log records that cannot be read back stop the step as failed; no id is deleted twice") {
        Rig rig(runner_test::accept_all);
        std::string csv = "phone,name,user_id\n";
        for (int i = 1000; i < 1300; ++i) {
            csv += "+91981200" + std::to_string(i) + ",N,u" + std::to_string(i) + "\n";
        }
        const auto c = runner_test::three_recipients(rig.folder, "cleanup: {delete_contacts: true, batch_size: 10}\n");
        rig.folder.put("samples/r.csv", csv);
        runner::SendOptions options;
        options.results_path = rig.folder.str("results.jsonl");
        options.limit = 150;
        REQUIRE(runner::send_campaign(c, options,
                                      {.transport = rig.transport,
                                       .clock = rig.clock,
                                       .ui = rig.ui,
                                       .stop_requests = rig.stops}));  // no deletion: the run stopped at its limit
        auto log = results::LogWriter::open(rig.folder.str("results.jsonl"));
        REQUIRE(log);
        const runner::CleanupParts plain{.transport = rig.transport, .clock = rig.clock, .stop_requests = rig.stops};
        REQUIRE(runner::delete_contacts(c, *log, plain).batches_deleted == 15);  // the 150 sent
        const std::size_t updates = status_updates(rig.transport).size();
        int failed_reading = 0;
        for (std::uint64_t limit = 1024; limit <= 48 * 1024; limit += 1024) {
            CAPTURE(limit);
            const runner::CleanupParts parts{.transport = rig.transport,
                                             .clock = rig.clock,
                                             .stop_requests = rig.stops,
                                             .replay = {.records = {.page_bytes = 1024,
                                                                    .cached_pages = 1,
                                                                    .temp_dir = rig.folder.str(""),
                                                                    .fail_reads_after_bytes = limit}}};
            auto summary = runner::delete_contacts(c, *log, parts);
            CHECK(status_updates(rig.transport).size() == updates);  // every id was deleted already
            CHECK(summary.batches_deleted == 0);
            if (summary.batches_failed > 0) {
                ++failed_reading;
                CHECK(summary.error.find("cannot read back a temporary file") != std::string::npos);
            }
        }
        CHECK(failed_reading > 0);
    }
}
