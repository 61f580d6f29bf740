#include <doctest/doctest.h>

#include <nlohmann/json.hpp>

#include "results/records.hpp"

using namespace std::chrono_literals;

namespace {

// 2026-11-21T09:30:00.123Z
const util::TimePoint k_t0 = util::TimePoint(1'795'253'400'123ms);

results::Record round_trip(const results::Record& record) {
    const std::string line = results::to_line(record);
    REQUIRE(line.back() == '\n');
    REQUIRE(line.find('\n') == line.size() - 1);
    auto parsed = results::parse_record(line);
    REQUIRE_MESSAGE(parsed.ok(), (parsed.ok() ? "" : parsed.error().message));
    return *parsed;
}

nlohmann::json as_json(const std::string& line) {
    return nlohmann::json::parse(line);  // throws on invalid JSON (or UTF-8): fails the test
}

results::ResultRecord failed_result() {
    results::ResultRecord r;
    r.row = 7;
    r.wa_id = "919812345678";
    r.user_name = "Priya";
    r.status = results::Status::failed;
    r.attempts = 3;
    r.http_status = 400;
    r.error = "(#131026) Message undeliverable";
    r.cause = results::Cause::rejected;
    r.latency_ms = 245;
    r.at = k_t0;
    return r;
}

}  // namespace

TEST_SUITE("results::Status") {
    TEST_CASE("statuses, causes and modes round-trip through their names") {
        for (const auto s : results::k_all_statuses) {
            CHECK(results::parse_status(results::to_string(s)) == s);
        }
        for (std::size_t i = 0; i < results::k_cause_count; ++i) {
            const auto c = static_cast<results::Cause>(i);
            CHECK(results::parse_cause(results::to_string(c)) == c);
        }
        CHECK(results::to_string(results::Status::dry_run) == "dry_run");
        CHECK(results::to_string(results::Cause::rate_limited) == "rate_limited");
        CHECK(results::to_string(results::Cause::pair_rate) == "pair_rate");
        CHECK(results::to_string(results::Cause::marketing_limit) == "marketing_limit");
        CHECK(results::to_string(results::Cause::opted_out) == "opted_out");
        CHECK(results::to_string(results::Cause::undeliverable) == "undeliverable");
        CHECK(results::to_string(results::Cause::outside_window) == "outside_window");
        CHECK(results::to_string(results::Cause::account) == "account");
        CHECK(results::to_string(results::Cause::suppressed) == "suppressed");
        CHECK(results::to_string(results::Cause::frequency_cap) == "frequency_cap");
        CHECK(results::to_string(results::Cause::template_refused) == "template");
        CHECK(results::to_string(results::Cause::template_params) == "template_params");
        CHECK(results::to_string(results::Cause::template_paused) == "template_paused");
        CHECK(results::to_string(results::Cause::template_disabled) == "template_disabled");
        CHECK(results::to_string(results::Cause::experiment) == "experiment");
        CHECK(results::to_string(results::Cause::policy_block) == "policy_block");
        CHECK(results::parse_mode("dry_run") == results::Mode::dry_run);
    }
    TEST_CASE("unknown names parse to nothing") {
        CHECK_FALSE(results::parse_status("Sent").has_value());
        CHECK_FALSE(results::parse_cause("").has_value());
        CHECK_FALSE(results::parse_mode("live").has_value());
    }
}

