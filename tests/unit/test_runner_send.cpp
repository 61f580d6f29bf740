#include <doctest/doctest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <filesystem>

#include "results/replay.hpp"
#include "runner/send.hpp"
#include "runner_fixture.hpp"
#include "util/time.hpp"

using namespace std::chrono_literals;
using runner_test::column;
using runner_test::read_log;

namespace {

struct Rig {
    explicit Rig(fakes::FakeTransport::Responder answer = runner_test::accept_all)
        : transport{clock, std::move(answer), 20ms} {}

    campaign_file_test::Folder folder;
    fakes::FakeClock clock;
    fakes::FakeTransport transport;
    fakes::FakeUi ui;
    std::atomic<int> stops{0};
    runner::LateOk late_ok = runner::LateOk::no;

    util::Result<runner::SendReport> send(const campaign::Campaign& c) {
        runner::SendOptions options;
        options.results_path = log_path();
        options.late_ok = late_ok;
        return runner::send_campaign(c, options,
                                     {.transport = transport, .clock = clock, .ui = ui, .stop_requests = stops});
    }
    std::string log_path() const { return folder.str("results.jsonl"); }
};

// A template campaign of three numbers whose template the check found as `category`; the
// service answers Meta's `code` to the second number and accepts the others.
struct TemplateRun {
    Rig rig;
    campaign::Campaign campaign;

    TemplateRun(const std::string& category, long long code) : rig(answer_for_second(code)) {
        rig.folder.put("samples/r.csv", "phone,name\n+919812345678,Asha\n+919812345679,Vikram\n+919812345680,Meera\n");
        auto c = rig.folder.load(R"(name: spring
service:
  base_url: https://api.example.com
  api_key: ${WACAMP_API_KEY}
recipients:
  file: samples/r.csv
  columns: {wa_id: phone, user_name: name}
rate: {concurrency: 1}
account: {ledger: off}
message:
  type: template
  template: appointment_update
  body: ["{{name}}"]
)");
        REQUIRE(c);
        campaign = std::move(*c);
        campaign.message.templated.id = "65f0c1a2b3c4d5e6f7a8b9c0";
        campaign.message.templated.category = category;
    }

    static fakes::FakeTransport::Responder answer_for_second(long long code) {
        return [code](const service::HttpRequest& request) -> fakes::FakeTransport::Answer {
            if (request.body.find("919812345679") != std::string::npos) {
                return fakes::http_answer(400, R"({"error":{"message":"(#)" + std::to_string(code) +
                                                   R"() said so","code":)" + std::to_string(code) + "}}");
            }
            return runner_test::accept_all(request);
        };
    }

    // The result records of the log.
    std::vector<nlohmann::json> results() const {
        std::vector<nlohmann::json> out;
        for (const auto& line : read_log(rig.log_path())) {
            if (line["event"] == "result") {
                out.push_back(line);
            }
        }
        return out;
    }
};

}  // namespace

TEST_SUITE("runner::send_campaign templates") {
    TEST_CASE("every result of a template campaign names the template and its category") {
        TemplateRun run("UTILITY", 132018);
        auto report = run.rig.send(run.campaign);
        REQUIRE(report);
        CHECK(report->reason == queue::StopReason::completed);
        const auto results = run.results();
        REQUIRE(results.size() == 3);
        for (const auto& r : results) {
            CHECK(r["template"] == "appointment_update");
            CHECK(r["category"] == "UTILITY");
        }
        CHECK(results[1]["status"] == "failed");
        CHECK(results[1]["cause"] == "template_params");
        CHECK(report->causes[results::Cause::template_params] == 1);
    }
    TEST_CASE("a text campaign's results have neither template nor category") {
        Rig rig;
        REQUIRE(rig.send(runner_test::three_recipients(rig.folder)));
        for (const auto& line : read_log(rig.log_path())) {
            CHECK_FALSE(line.contains("template"));
            CHECK_FALSE(line.contains("category"));
        }
    }
    TEST_CASE("131049 fails a utility template's row as rejected, a marketing template's as the marketing limit") {
        for (const std::string category : {"UTILITY", "marketing"}) {
            CAPTURE(category);
            TemplateRun run(category, 131049);
            auto report = run.rig.send(run.campaign);
            REQUIRE(report);
            const auto results = run.results();
            REQUIRE(results.size() == 3);
            CHECK(results[1]["status"] == "failed");
            CHECK(results[1]["error_code"] == 131049);
            CHECK(results[1]["cause"] == (category == "UTILITY" ? "rejected" : "marketing_limit"));
        }
    }
    TEST_CASE("a paused template stops the run with reason template_paused; the row's cause says so") {
        TemplateRun run("MARKETING", 132015);
        auto report = run.rig.send(run.campaign);
        REQUIRE(report);
        CHECK(report->reason == queue::StopReason::template_paused);
        CHECK(report->counts[results::Status::sent] == 1);
        const auto results = run.results();
        REQUIRE(results.size() == 2);
        CHECK(results[1]["cause"] == "template_paused");
        const auto log = read_log(run.rig.log_path());
        CHECK(log.back()["reason"] == "template_paused");
    }
}

