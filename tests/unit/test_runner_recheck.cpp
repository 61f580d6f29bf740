// message.recheck (runner::TemplateRecheck): the template list read again while sending, on its
// own and through the real dispatcher on a fake clock with a fake transport: a category change
// stops the run at once, a template no longer approved stops it as its code would, refused
// credentials stop it (auth), and 3 failed reads in a row pause sending until one succeeds.
#include <doctest/doctest.h>

#include <fmt/format.h>

#include "queue_dispatch_rig.hpp"
#include "runner/template_recheck.hpp"

using namespace dispatch_test;
using runner::TemplateRecheck;

namespace {

constexpr const char* k_id = "65f0a1b2c3d4e5f6a7b80001";

campaign::Campaign template_campaign() {
    campaign::Campaign c;
    c.service.base_url = "http://sandbox";
    c.service.api_key = "rig-key-0123";
    c.message.type = campaign::MessageType::template_message;
    c.message.templated.name = "spring_sale";
    c.message.templated.id = k_id;
    c.message.templated.category = "MARKETING";
    return c;
}

// The template list with the campaign's record (and another before it) as `status` and `category`.
service::HttpResponse list_with(const std::string& status, const std::string& category) {
    return fakes::http_answer(
        200, fmt::format(R"({{"success":true,"data":[{{"_id":"65f0a1b2c3d4e5f6a7b80002","status":"APPROVED",)"
                         R"("configuration":{{"name":"other","category":"UTILITY"}}}},)"
                         R"({{"_id":"{}","status":"{}","configuration":{{"name":"spring_sale","category":"{}"}}}}]}})",
                         k_id, status, category));
}

service::HttpResponse list_without() {
    return fakes::http_answer(200, R"({"success":true,"data":[]})");
}

service::Completion answer(service::HttpResponse response) {
    return {1, std::move(response), std::chrono::milliseconds(20)};
}

queue::Instant at(std::chrono::seconds s) {
    return {queue::SteadyTime{} + s, queue::WallTime{} + s};
}

// The answer every job would get now.
queue::Admission asked(const TemplateRecheck& recheck, std::chrono::seconds s, std::size_t* room = nullptr) {
    queue::Admission why;
    const auto n = recheck.room(at(s), why);
    if (room != nullptr) {
        *room = n;
    }
    return why;
}

// The `never` every job would get now: the run must end.
queue::Admission::Never refused(const TemplateRecheck& recheck, std::chrono::seconds s) {
    const queue::Admission why = asked(recheck, s);
    REQUIRE(why.never());
    return *why.never();
}

}  // namespace