TEST_SUITE("results::records") {
    TEST_CASE("a campaign header names its rate card and the card's SHA-256; a sent row its price") {
        results::CampaignHeader h{"spring", "c.yaml", "ab12", "r.csv", "cd34", k_t0, "0.1.0", results::Mode::send, {}};
        h.rate_card = results::RateCardRef{"/usr/share/wacamp/rate-card.csv", "ee99", "USD", "2026-10-01"};
        const auto j = as_json(results::to_line(h));
        CHECK(j["rate_card"] == nlohmann::json::parse(R"({"path": "/usr/share/wacamp/rate-card.csv", "sha256": "ee99",
            "currency": "USD", "effective": "2026-10-01"})"));
        CHECK(std::get<results::CampaignHeader>(round_trip(h)) == h);

        results::ResultRecord r;
        r.row = 3;
        r.wa_id = "919812345678";
        r.status = results::Status::sent;
        r.attempts = 1;
        r.price = 0.0118;
        r.at = k_t0;
        CHECK(as_json(results::to_line(r))["price"] == 0.0118);
        CHECK(std::get<results::ResultRecord>(round_trip(r)).price == 0.0118);
        r.status = results::Status::failed;  // only a sent row carries what it cost
        CHECK_FALSE(as_json(results::to_line(r)).contains("price"));
    }
    TEST_CASE("a negative price is read as none") {
        auto parse = [](const std::string& price) {
            return results::parse_record(R"({"event":"result","row":1,"wa_id":"91","status":"sent","attempts":1,)"
                                         R"("price":)" +
                                         price + R"(,"at":"2026-11-21T09:30:00.000Z"})");
        };
        auto negative = parse("-1");
        REQUIRE(negative);
        CHECK_FALSE(std::get<results::ResultRecord>(*negative).price);
        auto fine = parse("1e-2");
        REQUIRE(fine);
        CHECK(std::get<results::ResultRecord>(*fine).price == 0.01);
    }
    TEST_CASE("a campaign header round-trips") {
        const results::CampaignHeader h{"spring-offer", "campaigns/spring.yaml", "ab12", "samples/r.csv", "cd34", k_t0,
                                        "0.1.0",        results::Mode::dry_run,  {}};
        CHECK(std::get<results::CampaignHeader>(round_trip(h)) == h);
        const auto j = as_json(results::to_line(h));
        CHECK(j["event"] == "campaign");
        CHECK(j["started_at"] == "2026-11-21T09:30:00.123Z");
        CHECK(j["mode"] == "dry_run");
    }
    TEST_CASE("an attempt round-trips with exactly its fields") {
        const results::AttemptRecord a{12, "14155550123", 2, k_t0};
        CHECK(results::to_line(a) ==
              "{\"event\":\"attempt\",\"row\":12,\"wa_id\":\"14155550123\","
              "\"attempt\":2,\"at\":\"2026-11-21T09:30:00.123Z\"}\n");
        CHECK(std::get<results::AttemptRecord>(round_trip(a)) == a);
    }
    TEST_CASE("an unsent request round-trips with exactly its fields") {
        const results::UnsentRecord u{12, "14155550123", 2, 404, "HTTP 404: Cannot POST /x", k_t0};
        CHECK(results::to_line(u) ==
              "{\"event\":\"unsent\",\"row\":12,\"wa_id\":\"14155550123\",\"attempt\":2,\"http_status\":404,"
              "\"error\":\"HTTP 404: Cannot POST /x\",\"at\":\"2026-11-21T09:30:00.123Z\"}\n");
        CHECK(std::get<results::UnsentRecord>(round_trip(u)) == u);
    }
    TEST_CASE("a failed result round-trips with error and cause") {
        const auto r = failed_result();
        CHECK(std::get<results::ResultRecord>(round_trip(r)) == r);
        const auto j = as_json(results::to_line(r));
        CHECK(j["cause"] == "rejected");
        CHECK(j["http_status"] == 400);
        CHECK(j["latency_ms"] == 245);
        CHECK_FALSE(j.contains("message_id"));
    }
    TEST_CASE("Meta's error code round-trips as a JSON number, and is left out when there is none") {
        auto r = failed_result();
        r.cause = results::Cause::opted_out;
        r.error_code = 131050;
        CHECK(std::get<results::ResultRecord>(round_trip(r)) == r);
        const auto j = as_json(results::to_line(r));
        CHECK(j["error_code"] == 131050);
        CHECK(j["error_code"].is_number_integer());
        CHECK(j["cause"] == "opted_out");
        CHECK_FALSE(as_json(results::to_line(failed_result())).contains("error_code"));
        // A retried row's interim result keeps it too.
        r.cause = results::Cause::pair_rate;
        r.error_code = 131056;
        CHECK(as_json(results::to_line(r))["error_code"] == 131056);
    }
    TEST_CASE("a template campaign's result round-trips with its template and category") {
        auto r = failed_result();
        r.cause = results::Cause::template_params;
        r.error_code = 132018;
        r.template_name = "appointment_update";
        r.category = "UTILITY";
        CHECK(std::get<results::ResultRecord>(round_trip(r)) == r);
        const auto j = as_json(results::to_line(r));
        CHECK(j["template"] == "appointment_update");
        CHECK(j["category"] == "UTILITY");
        CHECK(j["cause"] == "template_params");
        r.status = results::Status::sent;
        r.cause = results::Cause::none;
        CHECK(as_json(results::to_line(r))["category"] == "UTILITY");  // kept on success too
    }
    TEST_CASE("a text or image campaign's result has neither template nor category") {
        const auto j = as_json(results::to_line(failed_result()));
        CHECK_FALSE(j.contains("template"));
        CHECK_FALSE(j.contains("category"));
        const auto record = round_trip(failed_result());
        const auto& r = std::get<results::ResultRecord>(record);
        CHECK_FALSE(r.template_name.has_value());
        CHECK_FALSE(r.category.has_value());
    }
    TEST_CASE("a result with error_code but an unknown cause (a later version's) keeps the code") {
        auto parsed = results::parse_record(
            R"({"event":"result","row":2,"wa_id":"1","status":"failed","attempts":1,"error_code":131099,)"
            R"("cause":"new_cause","at":"2026-11-21T09:30:00.123Z"})");
        REQUIRE(parsed.ok());
        const auto& r = std::get<results::ResultRecord>(*parsed);
        CHECK(r.error_code == 131099);
        CHECK(r.cause == results::Cause::none);
    }
    TEST_CASE("a sent result carries no error or cause, and optional fields only when set") {
        auto r = failed_result();
        r.status = results::Status::sent;
        r.http_status = 200;
        r.message_id = "wamid.HBgM";
        const auto j = as_json(results::to_line(r));
        CHECK_FALSE(j.contains("error"));
        CHECK_FALSE(j.contains("cause"));
        CHECK(j["message_id"] == "wamid.HBgM");

        results::ResultRecord invalid{};
        invalid.row = 3;
        invalid.status = results::Status::invalid;
        invalid.error = "bad number";
        invalid.cause = results::Cause::invalid;
        invalid.at = k_t0;
        const auto k = as_json(results::to_line(invalid));
        CHECK_FALSE(k.contains("http_status"));
        CHECK_FALSE(k.contains("latency_ms"));
        CHECK(k["wa_id"] == "");
        CHECK(std::get<results::ResultRecord>(round_trip(invalid)) == invalid);
    }
    TEST_CASE("a dry run's result keeps the message object as it would be sent, and its defaults") {
        results::ResultRecord r{};
        r.row = 4;
        r.wa_id = "919812345678";
        r.user_name = "Asha";
        r.status = results::Status::dry_run;
        r.message.emplace().text = "Hi \"Asha\"\n\xf0\x9f\x98\x80";
        r.defaults = {"date"};
        r.at = k_t0;
        const std::string line = results::to_line(r);
        CHECK(line.find("\"message\":{\"text\":\"Hi \\\"Asha\\\"\\n\xf0\x9f\x98\x80\"},\"defaults\":[\"date\"],") !=
              std::string::npos);
        CHECK(std::get<results::ResultRecord>(round_trip(r)) == r);

        r.message = results::MessageContent{true, "", "https://x.example/a.png", "For Asha", "", {}};
        r.defaults.clear();
        const auto j = as_json(results::to_line(r));
        CHECK(j["message"] == nlohmann::json{{"label", "For Asha"}, {"source", "https://x.example/a.png"}});
        CHECK_FALSE(j.contains("defaults"));
        CHECK(std::get<results::ResultRecord>(round_trip(r)) == r);

        r.message->label.reset();  // a campaign without a caption
        CHECK(as_json(results::to_line(r))["message"] == nlohmann::json{{"source", "https://x.example/a.png"}});
        CHECK(std::get<results::ResultRecord>(round_trip(r)) == r);
    }
    TEST_CASE("a template dry run keeps the params array as sent and the preview apart, in either order") {
        results::ResultRecord r{};
        r.row = 2;
        r.wa_id = "919812345678";
        r.user_name = "Asha";
        r.status = results::Status::dry_run;
        r.template_name = "spring_sale";
        r.category = "MARKETING";
        auto& m = r.message.emplace();
        m.params = R"([{"parameters":[{"text":"Asha \"A\"","type":"text"}],"type":"body"}])";
        m.preview = {"[image] https://cdn.example/a.jpg",
                     "Hi Asha \"A\",\n20% off",
                     "Reply STOP to opt out",
                     {"Shop now", "Not now"}};
        r.at = k_t0;
        const std::string line = results::to_line(r);
        CHECK(line.find(R"("message":[{"parameters":[{"text":"Asha \"A\"","type":"text"}],"type":"body"}],)") !=
              std::string::npos);
        const auto j = as_json(line);
        CHECK(j["message"].is_array());
        CHECK(j["preview"] == nlohmann::json{{"header", "[image] https://cdn.example/a.jpg"},
                                             {"body", "Hi Asha \"A\",\n20% off"},
                                             {"footer", "Reply STOP to opt out"},
                                             {"buttons", {"Shop now", "Not now"}}});
        CHECK(std::get<results::ResultRecord>(round_trip(r)) == r);
        CHECK(
            results::readable_text(*r.message) ==
            "[image] https://cdn.example/a.jpg\nHi Asha \"A\",\n20% off\nReply STOP to opt out\n[Shop now]\n[Not now]");

        // preview before message, as another tool may write it; no header, footer or buttons
        auto parsed = results::parse_record(
            R"({"event":"result","row":1,"wa_id":"1","status":"dry_run","attempts":0,"preview":{"body":"Thanks"},)"
            R"("message":[],"at":"2026-11-21T09:30:00.123Z"})");
        REQUIRE(parsed.ok());
        const auto& read = std::get<results::ResultRecord>(*parsed);
        REQUIRE(read.message);
        CHECK(read.message->is_template());
        CHECK(read.message->params == "[]");
        CHECK(read.message->preview.body == "Thanks");
        CHECK(results::readable_text(*read.message) == "Thanks");
        const auto written = as_json(results::to_line(read));
        CHECK(written["preview"] == nlohmann::json{{"body", "Thanks"}});
        CHECK(written["message"] == nlohmann::json::array());
        CHECK_FALSE(results::parse_record(R"({"event":"result","row":1,"wa_id":"1","status":"dry_run","attempts":0,)"
                                          R"("message":[],"preview":{"body":5},"at":"2026-11-21T09:30:00.123Z"})")
                        .ok());
    }
    TEST_CASE("a result without a message has none after parsing; a mistyped message is refused") {
        auto r = failed_result();
        CHECK_FALSE(as_json(results::to_line(r)).contains("message"));
        CHECK_FALSE(std::get<results::ResultRecord>(round_trip(r)).message);
        CHECK_FALSE(results::parse_record(R"({"event":"result","row":1,"wa_id":"1","status":"dry_run","attempts":0,)"
                                          R"("message":"hi","at":"2026-11-21T09:30:00.123Z"})")
                        .ok());
        CHECK_FALSE(results::parse_record(R"({"event":"result","row":1,"wa_id":"1","status":"dry_run","attempts":0,)"
                                          R"("message":{"text":5},"at":"2026-11-21T09:30:00.123Z"})")
                        .ok());
    }
    TEST_CASE("a delete batch round-trips") {
        results::DeleteRecord d{2, {"u1", "u2"}, {"s1"}, results::DeleteStatus::failed, 500, "HTTP 500", k_t0};
        CHECK(std::get<results::DeleteRecord>(round_trip(d)) == d);
        d.subscriber_ids.clear();
        d.error.clear();
        d.status = results::DeleteStatus::deleted;
        const auto j = as_json(results::to_line(d));
        CHECK_FALSE(j.contains("subscriber_ids"));
        CHECK(j["status"] == "deleted");
        CHECK(j["ids"] == nlohmann::json::array({"u1", "u2"}));
    }
    TEST_CASE("an end record round-trips with counts as an object") {
        results::EndRecord e{"interrupted", {}, k_t0};
        e.counts[results::Status::sent] = 40;
        e.counts[results::Status::unknown] = 2;
        CHECK(std::get<results::EndRecord>(round_trip(e)) == e);
        const auto j = as_json(results::to_line(e));
        CHECK(j["counts"]["sent"] == 40);
        CHECK(j["counts"]["dry_run"] == 0);
    }
    TEST_CASE("a dry run's end record round-trips with its plan; an end without one has no plan") {
        results::EndRecord e{"completed", {}, k_t0};
        CHECK_FALSE(as_json(results::to_line(e)).contains("plan"));
        e.plan = results::PlanSummary{.kind = "timed",
                                      .messages = 2500,
                                      .first = k_t0,
                                      .last = k_t0 + std::chrono::hours(48),
                                      .days = 3,
                                      .per_hour = {1000, 0, 1000}};
        CHECK(std::get<results::EndRecord>(round_trip(e)) == e);
        const auto j = as_json(results::to_line(e));
        CHECK(j["plan"]["per_hour"] == nlohmann::json::array({1000, 0, 1000}));
        e.plan = results::PlanSummary{.kind = "unbounded", .messages = 3};
        CHECK(std::get<results::EndRecord>(round_trip(e)) == e);
        CHECK(as_json(results::to_line(e))["plan"]["first"].is_null());
    }
}

