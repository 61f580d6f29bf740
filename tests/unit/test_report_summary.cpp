#include <doctest/doctest.h>

#include <algorithm>
#include <fstream>
#include <tuple>

#include "campaign/campaign.hpp"
#include "campaign/campaign_file.hpp"
#include "report/summary.hpp"
#include "results/replay.hpp"
#include "test_report_log.hpp"

using namespace report_test;

namespace {

// Seven rows: two sent (one after a 429), two rejected, one invalid, one duplicate, one
// whose request was in flight when the process died (no `end`).
std::string mixed_log() {
    return header() +
           result(4, Status::invalid, Cause::invalid, 0, R"(column "phone": "12345" is not valid)", -1, 500ms, 0) +
           result(7, Status::skipped, Cause::duplicate, 0, "duplicate of row 1", -1, 600ms, 0) + attempt(1, 1, 1000ms) +
           attempt(2, 1, 1100ms) + sent(1, 40, 1040ms) +
           result(2, Status::failed, Cause::rate_limited, 429, "HTTP 429: rate limited", 30, 1130ms) +
           attempt(3, 1, 1200ms) +
           result(3, Status::failed, Cause::rejected, 400, "HTTP 400: (#131026) Message undeliverable", 60, 1260ms) +
           attempt(6, 1, 1300ms) +
           result(6, Status::failed, Cause::rejected, 400, "HTTP 400: (#131047) outside window", 70, 1370ms) +
           attempt(2, 1, 3000ms) + sent(2, 50, 3050ms) + attempt(5, 1, 4000ms);
}

}  // namespace