TEST_SUITE("runner::send_campaign") {
    TEST_CASE("a small campaign sends every row and logs campaign, attempt before result, and end") {
        Rig rig;
        auto report = rig.send(runner_test::three_recipients(rig.folder, "rate: {concurrency: 1}\n"));
        REQUIRE(report);
        CHECK(report->reason == queue::StopReason::completed);
        CHECK(report->sent_this_run == 3);
        CHECK(report->counts[results::Status::sent] == 3);
        CHECK(rig.transport.started.size() == 3);

        const auto log = read_log(rig.log_path());
        CHECK(column(log, "event") == std::vector<std::string>{R"("campaign")", R"("attempt")", R"("result")",
                                                               R"("attempt")", R"("result")", R"("attempt")",
                                                               R"("result")", R"("end")"});
        CHECK(column(log, "row") == std::vector<std::string>{"", "1", "1", "2", "2", "3", "3", ""});
        CHECK(log.front()["mode"] == "send");
        CHECK(log.back()["reason"] == "completed");
        auto state = results::replay(rig.log_path());
        REQUIRE(state);
        CHECK(state->row(2)->ever_sent());
    }

    TEST_CASE("a second run of a finished campaign sends nothing and says it was complete") {
        Rig rig;
        const auto c = runner_test::three_recipients(rig.folder);
        REQUIRE(rig.send(c));
        auto again = rig.send(c);
        REQUIRE(again);
        CHECK(again->already_complete);
        CHECK(rig.transport.started.size() == 3);
    }

    TEST_CASE("start_at in the future is waited for through the clock, then the run sends") {
        Rig rig;
        auto report =
            rig.send(runner_test::three_recipients(rig.folder, "schedule: {start_at: 2026-03-01T00:10:00Z}\n"));
        REQUIRE(report);
        CHECK(report->reason == queue::StopReason::completed);
        CHECK(rig.clock.sleeps == 6000);  // ten minutes in slices of 100 ms
        REQUIRE(rig.ui.start_waits.size() >= 1);
        CHECK(util::format_timestamp(rig.ui.start_waits.front()) == "2026-03-01T00:10:00.000Z");
        const auto log = read_log(rig.log_path());
        CHECK(log.front()["started_at"].get<std::string>().starts_with("2026-03-01T00:10:00"));
    }

    TEST_CASE("a stop request during the wait for start_at ends the run at once, with nothing sent or logged") {
        Rig rig;
        rig.stops = 1;
        auto report =
            rig.send(runner_test::three_recipients(rig.folder, "schedule: {start_at: 2026-03-01T00:10:00Z}\n"));
        REQUIRE(report);
        CHECK(report->reason == queue::StopReason::interrupted);
        CHECK(rig.clock.sleeps == 0);
        CHECK(rig.transport.started.empty());
        CHECK(read_log(rig.log_path()).empty());
    }

    TEST_CASE("a run past start_at + max_delay sends nothing, waits for nothing and ends too_late; --late-ok sends") {
        Rig rig;  // the clock says 2026-03-01T00:00Z: three hours after start_at
        const auto c =
            runner_test::three_recipients(rig.folder, "schedule: {start_at: 2026-02-28T21:00:00Z, max_delay: 2h}\n");
        auto report = rig.send(c);
        REQUIRE(report);
        CHECK(report->reason == queue::StopReason::too_late);
        CHECK(report->message.find("schedule.max_delay") != std::string::npos);
        CHECK(rig.transport.started.empty());
        CHECK(rig.clock.sleeps == 0);
        CHECK(report->not_yet_attempted == 3);
        const auto log = read_log(rig.log_path());
        CHECK(column(log, "event") == std::vector<std::string>{R"("campaign")", R"("end")"});
        CHECK(log.back()["reason"] == "too_late");

        rig.late_ok = runner::LateOk::yes;
        auto late = rig.send(c);
        REQUIRE(late);
        CHECK(late->reason == queue::StopReason::completed);
        CHECK(late->sent_this_run == 3);
    }

    TEST_CASE("a run past not_after sends nothing and ends too_late") {
        Rig rig;
        auto report =
            rig.send(runner_test::three_recipients(rig.folder, "schedule: {not_after: 2026-02-28T18:00:00Z}\n"));
        REQUIRE(report);
        CHECK(report->reason == queue::StopReason::too_late);
        CHECK(report->message.find("schedule.not_after") != std::string::npos);
        CHECK(rig.transport.started.empty());
    }

    TEST_CASE("a run within max_delay waits for start_at and sends") {
        Rig rig;
        auto report = rig.send(
            runner_test::three_recipients(rig.folder, "schedule: {start_at: 2026-03-01T00:10:00Z, max_delay: 1m}\n"));
        REQUIRE(report);
        CHECK(report->reason == queue::StopReason::completed);
        CHECK(report->sent_this_run == 3);
    }

    TEST_CASE("a declined confirmation sends nothing") {
        Rig rig;
        fakes::FakeUi ui(fakes::FakeUi::Confirm::no);
        runner::SendOptions options;
        options.results_path = rig.log_path();
        auto report = runner::send_campaign(
            runner_test::three_recipients(rig.folder), options,
            {.transport = rig.transport, .clock = rig.clock, .ui = ui, .stop_requests = rig.stops});
        REQUIRE(report);
        CHECK(report->declined);
        REQUIRE(ui.previews.size() == 1);
        CHECK(ui.previews.front().to_send == 3);
        CHECK(rig.transport.started.empty());
    }

    TEST_CASE("a watch hears each row's outcome of the run, each answer, and the queue's state once it stopped") {
        Rig rig;
        fakes::FakeWatch watch;
        auto c = runner_test::three_recipients(rig.folder, "rate: {concurrency: 2}\n");
        rig.folder.put("samples/r.csv",
                       "phone,name,user_id\n"
                       "+919812345678,Asha,u-1\n"
                       "+919812345679,Vikram,u-2\n"
                       "+919812345678,Asha again,u-3\n"
                       "12345,Nobody,u-4\n");
        runner::SendOptions options;
        options.results_path = rig.log_path();
        auto report = runner::send_campaign(c, options,
                                            {.transport = rig.transport,
                                             .clock = rig.clock,
                                             .ui = rig.ui,
                                             .stop_requests = rig.stops,
                                             .watch = &watch});
        REQUIRE(report);
        using results::Cause;
        using results::Status;
        const auto count = [&](Status status, Cause cause) {
            return std::count(watch.records.begin(), watch.records.end(), std::pair{status, cause});
        };
        CHECK(watch.records.size() == 4);
        CHECK(count(Status::sent, Cause::none) == 2);
        CHECK(count(Status::skipped, Cause::duplicate) == 1);
        CHECK(count(Status::invalid, Cause::invalid) == 1);
        CHECK(watch.answers == std::vector<service::Cause>{service::Cause::none, service::Cause::none});
        REQUIRE(watch.progresses >= 2);
        CHECK(watch.last_progress.sent == 2);
        CHECK(watch.last_progress.in_flight == 0);
        CHECK(watch.last_figures.remaining(watch.last_progress) == 0);
    }
}

