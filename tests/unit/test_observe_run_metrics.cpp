#include <doctest/doctest.h>

#include <sstream>
#include <string>
#include <vector>

#include "observe/run_metrics.hpp"

namespace {

// The lines of `text` that are samples (not HELP or TYPE).
std::vector<std::string> samples(const std::string& text) {
    std::vector<std::string> lines;
    std::istringstream in(text);
    for (std::string line; std::getline(in, line);) {
        if (!line.starts_with("#")) {
            lines.push_back(line);
        }
    }
    return lines;
}

bool has_line(const std::string& text, const std::string& line) {
    return ("\n" + text).find("\n" + line + "\n") != std::string::npos;
}

service::Outcome outcome_of(service::Cause cause, bool ambiguous = false) {
    service::Outcome o;
    o.cause = cause;
    o.ambiguous = ambiguous;
    return o;
}

queue::Progress paused_by(const std::string& reason) {
    queue::Progress p;
    p.pause_reason = reason;
    return p;
}

}  // namespace

TEST_SUITE("observe::RunMetrics") {
    TEST_CASE("every family starts with its HELP and TYPE lines, and its series at zero") {
        observe::RunMetrics m("spring");
        const std::string text = m.render(std::nullopt);
        for (const std::string family :
             {"wacamp_messages_total", "wacamp_requests_total", "wacamp_throttled_total", "wacamp_in_flight",
              "wacamp_in_flight_limit", "wacamp_send_rate", "wacamp_paused", "wacamp_run_duration_seconds"}) {
            CHECK_MESSAGE(text.find("# HELP " + family + " ") != std::string::npos, family);
            CHECK_MESSAGE(text.find("# TYPE " + family + (family.ends_with("_total") ? " counter" : " gauge")) !=
                              std::string::npos,
                          family);
        }
        CHECK(has_line(text, R"(wacamp_messages_total{campaign="spring",cause="",status="sent"} 0)"));
        CHECK(has_line(text, R"(wacamp_throttled_total{campaign="spring"} 0)"));
        CHECK(has_line(text, R"(wacamp_paused{campaign="spring",reason=""} 0)"));
        // Unknown until the run says how many: absent, like the last success.
        CHECK(text.find("wacamp_remaining{") == std::string::npos);
        CHECK(text.find("wacamp_last_success_timestamp_seconds") == std::string::npos);
    }

    TEST_CASE("outcomes are counted by the result log's status and cause, the cause empty when none") {
        observe::RunMetrics m("spring");
        m.recorded(results::Status::sent, results::Cause::none);
        m.recorded(results::Status::sent, results::Cause::none);
        m.recorded(results::Status::failed, results::Cause::opted_out);
        m.recorded(results::Status::skipped, results::Cause::duplicate);
        m.recorded(results::Status::invalid, results::Cause::invalid);
        m.recorded(results::Status::unknown, results::Cause::transient);
        const std::string text = m.render(std::nullopt);
        CHECK(has_line(text, R"(wacamp_messages_total{campaign="spring",cause="",status="sent"} 2)"));
        CHECK(has_line(text, R"(wacamp_messages_total{campaign="spring",cause="opted_out",status="failed"} 1)"));
        CHECK(has_line(text, R"(wacamp_messages_total{campaign="spring",cause="duplicate",status="skipped"} 1)"));
        CHECK(has_line(text, R"(wacamp_messages_total{campaign="spring",cause="invalid",status="invalid"} 1)"));
        CHECK(has_line(text, R"(wacamp_messages_total{campaign="spring",cause="transient",status="unknown"} 1)"));
    }

    TEST_CASE("requests are counted by outcome; throttled ones also on their own") {
        observe::RunMetrics m("spring");
        m.answered(outcome_of(service::Cause::none));
        m.answered(outcome_of(service::Cause::rate_limited));
        m.answered(outcome_of(service::Cause::rate_limited));
        m.answered(outcome_of(service::Cause::transient, true));
        const std::string text = m.render(std::nullopt);
        CHECK(has_line(text, R"(wacamp_requests_total{campaign="spring",outcome="sent"} 1)"));
        CHECK(has_line(text, R"(wacamp_requests_total{campaign="spring",outcome="rate_limited"} 2)"));
        CHECK(has_line(text, R"(wacamp_requests_total{campaign="spring",outcome="no_answer"} 1)"));
        CHECK(has_line(text, R"(wacamp_throttled_total{campaign="spring"} 2)"));
    }

    TEST_CASE("request_outcome: sent, no_answer for a request that left unanswered, else the service's cause") {
        CHECK(observe::request_outcome(outcome_of(service::Cause::none)) == "sent");
        CHECK(observe::request_outcome(outcome_of(service::Cause::transient, true)) == "no_answer");
        CHECK(observe::request_outcome(outcome_of(service::Cause::transient)) == "transient");
        CHECK(observe::request_outcome(outcome_of(service::Cause::pair_rate)) == "pair_rate");
    }

    TEST_CASE("progress sets the queue's gauges and the rows remaining") {
        observe::RunMetrics m("spring");
        queue::Progress p;
        p.sent = 30;
        p.failed = 5;
        p.unknown = 1;
        p.in_flight = 7;
        p.in_flight_limit = 12;
        p.achieved_rate = 9.5;
        runner::RunFigures figures;
        figures.total = 100;
        figures.held_back[results::Cause::suppressed] = 4;
        m.progress(p, figures);
        m.set_duration(std::chrono::milliseconds(12'500));
        const std::string text = m.render(std::nullopt);
        CHECK(has_line(text, R"(wacamp_in_flight{campaign="spring"} 7)"));
        CHECK(has_line(text, R"(wacamp_in_flight_limit{campaign="spring"} 12)"));
        CHECK(has_line(text, R"(wacamp_send_rate{campaign="spring"} 9.5)"));
        CHECK(has_line(text, R"(wacamp_remaining{campaign="spring"} 60)"));
        CHECK(has_line(text, R"(wacamp_run_duration_seconds{campaign="spring"} 12.5)"));
    }

    TEST_CASE("a pause is one series with its reason at 1; when it ends, one series with no reason at 0") {
        observe::RunMetrics m("spring");
        m.progress(paused_by("outside the send window"), {});
        std::string text = m.render(std::nullopt);
        CHECK(has_line(text, R"(wacamp_paused{campaign="spring",reason="outside the send window"} 1)"));
        CHECK(text.find(R"(reason="")") == std::string::npos);
        m.progress(paused_by("daily cap reached"), {});
        text = m.render(std::nullopt);
        CHECK(has_line(text, R"(wacamp_paused{campaign="spring",reason="daily cap reached"} 1)"));
        CHECK(text.find("outside the send window") == std::string::npos);
        m.progress(paused_by(""), {});
        text = m.render(std::nullopt);
        CHECK(has_line(text, R"(wacamp_paused{campaign="spring",reason=""} 0)"));
        CHECK(text.find("daily cap") == std::string::npos);
    }

    TEST_CASE("label values are escaped as the exposition format says: backslash, double quote, line feed") {
        observe::RunMetrics m("a\"b\\c\nd");
        m.progress(paused_by("say \"why\"\\\nnow"), {});
        const std::string text = m.render(std::nullopt);
        CHECK(has_line(text, R"(wacamp_paused{campaign="a\"b\\c\nd",reason="say \"why\"\\\nnow"} 1)"));
    }

    TEST_CASE("the last success is rendered only when given, and read back from what was rendered") {
        observe::RunMetrics m("spring");
        const std::string text = m.render(1795563210.5);
        CHECK(text.find("# TYPE wacamp_last_success_timestamp_seconds gauge\n") != std::string::npos);
        CHECK(has_line(text, R"(wacamp_last_success_timestamp_seconds{campaign="spring"} 1795563210.5)"));
        CHECK(observe::last_success_in(text, "spring") == 1795563210.5);
        CHECK_FALSE(observe::last_success_in(text, "spring-2"));
        CHECK_FALSE(observe::last_success_in(m.render(std::nullopt), "spring"));
        CHECK_FALSE(
            observe::last_success_in("wacamp_last_success_timestamp_seconds{campaign=\"spring\"} soon\n", "spring"));
    }

    TEST_CASE("the series do not grow with the number of recipients") {
        observe::RunMetrics m("spring");
        const auto each = [&](int n) {
            for (int i = 0; i < n; ++i) {
                m.recorded(i % 3 == 0 ? results::Status::failed : results::Status::sent,
                           i % 3 == 0 ? results::Cause::rejected : results::Cause::none);
                m.answered(outcome_of(i % 3 == 0 ? service::Cause::rejected : service::Cause::none));
                queue::Progress p;
                p.in_flight = static_cast<std::size_t>(i % 5);
                m.progress(p, {});
            }
        };
        each(30);
        const auto few = samples(m.render(std::nullopt)).size();
        each(30'000);
        CHECK(samples(m.render(std::nullopt)).size() == few);
    }
}