TEST_SUITE("report::summarize") {
    TEST_CASE("counts each row by its final state, as replay does") {
        LogFile log;
        auto s = report::summarize(log.write(mixed_log()));
        REQUIRE(s.ok());
        CHECK(s->rows == 7);
        CHECK(s->counts[Status::sent] == 2);
        CHECK(s->counts[Status::failed] == 2);
        CHECK(s->counts[Status::invalid] == 1);
        CHECK(s->counts[Status::skipped] == 1);
        CHECK(s->counts[Status::unknown] == 1);
        CHECK(s->in_flight == 1);
        auto state = results::replay(log.path);
        REQUIRE(state.ok());
        CHECK(s->counts == state->counts);
    }

    TEST_CASE("a later result supersedes an earlier one") {
        LogFile log;
        auto s = report::summarize(log.write(header() + attempt(1, 1, 1s) +
                                             result(1, Status::failed, Cause::transient, 503, "HTTP 503", 20, 1020ms) +
                                             attempt(1, 2, 2s) + sent(1, 30, 2030ms, 2)));
        REQUIRE(s.ok());
        CHECK(s->counts[Status::sent] == 1);
        CHECK(s->counts[Status::failed] == 0);
        CHECK(s->errors.empty());
        CHECK(s->latency.count == 2);
    }

    TEST_CASE("an attempt after the last result makes the row unknown") {
        LogFile log;
        auto s = report::summarize(log.write(header() + attempt(1, 1, 1s) +
                                             result(1, Status::failed, Cause::transient, 0, "timeout", 15000, 16s) +
                                             attempt(1, 2, 17s)));
        REQUIRE(s.ok());
        CHECK(s->counts[Status::unknown] == 1);
        CHECK(s->counts[Status::failed] == 0);
        CHECK(s->in_flight == 1);
        CHECK(s->errors.empty());
    }

    TEST_CASE("an unsent after the row's result (a hand-edited log) leaves the row as its result says") {
        LogFile log;
        const std::string unsent =
            results::to_line(results::UnsentRecord{1, wa_id(1), 1, 404, "HTTP 404: no such path", at(2s)});
        auto s = report::summarize(log.write(header() + attempt(1, 1, 1s) + sent(1, 30, 1030ms) + unsent));
        REQUIRE(s.ok());
        CHECK(s->counts[Status::sent] == 1);
        CHECK(s->counts[Status::skipped] == 0);
        CHECK(s->counts.total() == 1);
    }

    TEST_CASE("groups final errors by status, cause and HTTP status, most frequent first") {
        LogFile log;
        auto s = report::summarize(log.write(mixed_log()));
        REQUIRE(s.ok());
        REQUIRE(s->errors.size() == 3);
        CHECK(s->errors[0].status == Status::failed);
        CHECK(s->errors[0].cause == Cause::rejected);
        CHECK(s->errors[0].http_status == 400);
        CHECK(s->errors[0].count == 2);
        CHECK(s->errors[0].sample == "HTTP 400: (#131026) Message undeliverable");
        CHECK(s->errors[1].cause == Cause::invalid);
        CHECK(s->errors[1].http_status == std::nullopt);
        CHECK(s->errors[2].cause == Cause::duplicate);
        CHECK(s->errors[2].sample == "duplicate of row 1");
    }

    TEST_CASE("Meta's causes are groups of their own, split by Meta's code") {
        LogFile log;
        std::string text = header();
        const std::tuple<Cause, std::int64_t, Status> rows[] = {
            {Cause::opted_out, 131050, Status::failed},       {Cause::opted_out, 131050, Status::failed},
            {Cause::undeliverable, 131026, Status::failed},   {Cause::outside_window, 131047, Status::failed},
            {Cause::marketing_limit, 131049, Status::failed}, {Cause::pair_rate, 131056, Status::failed},
            {Cause::account, 131031, Status::failed},         {Cause::account, 131042, Status::failed},
            {Cause::suppressed, 0, Status::skipped},          {Cause::frequency_cap, 0, Status::skipped}};
        std::int64_t row = 0;
        for (const auto& [cause, code, status] : rows) {
            results::ResultRecord r;
            r.row = ++row;
            r.wa_id = wa_id(row);
            r.status = status;
            r.cause = cause;
            if (code != 0) {
                r.http_status = 400;
                r.error_code = code;
            }
            r.error = "said so";
            r.at = at(std::chrono::seconds(row));
            text += results::to_line(r);
        }
        auto s = report::summarize(log.write(text));
        REQUIRE(s.ok());
        REQUIRE(s->errors.size() == 9);  // the two opted_out rows together; the account codes apart
        CHECK(s->errors[0].cause == Cause::opted_out);
        CHECK(s->errors[0].count == 2);
        CHECK(s->errors[0].error_code == 131050);
        std::vector<Cause> causes;
        for (const auto& g : s->errors) {
            causes.push_back(g.cause);
        }
        CHECK(std::count(causes.begin(), causes.end(), Cause::account) == 2);
        for (const auto cause : {Cause::undeliverable, Cause::outside_window, Cause::marketing_limit, Cause::pair_rate,
                                 Cause::suppressed, Cause::frequency_cap}) {
            CAPTURE(results::to_string(cause));
            CHECK(std::count(causes.begin(), causes.end(), cause) == 1);
        }
    }

    TEST_CASE("counts every rate-limited request, even when the row was sent later") {
        LogFile log;
        auto s = report::summarize(log.write(mixed_log()));
        REQUIRE(s.ok());
        CHECK(s->rate_limited == 1);
        CHECK(s->attempts == 6);
        CHECK(s->sent_results == 2);
    }

    TEST_CASE("latency percentiles cover every result line with latency_ms") {
        LogFile log;
        auto s = report::summarize(log.write(mixed_log()));
        REQUIRE(s.ok());
        CHECK(s->latency.count == 5);  // 30 40 50 60 70
        CHECK(s->latency.p50 == 50);
        CHECK(s->latency.p95 == 70);
        CHECK(s->latency.p99 == 70);
        CHECK(s->latency.max == 70);
    }

    TEST_CASE("duration spans all records; the send rate only the time spent sending") {
        LogFile log;
        auto s = report::summarize(log.write(mixed_log()));
        REQUIRE(s.ok());
        CHECK(s->first_at == at(0ms));
        CHECK(s->last_at == at(4s));
        CHECK(s->sending_span == 3s);  // first attempt 1 s to the last one at 4 s
        REQUIRE(s->send_rate.has_value());
        CHECK(*s->send_rate == doctest::Approx(2.0 / 3.0));
        CHECK_FALSE(s->ended);
        CHECK_FALSE(s->last_end.has_value());
    }

    TEST_CASE("the idle time between runs is not sending time") {
        LogFile log;
        auto s = report::summarize(log.write(header() + attempt(1, 1, 1s) + sent(1, 10, 2s) + header() +
                                             attempt(2, 1, 1h) + sent(2, 10, 1h + 1s)));
        REQUIRE(s.ok());
        CHECK(s->runs == 2);
        CHECK(s->sending_span == 2s);
        CHECK(*s->send_rate == doctest::Approx(1.0));
    }

    TEST_CASE("a changed recipient list renumbers the rows: the latest list's rows are counted, as replay does") {
        LogFile log;
        std::string changed = header();
        changed.replace(changed.find("\"bb\""), 4, "\"cc\"");
        auto s = report::summarize(log.write(header() + sent(1, 10, 1s) + sent(2, 10, 2s) +
                                             result(3, Status::failed, Cause::rejected, 400, "HTTP 400", 10, 3s) +
                                             changed + sent(1, 10, 4s)));
        REQUIRE(s.ok());
        CHECK(s->runs == 2);
        CHECK(s->rows == 1);
        CHECK(s->counts[Status::sent] == 1);
        CHECK(s->counts[Status::failed] == 0);
        CHECK(s->errors.empty());
        CHECK(s->sent_results == 3);  // every request's result still counts for the send rate
        auto state = results::replay(log.path);
        REQUIRE(state.ok());
        CHECK(s->counts == state->counts);
    }

    TEST_CASE("a dry run has no requests and no send rate") {
        LogFile log;
        auto s = report::summarize(
            log.write(header(results::Mode::dry_run) + result(1, Status::dry_run, Cause::none, 0, "", -1, 1s, 0)));
        REQUIRE(s.ok());
        CHECK(s->counts[Status::dry_run] == 1);
        CHECK(s->attempts == 0);
        CHECK_FALSE(s->send_rate.has_value());
        CHECK(s->latency.count == 0);
        CHECK(s->errors.empty());
    }

    TEST_CASE("reports the cleanup step from delete records") {
        LogFile log;
        results::DeleteRecord ok{1, {"u1", "u2"}, {}, results::DeleteStatus::deleted, 200, "", at(10s)};
        results::DeleteRecord bad{2, {"u3"}, {}, results::DeleteStatus::failed, 500, "HTTP 500", at(11s)};
        results::EndRecord end{"completed", {}, at(12s)};
        auto s = report::summarize(
            log.write(header() + results::to_line(ok) + results::to_line(bad) + results::to_line(end)));
        REQUIRE(s.ok());
        REQUIRE(s->cleanup.has_value());
        CHECK(s->cleanup->batches == 2);
        CHECK(s->cleanup->deleted == 1);
        CHECK(s->cleanup->failed == 1);
        CHECK(s->cleanup->ids_deleted == 2);
        CHECK(s->cleanup->last_failed);
        CHECK(s->ended);
        CHECK(s->last_end->reason == "completed");
    }

    TEST_CASE("no cleanup section without delete records") {
        LogFile log;
        auto s = report::summarize(log.write(mixed_log()));
        REQUIRE(s.ok());
        CHECK_FALSE(s->cleanup.has_value());
    }

    TEST_CASE("a torn last line is a warning, not a failure") {
        LogFile log;
        auto s = report::summarize(log.write(mixed_log() + R"({"event":"result","row":5,"wa_)"));
        REQUIRE(s.ok());
        CHECK(s->counts[Status::unknown] == 1);
        CHECK(s->warning_count == 1);
        REQUIRE(s->warnings.size() == 1);
        CHECK(s->warnings[0].find("torn last line") != std::string::npos);
    }

    TEST_CASE("fails on a missing log, naming it") {
        auto s = report::summarize("/nonexistent/wacamp/log.jsonl");
        REQUIRE_FALSE(s.ok());
        CHECK(s.error().message.find("/nonexistent/wacamp/log.jsonl") != std::string::npos);
    }

    TEST_CASE("fails when the first line is not a campaign record") {
        LogFile log;
        auto s = report::summarize(log.write(sent(1, 10, 1s)));
        REQUIRE_FALSE(s.ok());
        CHECK(s.error().message.find(":1: not a wacamp result log") != std::string::npos);
    }
}

TEST_SUITE("report::summarize: per-row state in a temporary file") {
    TEST_CASE("the same summary when every row goes through the file") {
        LogFile log;
        log.write(mixed_log() + attempt(results::k_max_row, 1, 5s) + sent(results::k_max_row, 10, 5010ms));
        auto in_memory = report::summarize(log.path);
        auto paged = report::summarize(log.path, tiny_pages());
        REQUIRE(in_memory.ok());
        REQUIRE(paged.ok());
        CHECK(paged->rows == 8);
        CHECK(paged->rows == in_memory->rows);
        CHECK(paged->counts == in_memory->counts);
        CHECK(paged->in_flight == in_memory->in_flight);
        CHECK(paged->not_sent_rows == std::vector<std::int64_t>{3, 5, 6});
        CHECK(paged->not_sent_rows == in_memory->not_sent_rows);
        REQUIRE(paged->errors.size() == in_memory->errors.size());
        for (std::size_t i = 0; i < paged->errors.size(); ++i) {
            CHECK(paged->errors[i].count == in_memory->errors[i].count);
            CHECK(paged->errors[i].sample == in_memory->errors[i].sample);
        }
        auto state = results::replay(log.path);
        REQUIRE(state.ok());
        CHECK(paged->counts == state->counts);
    }

    TEST_CASE("fails, naming the log, when the temporary file cannot be made") {
        LogFile log;
        util::DiskArrayOptions options;
        options.temp_dir = (log.dir / "missing").string();
        auto s = report::summarize(log.write(mixed_log()), options);
        REQUIRE_FALSE(s.ok());
        check_names_log(s.error().message, log, "cannot create a temporary file in " + options.temp_dir);
    }

    TEST_CASE("fails when a row cannot be read back, rather than count it as never named") {
        LogFile log;
        auto options = tiny_pages();
        options.fail_reads_after_bytes = 1;  // row 1's result reads its page back
        auto s = report::summarize(log.write(mixed_log()), options);
        REQUIRE_FALSE(s.ok());
        check_names_log(s.error().message, log, "cannot read back a temporary file");
    }

    TEST_CASE("fails when a row cannot be read back while counting") {
        LogFile log;
        auto options = tiny_pages();
        options.fail_reads_after_bytes = 1;
        // Each row is touched once while folding, in order: the first read back is the count's.
        auto s = report::summarize(
            log.write(header() + attempt(1, 1, 1s) + sent(1, 10, 1010ms) + attempt(2, 1, 2s) + sent(2, 10, 2010ms)),
            options);
        REQUIRE_FALSE(s.ok());
        CHECK(s.error().message.find("cannot read back a temporary file") != std::string::npos);
        options.fail_reads_after_bytes = 0;
        auto whole = report::summarize(log.path, options);
        REQUIRE(whole.ok());
        CHECK(whole->counts[Status::sent] == 2);
    }
}

TEST_SUITE("report::summarize: error groups") {
    TEST_CASE("countless distinct codes: the first groups are kept, the rest counted as others, none lost") {
        // More than a 16-bit group number can tell apart: each row fails with a code of its own.
        constexpr std::int64_t k_rows = 70'000;
        std::string text = header();
        for (std::int64_t row = 1; row <= k_rows; ++row) {
            results::ResultRecord r;
            r.row = row;
            r.wa_id = wa_id(row);
            r.status = row % 2 == 0 ? Status::failed : Status::unknown;
            r.attempts = 1;
            r.http_status = 400;
            r.error_code = 200'000 + row;
            r.error = "HTTP 400: (#" + std::to_string(200'000 + row) + ")";
            r.cause = Cause::rejected;
            r.at = at(1s);
            text += results::to_line(r);
        }
        LogFile log;
        auto s = report::summarize(log.write(text));
        REQUIRE(s.ok());
        CHECK(s->errors.size() == report::Summary::k_max_error_groups + 2);
        std::int64_t counted = 0;
        std::int64_t others = 0;
        for (const auto& g : s->errors) {
            counted += g.count;
            if (g.others) {
                ++others;
                CHECK_FALSE(g.http_status.has_value());
                CHECK_FALSE(g.error_code.has_value());
                CHECK(g.count == (k_rows - static_cast<std::int64_t>(report::Summary::k_max_error_groups)) / 2);
                CHECK(g.cause == Cause::rejected);
                CHECK(g.sample.find("(#2010") != std::string::npos);  // the first row past the limit
            } else {
                CHECK(g.count == 1);
                CHECK(g.error_code.has_value());
            }
        }
        CHECK(others == 2);  // one for failed, one for unknown
        CHECK(counted == k_rows);
        CHECK(s->counts[Status::failed] + s->counts[Status::unknown] == k_rows);
    }
}

namespace {

// Row `row`'s result under template `name`.
std::string template_result(std::int64_t row, Status status, const std::string& name,
                            std::chrono::milliseconds offset) {
    auto r = record(row, status, status == Status::sent ? Cause::none : Cause::template_params, offset);
    r.attempts = 1;
    r.http_status = status == Status::sent ? 200 : 400;
    r.error = status == Status::sent ? "" : "HTTP 400: (#132018) parameter problem";
    r.template_name = name;
    r.category = "UTILITY";
    return results::to_line(r);
}

}  // namespace

TEST_SUITE("report::summarize templates") {
    TEST_CASE("a log of several templates counts each row's final state under its latest template") {
        LogFile log;
        const auto s = report::summarize(log.write(
            header() + template_result(1, Status::sent, "offer_a", 100ms) +
            template_result(2, Status::failed, "offer_a", 200ms) + template_result(3, Status::sent, "offer_b", 300ms) +
            // Row 2 again, after the campaign moved to offer_b: it counts there, once.
            template_result(2, Status::sent, "offer_b", 400ms)));
        REQUIRE(s.ok());
        REQUIRE(s->templates.size() == 2);
        CHECK(s->templates[0].name == "offer_a");
        CHECK(s->templates[0].sent == 1);
        CHECK(s->templates[0].failed == 0);
        CHECK(s->templates[1].name == "offer_b");
        CHECK(s->templates[1].sent == 2);
    }
    TEST_CASE("a log of one template, or of none, has no per-template counts") {
        LogFile log;
        const auto s = report::summarize(log.write(header() + template_result(1, Status::sent, "offer_a", 100ms) +
                                                   template_result(2, Status::failed, "offer_a", 200ms)));
        REQUIRE(s.ok());
        CHECK(s->templates.empty());
    }
}

TEST_SUITE("report::summarize: requests tried again") {
    TEST_CASE("counts each answer a later request of its row superseded, by kind; a row's final result is not one") {
        LogFile log;
        auto s = report::summarize(log.write(
            header() + attempt(1, 1, 1s) + result(1, Status::failed, Cause::transient, 503, "HTTP 503", 20, 1020ms) +
            attempt(1, 2, 2s) + result(1, Status::failed, Cause::transient, 0, "timed out", -1, 7s, 2) +
            attempt(1, 3, 8s) + sent(1, 10, 8010ms, 3) + attempt(2, 1, 9s) +
            result(2, Status::failed, Cause::transient, 500, "HTTP 500", 20, 9020ms) + attempt(2, 2, 10s) +
            result(2, Status::failed, Cause::rate_limited, 429, "HTTP 429", 20, 10020ms, 2) + attempt(2, 3, 11s) +
            result(2, Status::failed, Cause::transient, 502, "HTTP 502", 20, 11020ms, 3) + attempt(3, 1, 12s) +
            result(3, Status::failed, Cause::transient, 503, "HTTP 503", 20, 12020ms) + attempt(3, 2, 13s)));
        REQUIRE(s.ok());
        // Row 1: a 5xx and a timeout, then sent; row 2: a 5xx and a 429, its final 502 stays; row 3:
        // a 503, its second request in flight.
        CHECK(s->retried == 5);
        REQUIRE(s->retried_by_kind.size() == 3);
        CHECK(s->retried_by_kind[0].kind == "5xx");
        CHECK(s->retried_by_kind[0].count == 3);
        CHECK(s->retried_by_kind[1].kind == "no answer");
        CHECK(s->retried_by_kind[1].count == 1);
        CHECK(s->retried_by_kind[2].kind == "rate_limited");
        CHECK(s->retried_by_kind[2].count == 1);
    }

    TEST_CASE("none when every request was the row's last") {
        LogFile log;
        auto s = report::summarize(log.write(header() + attempt(1, 1, 1s) + sent(1, 10, 1010ms) + attempt(2, 1, 2s) +
                                             result(2, Status::failed, Cause::transient, 503, "HTTP 503", 20, 2020ms)));
        REQUIRE(s.ok());
        CHECK(s->retried == 0);
        CHECK(s->retried_by_kind.empty());
    }
}

TEST_SUITE("report::summarize: rows the deletion step cannot name") {
    // A campaign beside `log` whose deletion step deletes `only` rows, and its list: rows 2, 3 and
    // 5 have no user_id.
    campaign::Campaign campaign_with_cleanup(const LogFile& log, const std::string& only) {
        std::ofstream(log.dir / "r.csv") << "phone,name,user_id\n+919812345611,A,u1\n+919812345612,B,\n"
                                            "+919812345613,C,\n+919812345614,D,u4\n+919812345615,E,\n";
        std::ofstream(log.dir / "c.yaml") << "name: spring\nservice:\n  base_url: https://api.example.com\n"
                                             "  api_key: key-0123456789\n  access_token: token-0123456789\n"
                                             "recipients:\n  file: r.csv\n"
                                             "  columns: {wa_id: phone, user_name: name, user_id: user_id}\n"
                                             "message:\n  type: text\n  text: \"Hi {{name}}\"\n"
                                             "account: {ledger: off}\n"
                                             "cleanup: {delete_contacts: true, only: "
                                          << only << "}\n";
        const util::MapEnvironment env({});
        auto c = campaign::load_campaign((log.dir / "c.yaml").string(), env);
        REQUIRE_MESSAGE(c.ok(), (c.ok() ? "" : c.error().message));
        return std::move(*c);
    }

    std::string sent_rows_1_2_and_failed_3() {
        return header() + sent(1, 10, 1s) + sent(2, 10, 2s) +
               result(3, Status::failed, Cause::rejected, 400, "HTTP 400", 20, 3s);
    }

    TEST_CASE("only: sent counts the sent rows without a user_id") {
        LogFile log;
        const auto c = campaign_with_cleanup(log, "sent");
        auto s = report::summarize(log.write(sent_rows_1_2_and_failed_3()), {}, &c);
        REQUIRE(s.ok());
        CHECK(s->user_ids_counted);
        CHECK(s->without_user_id == 1);
        CHECK(s->without_user_id_rows == std::vector<std::int64_t>{2});
    }

    TEST_CASE("only: all counts every row of the list without a user_id") {
        LogFile log;
        const auto c = campaign_with_cleanup(log, "all");
        auto s = report::summarize(log.write(sent_rows_1_2_and_failed_3()), {}, &c);
        REQUIRE(s.ok());
        CHECK(s->without_user_id == 3);
        CHECK(s->without_user_id_rows == std::vector<std::int64_t>{2, 3, 5});
    }

    TEST_CASE("not counted without the campaign") {
        LogFile log;
        auto s = report::summarize(log.write(sent_rows_1_2_and_failed_3()));
        REQUIRE(s.ok());
        CHECK_FALSE(s->user_ids_counted);
        CHECK(s->without_user_id == 0);
    }
}