TEST_SUITE("runner::TemplateRecheck") {
    TEST_CASE("reads the list once every message.recheck, one read at a time; an unchanged template lets all through") {
        const auto c = template_campaign();
        TemplateRecheck recheck(c, std::chrono::minutes(10), queue::SteadyTime{});
        CHECK_FALSE(recheck.due(at(std::chrono::seconds(599))));
        REQUIRE(recheck.next_due() == queue::SteadyTime{} + std::chrono::minutes(10));
        const auto request = recheck.due(at(std::chrono::seconds(600)));
        REQUIRE(request);
        CHECK(request->method == service::Method::get);
        CHECK(request->url.find("templates") != std::string::npos);
        CHECK_FALSE(recheck.due(at(std::chrono::seconds(601))));  // one in flight
        CHECK_FALSE(recheck.next_due());
        recheck.answered(answer(list_with("APPROVED", "marketing")), at(std::chrono::seconds(601)));
        std::size_t room = 0;
        asked(recheck, std::chrono::seconds(601), &room);
        CHECK(room == queue::k_any_room);
        CHECK(recheck.next_due() == queue::SteadyTime{} + std::chrono::seconds(1201));
    }

    TEST_CASE("a category change ends the run (template_changed), naming the old and the new category") {
        const auto c = template_campaign();
        TemplateRecheck recheck(c, std::chrono::seconds(10), queue::SteadyTime{});
        REQUIRE(recheck.due(at(std::chrono::seconds(10))));
        recheck.answered(answer(list_with("APPROVED", "UTILITY")), at(std::chrono::seconds(11)));
        std::size_t room = 1;
        const auto answer = asked(recheck, std::chrono::seconds(11), &room);
        CHECK(room == 0);
        REQUIRE(answer.never());
        const auto& why = *answer.never();
        CHECK(why.refusal == queue::Admission::Refusal::stop);
        CHECK(why.stop_reason == queue::StopReason::template_changed);
        CHECK(why.reason.find("is UTILITY in the template list now, not MARKETING") != std::string::npos);
        CHECK(recheck.category() == "UTILITY");
        CHECK(recheck.started_as() == "MARKETING");
        CHECK_FALSE(recheck.due(at(std::chrono::seconds(100))));  // nothing more to read
    }

    TEST_CASE("a template no longer approved ends the run as its code would; one gone ends it as `template`") {
        const std::vector<std::pair<std::string, queue::StopReason>> cases{
            {"PAUSED", queue::StopReason::template_paused},
            {"DISABLED", queue::StopReason::template_disabled},
            {"REJECTED", queue::StopReason::template_refused}};
        for (const auto& [status, reason] : cases) {
            CAPTURE(status);
            TemplateRecheck recheck(template_campaign(), std::chrono::seconds(10), queue::SteadyTime{});
            REQUIRE(recheck.due(at(std::chrono::seconds(10))));
            recheck.answered(answer(list_with(status, "MARKETING")), at(std::chrono::seconds(10)));
            const auto why = refused(recheck, std::chrono::seconds(10));
            CHECK(why.refusal == queue::Admission::Refusal::stop);
            CHECK(why.stop_reason == reason);
            CHECK(why.reason.find("has status " + status) != std::string::npos);
        }
        TemplateRecheck gone(template_campaign(), std::chrono::seconds(10), queue::SteadyTime{});
        REQUIRE(gone.due(at(std::chrono::seconds(10))));
        gone.answered(answer(list_without()), at(std::chrono::seconds(10)));
        const auto why = refused(gone, std::chrono::seconds(10));
        CHECK(why.stop_reason == queue::StopReason::template_refused);
        CHECK(why.reason.find("no longer in the account's template list") != std::string::npos);
    }

    TEST_CASE("refused credentials end the run (auth), without the key in the reason") {
        TemplateRecheck recheck(template_campaign(), std::chrono::seconds(10), queue::SteadyTime{});
        REQUIRE(recheck.due(at(std::chrono::seconds(10))));
        recheck.answered(answer(fakes::http_answer(401, R"({"error":{"message":"bad key rig-key-0123","code":190}})")),
                         at(std::chrono::seconds(10)));
        const auto why = refused(recheck, std::chrono::seconds(10));
        CHECK(why.refusal == queue::Admission::Refusal::stop);
        CHECK(why.stop_reason == queue::StopReason::auth);
        CHECK(why.reason.find("rig-key-0123") == std::string::npos);
    }

    TEST_CASE("failed reads are retried soon; 3 in a row pause sending until one succeeds") {
        TemplateRecheck recheck(template_campaign(), std::chrono::minutes(10), queue::SteadyTime{});
        auto t = std::chrono::seconds(600);
        std::size_t room = 0;
        for (int failure = 1; failure <= 3; ++failure) {
            CAPTURE(failure);
            REQUIRE(recheck.due(at(t)));
            if (failure == 2) {
                service::TransportError lost{service::TransportFailure::timeout, true, "timed out"};
                recheck.answered({1, lost, std::chrono::milliseconds(0)}, at(t));
            } else {
                recheck.answered(answer(fakes::http_answer(500, "oops")), at(t));
            }
            // Retried after TemplateRecheck::k_retry_after, not after the whole 10 minutes.
            CHECK(recheck.next_due() == queue::SteadyTime{} + t + TemplateRecheck::k_retry_after);
            const auto why = asked(recheck, t, &room);
            if (failure < TemplateRecheck::k_failures_to_pause) {
                CHECK(room == queue::k_any_room);
            } else {
                CHECK(room == 0);
                REQUIRE(why.later());
                CHECK(why.later()->retry_at == queue::SteadyTime{} + t + TemplateRecheck::k_retry_after);
                CHECK(why.later()->reason.find("could not be read again 3 times in a row (the last: HTTP 500)") !=
                      std::string::npos);
            }
            t += TemplateRecheck::k_retry_after;
        }
        // A body that is not a list is a failed read too.
        REQUIRE(recheck.due(at(t)));
        recheck.answered(answer(fakes::http_answer(200, "<html>")), at(t));
        asked(recheck, t, &room);
        CHECK(room == 0);
        t += TemplateRecheck::k_retry_after;
        REQUIRE(recheck.due(at(t)));
        recheck.answered(answer(list_with("APPROVED", "MARKETING")), at(t));
        asked(recheck, t, &room);
        CHECK(room == queue::k_any_room);
    }
}