TEST_SUITE("runner::send_campaign, the replay's temporary files") {
    TEST_CASE("a rerun whose log's records cannot be read back stops, and never sends a number again") {
        Rig rig;
        std::string csv = "phone,name,user_id\n";
        std::vector<std::string> numbers;
        for (int i = 1000; i < 1400; ++i) {
            numbers.push_back("91981200" + std::to_string(i));
            csv += "+" + numbers.back() + ",N,u" + std::to_string(i) + "\n";
        }
        const auto c = runner_test::three_recipients(rig.folder, "rate: {concurrency: 4}\n");
        rig.folder.put("samples/r.csv", csv);
        runner::SendOptions first;
        first.results_path = rig.log_path();
        first.limit = 200;
        auto sent = runner::send_campaign(
            c, first, {.transport = rig.transport, .clock = rig.clock, .ui = rig.ui, .stop_requests = rig.stops});
        REQUIRE(sent);
        REQUIRE(rig.transport.started.size() == 200);
        const auto sent_before = [&](const std::string& body) {
            return std::any_of(numbers.begin(), numbers.begin() + 200,
                               [&](const std::string& n) { return body.find(n) != std::string::npos; });
        };
        int stopped_while_sending = 0;
        for (std::uint64_t limit = 1024; limit <= 64 * 1024; limit += 1024) {
            CAPTURE(limit);
            const std::string path = rig.folder.str("rerun-" + std::to_string(limit) + ".jsonl");
            std::filesystem::copy_file(rig.log_path(), path);
            fakes::FakeTransport transport{rig.clock, runner_test::accept_all, 20ms};
            runner::SendOptions options;
            options.results_path = path;
            const auto dir = rig.folder.str("");
            auto report = runner::send_campaign(
                c, options,
                {.transport = transport,
                 .clock = rig.clock,
                 .ui = rig.ui,
                 .stop_requests = rig.stops,
                 .replay = {
                     .records = {
                         .page_bytes = 1024, .cached_pages = 1, .temp_dir = dir, .fail_reads_after_bytes = limit}}});
            for (const auto& s : transport.started) {
                CHECK_FALSE(sent_before(s.request.body));
            }
            if (!report) {
                CHECK(report.error().message.find("the log's replay on disk") != std::string::npos);
                CHECK(transport.started.empty());
                continue;
            }
            if (report->reason == queue::StopReason::input_error) {
                ++stopped_while_sending;
                CHECK(report->message.find("cannot read back a temporary file") != std::string::npos);
            }
        }
        CHECK(stopped_while_sending > 0);
    }
}