TEST_SUITE("results::escaping") {
    TEST_CASE("quotes, backslashes and control characters are escaped") {
        auto r = failed_result();
        r.user_name = "a \"quoted\" \\name\\\n\t\r\b\f\x01\x1f end";
        const std::string line = results::to_line(r);
        CHECK(line.find('\n') == line.size() - 1);  // still one line
        CHECK(line.find("\\u0001") != std::string::npos);
        CHECK(as_json(line)["user_name"] == r.user_name);
        CHECK(std::get<results::ResultRecord>(round_trip(r)).user_name == r.user_name);
    }
    TEST_CASE("non-ASCII UTF-8 passes through unchanged") {
        auto r = failed_result();
        r.user_name = "Zoë Ünal — प्रिया 😀";
        CHECK(results::to_line(r).find(r.user_name) != std::string::npos);
        CHECK(as_json(results::to_line(r))["user_name"] == r.user_name);
        CHECK(std::get<results::ResultRecord>(round_trip(r)).user_name == r.user_name);
    }
    TEST_CASE("invalid UTF-8 becomes U+FFFD, so the line stays valid JSON") {
        auto r = failed_result();
        const std::string cases[] = {
            "Jos\xE9",           // Latin-1
            "\xC3",              // truncated sequence at the end
            "\xC0\xAF",          // overlong '/'
            "\xED\xA0\x80",      // UTF-16 surrogate
            "\xF4\x90\x80\x80",  // above U+10FFFF
            "\xFF ok",
        };
        for (const auto& bad : cases) {
            r.user_name = bad;
            const std::string line = results::to_line(r);
            const std::string name = as_json(line)["user_name"];
            CHECK(name.find("\xEF\xBF\xBD") != std::string::npos);
        }
        r.user_name = "Jos\xE9 A";
        CHECK(as_json(results::to_line(r))["user_name"] == "Jos\xEF\xBF\xBD A");
    }
    TEST_CASE("escapes written by other tools are decoded") {
        auto parsed = results::parse_record(R"({"event":"attempt","row":1,"wa_id":"1\u0032\/3","attempt":1,)"
                                            R"("at":"2026-11-21T09:30:00.123Z","note":"\ud83d\ude00"})");
        REQUIRE(parsed.ok());
        CHECK(std::get<results::AttemptRecord>(*parsed).wa_id == "12/3");
    }
}