TEST_SUITE("runner::TemplateRecheck through the dispatcher") {
    // 100 template sends at 1/s, the list read every 10 s; the list shows `status` and `category`
    // once `after` sends were answered.
    struct RecheckRun {
        RecheckRun(std::string status, std::string category, int after)
            : rig(
                  [this, status, category, after](const service::HttpRequest& request) -> fakes::FakeTransport::Answer {
                      if (request.method == service::Method::get) {
                          ++reads;
                          if (sends < after) {
                              return list_with("APPROVED", "MARKETING");
                          }
                          if (!changed_read) {
                              changed_read = rig.clock.steady_now();
                          }
                          return list_with(status, category);
                      }
                      ++sends;
                      return fakes::http_answer(200, k_ok);
                  },
                  1, 1) {}
        queue::DispatchResult run() {
            ListSource source(100);
            for (auto& job : source.jobs()) {
                job.template_send = true;
            }
            TemplateRecheck recheck(c, std::chrono::seconds(10), rig.clock.steady_now());
            const queue::DispatchParts parts{.service = &rig.service,
                                             .transport = &rig.transport,
                                             .clock = &rig.clock,
                                             .limiter = &rig.limiter,
                                             .retry = &rig.retry,
                                             .steps = {&recheck},
                                             .observer = &rig.recorder,
                                             .stop_requests = &rig.stops,
                                             .side = &recheck};
            return queue::dispatch(source, rig.settings, parts);
        }
        campaign::Campaign c = template_campaign();
        int reads = 0;
        int sends = 0;
        std::optional<std::chrono::steady_clock::time_point> changed_read;  // when the read that shows it left
        Rig rig;
    };

    TEST_CASE("a category change stops the run at once: no send leaves after the answer; the read is no attempt") {
        RecheckRun r("APPROVED", "UTILITY", 30);
        const auto result = r.run();
        CHECK(result.reason == queue::StopReason::template_changed);
        CHECK(result.message.find("is UTILITY in the template list now, not MARKETING") != std::string::npos);
        // Read at 10, 20 and 30 s unchanged, changed at 40 s, after about 40 sends.
        CHECK(r.reads >= 3);
        CHECK(r.sends >= 30);
        CHECK(r.sends < 100);
        CHECK(r.rig.recorder.attempts == r.sends);  // the reads have no attempt line
        // Nothing started once the read that found it was answered (the rig's latency after it left).
        REQUIRE(r.changed_read);
        for (const auto& s : r.rig.transport.started) {
            CHECK(s.at <= *r.changed_read + std::chrono::milliseconds(50));
        }
        CHECK(r.rig.recorder.count(queue::JobStatus::sent) == r.sends);
    }

    TEST_CASE("a template paused under the campaign stops it (template_paused); sends go on between reads") {
        RecheckRun r("PAUSED", "MARKETING", 150);  // never shown: 100 sends
        auto result = r.run();
        CHECK(result.reason == queue::StopReason::completed);
        CHECK(r.sends == 100);
        CHECK(r.reads >= 8);  // 100 sends at 1/s: a read every 10 s
        RecheckRun paused("PAUSED", "MARKETING", 5);
        result = paused.run();
        CHECK(result.reason == queue::StopReason::template_paused);
        CHECK(paused.sends < 100);
    }
}