TEST_SUITE("results::parse_record") {
    TEST_CASE("unknown fields, other key orders and null optionals are accepted") {
        auto parsed =
            results::parse_record(R"({"at":"2026-11-21T09:30:00.123Z","row":4,"status":"sent","event":"result",)"
                                  R"("wa_id":"1","attempts":1,"http_status":null,"extra":{"a":[1,2.5e3,true,null]}})");
        REQUIRE(parsed.ok());
        const auto& r = std::get<results::ResultRecord>(*parsed);
        CHECK(r.row == 4);
        CHECK(r.status == results::Status::sent);
        CHECK_FALSE(r.http_status.has_value());
    }
    TEST_CASE("says why a line is unusable") {
        const auto why = [](std::string_view line) {
            auto parsed = results::parse_record(line);
            return parsed.ok() ? std::string("ok") : parsed.error().message;
        };
        CHECK(why(R"({"event":"nope","at":"x"})").find("unknown event \"nope\"") != std::string::npos);
        CHECK(why(R"({"event":"attempt","row":1,"attempt":1,"at":"2026-11-21T09:30:00Z"})").find("missing \"wa_id\"") !=
              std::string::npos);
        CHECK(why(R"({"event":"attempt","row":"1","wa_id":"1","attempt":1})").find("integer") != std::string::npos);
        CHECK(why(R"({"event":"result","row":1,"wa_id":"1","status":"maybe","attempts":1,)"
                  R"("at":"2026-11-21T09:30:00Z"})")
                  .find("unknown status") != std::string::npos);
        CHECK(why(R"({"event":"attempt","row":1,"wa_id":"1","attempt":1,"at":"yesterday"})").find("ISO 8601") !=
              std::string::npos);
        CHECK(why(R"({"event":"attempt","row":1,"wa_id":"91)").find("not valid JSON") != std::string::npos);
        CHECK(why(R"({"event":"end"} trailing)").find("not valid JSON") != std::string::npos);
        CHECK(why("[1,2]").find("not valid JSON") != std::string::npos);
        CHECK(why("").find("not valid JSON") != std::string::npos);
    }
    TEST_CASE("every truncation of a record is rejected, never misread") {
        const std::string line = results::to_line(failed_result());
        for (std::size_t n = 0; n + 1 < line.size(); ++n) {
            CHECK_FALSE(results::parse_record(std::string_view(line).substr(0, n)).ok());
        }
    }
}

TEST_SUITE("results::parse_record: a sent row's price and the run's rate card") {
    constexpr std::string_view k_sent = R"({"event":"result","row":1,"wa_id":"919812345678","status":"sent",)"
                                        R"("attempts":1,"at":"2026-11-21T09:30:00Z")";
    std::optional<double> price_in(const std::string& tail) {
        auto parsed = results::parse_record(std::string(k_sent) + tail + "}");
        REQUIRE(parsed.ok());
        return std::get<results::ResultRecord>(*parsed).price;
    }
    TEST_CASE("a number is the price; null, a string, an object or nothing is none, and the record still reads") {
        CHECK(price_in(R"(,"price":0.0107)") == 0.0107);
        CHECK(price_in(R"(,"price":0)") == 0.0);
        CHECK_FALSE(price_in("").has_value());
        CHECK_FALSE(price_in(R"(,"price":null)").has_value());
        CHECK_FALSE(price_in(R"(,"price":"0.0107")").has_value());
        CHECK_FALSE(price_in(R"(,"price":{"amount":1})").has_value());
        CHECK_FALSE(price_in(R"(,"price":1e999)").has_value());
    }
    TEST_CASE("the campaign record's rate_card, when it is an object; members of another type are left out") {
        const std::string head = R"({"event":"campaign","name":"s","campaign_file":"c","campaign_sha256":"a",)"
                                 R"("recipients_file":"r","recipients_sha256":"b","started_at":"2026-11-21T09:00:00Z",)"
                                 R"("version":"1")";
        const auto card_of = [&](const std::string& tail) {
            auto parsed = results::parse_record(head + tail + "}");
            REQUIRE(parsed.ok());
            return std::get<results::CampaignHeader>(*parsed).rate_card;
        };
        const auto card = card_of(R"(,"rate_card":{"path":"/r.csv","sha256":"ff","currency":"EUR",)"
                                  R"("effective":"2025-07-01","later":[1]})");
        REQUIRE(card.has_value());
        CHECK(*card == results::RateCardRef{"/r.csv", "ff", "EUR", "2025-07-01"});
        CHECK_FALSE(card_of("").has_value());
        CHECK_FALSE(card_of(R"(,"rate_card":"/r.csv")").has_value());
        CHECK(card_of(R"(,"rate_card":{"currency":7})")->currency.empty());
    }
}
