#include <doctest/doctest.h>

#include "campaign_file_fixture.hpp"

using namespace campaign_file_test;
using namespace std::chrono_literals;
using campaign::SecretsPolicy;

TEST_SUITE("campaign::load_campaign") {
    TEST_CASE("reads a campaign that sets every key") {
        Folder folder;
        folder.put("certs/ca.pem", "pem");
        auto c = folder.load(R"(name: spring-offer
service:
  base_url: https://${HOST}/
  api_key: ${WACAMP_API_KEY}
  access_token: ${WACAMP_ACCESS_TOKEN}
  api_key_in: [header]
  headers: {authtype: Key, X-Trace: "on"}
  timeout: 20s
  ca_file: certs/ca.pem
recipients:
  file: samples/r.csv
  delimiter: ";"
  columns: {wa_id: phone, user_name: name, user_id: uid, subscriber_id: sid}
  default_country: in
  dedupe: false
message:
  type: image
  source: "https://cdn.example.com/{{image}}"
  label: "For {{name}}"
template:
  name: appointment_update
rate: {per_second: 2.5, burst: 3, concurrency: 8, per_day: 1000}
retry: {max_attempts: 7, initial_backoff: 500ms, max_backoff: 2m, ambiguous: hold}
abort:
  max_consecutive_failures: 9
  max_throttled: 45m
  max_invalid_share: 0.2
schedule:
  start_at: 2026-12-01T09:00:00+05:30
  window: {timezone: Asia/Kolkata, days: [mon, fri], from: "09:30", to: "18:00"}
cleanup: {delete_contacts: true, only: all, batch_size: 50}
results: out/spring.jsonl
)");
        REQUIRE_MESSAGE(c.ok(), (c.ok() ? "" : c.error().message));
        CHECK(c->name == "spring-offer");
        CHECK(c->file == folder.campaign_path());
        CHECK(c->service.base_url == "https://api.example.com");
        CHECK(c->service.api_key == "key-0123456789");
        CHECK(c->service.access_token == "token-0123456789");
        CHECK(c->service.api_key_in.header);
        CHECK_FALSE(c->service.api_key_in.query);
        using Header = std::pair<std::string, std::string>;
        CHECK(c->service.headers == std::vector<Header>{{"authtype", "Key"}, {"X-Trace", "on"}});
        CHECK(c->service.timeout == 20s);
        CHECK(c->service.ca_file == folder.str("certs/ca.pem"));
        CHECK(c->recipients.file == folder.str("samples/r.csv"));
        CHECK(c->recipients.delimiter == ';');
        CHECK(c->recipients.columns.wa_id == "phone");
        CHECK(c->recipients.columns.user_name == "name");
        CHECK(c->recipients.columns.user_id == "uid");
        CHECK(c->recipients.columns.subscriber_id == "sid");
        CHECK(c->recipients.default_country == "IN");
        CHECK_FALSE(c->recipients.dedupe);
        CHECK(c->message.type == campaign::MessageType::image);
        CHECK(c->message.source == "https://cdn.example.com/{{image}}");
        CHECK(c->message.label == "For {{name}}");
        REQUIRE(c->template_check.has_value());
        CHECK(c->template_check->name == "appointment_update");
        CHECK(c->rate.per_second == 2.5);
        CHECK(c->rate.burst == 3);
        CHECK(c->rate.concurrency == 8);
        CHECK(c->rate.per_day == 1000);
        CHECK(c->retry.max_attempts == 7);
        CHECK(c->retry.initial_backoff == 500ms);
        CHECK(c->retry.max_backoff == 2min);
        CHECK(c->retry.ambiguous == campaign::Ambiguous::hold);
        CHECK(c->abort.max_consecutive_failures == 9);
        CHECK(c->abort.max_throttled == 45min);
        CHECK(c->abort.max_invalid_share == 0.2);
        using namespace std::chrono;
        CHECK(c->schedule.start_at == sys_days(2026y / December / 1) + 3h + 30min);
        REQUIRE(c->schedule.window.has_value());
        CHECK(c->schedule.window->timezone == "Asia/Kolkata");
        CHECK(c->schedule.window->days == std::vector<int>{1, 5});
        CHECK(c->schedule.window->from_minute == 9 * 60 + 30);
        CHECK(c->schedule.window->to_minute == 18 * 60);
        CHECK(c->cleanup.delete_contacts);
        CHECK(c->cleanup.only == campaign::CleanupScope::all);
        CHECK(c->cleanup.batch_size == 50);
        CHECK(c->results == folder.str("out/spring.jsonl"));
    }

    TEST_CASE("a minimal campaign gets the defaults") {
        Folder folder;
        auto c = folder.load(k_minimal);
        REQUIRE_MESSAGE(c.ok(), (c.ok() ? "" : c.error().message));
        CHECK(c->service.api_key_in.header);
        CHECK(c->service.api_key_in.query);
        CHECK(c->service.headers.empty());
        CHECK(c->service.timeout == 15s);
        CHECK(c->service.ca_file.empty());
        CHECK(c->service.access_token.empty());
        CHECK(c->recipients.delimiter == ',');
        CHECK(c->recipients.default_country.empty());
        CHECK(c->recipients.dedupe);
        CHECK(c->recipients.columns.user_id.empty());
        CHECK(c->message.type == campaign::MessageType::text);
        CHECK(c->message.text == "Hi {{name}}");
        CHECK_FALSE(c->template_check.has_value());
        CHECK(c->rate.per_second == 10);
        CHECK(c->rate.burst == 1);
        CHECK_FALSE(c->rate.concurrency.has_value());  // auto
        CHECK(c->rate.max_concurrency == 256);
        CHECK_FALSE(c->rate.per_day.has_value());
        CHECK(c->retry.max_attempts == 5);
        CHECK(c->retry.initial_backoff == 1s);
        CHECK(c->retry.max_backoff == 60s);
        CHECK(c->retry.ambiguous == campaign::Ambiguous::hold);
        CHECK(c->abort.max_consecutive_failures == 25);
        CHECK(c->abort.max_throttled == 30min);
        CHECK(c->abort.max_invalid_share == 0.05);
        CHECK_FALSE(c->schedule.start_at.has_value());
        CHECK_FALSE(c->schedule.window.has_value());
        CHECK_FALSE(c->cleanup.delete_contacts);
        CHECK(c->cleanup.only == campaign::CleanupScope::sent);
        CHECK(c->cleanup.batch_size == 100);
    }

    TEST_CASE("results defaults to results/NAME.jsonl beside the campaign file") {
        Folder folder;
        auto c = folder.load(k_minimal);
        REQUIRE(c.ok());
        CHECK(c->results == folder.str("results/spring.jsonl"));
    }

    TEST_CASE("paths are relative to the campaign file's folder") {
        Folder folder;
        folder.put("data/list.csv", "phone,name\n");
        const std::string yaml = R"(name: nested
service: {base_url: "http://localhost:8080", api_key: key-0123456789}
recipients: {file: ../data/list.csv, columns: {wa_id: phone, user_name: name}}
message: {type: text, text: hi}
results: ../out/./log.jsonl
)";
        folder.put("campaigns/c.yaml", yaml);
        auto c = campaign::load_campaign(folder.str("campaigns/c.yaml"), k_env);
        REQUIRE_MESSAGE(c.ok(), (c.ok() ? "" : c.error().message));
        CHECK(c->recipients.file == folder.str("data/list.csv"));
        CHECK(c->results == folder.str("out/log.jsonl"));
    }

    TEST_CASE("${NAME} takes the environment in any string") {
        Folder folder;
        auto c = folder.load(k_minimal + "rate: {per_second: \"${RATE}\"}\ntemplate: {name: \"t_${HOST}\"}\n");
        REQUIRE_MESSAGE(c.ok(), (c.ok() ? "" : c.error().message));
        CHECK(c->rate.per_second == 2.5);
        CHECK(c->template_check->name == "t_api.example.com");
    }

    TEST_CASE("records the line of every key") {
        Folder folder;
        auto c = folder.load(k_minimal + "rate:\n  burst: 2\n");
        REQUIRE(c.ok());
        CHECK(c->lines.at("name") == 1);
        CHECK(c->lines.at("service.api_key") == 4);
        CHECK(c->lines.at("recipients.columns") == 7);
        CHECK(c->lines.at("recipients.columns.user_name") == 7);
        CHECK(c->lines.at("message.text") == 10);
        CHECK(c->lines.at("rate") == 11);
        CHECK(c->lines.at("rate.burst") == 12);
    }

    TEST_CASE("anchors, aliases and merge keys work; top-level x- keys hold them") {
        Folder folder;
        auto c = folder.load(R"(x-service: &svc
  base_url: https://api.example.com
  api_key: ${WACAMP_API_KEY}
  timeout: 5s
x-columns: &cols {wa_id: phone, user_name: name}
name: merged
service:
  <<: *svc
  timeout: 9s
recipients:
  file: samples/r.csv
  columns: *cols
message: {type: text, text: hi}
)");
        REQUIRE_MESSAGE(c.ok(), (c.ok() ? "" : c.error().message));
        CHECK(c->service.base_url == "https://api.example.com");
        CHECK(c->service.timeout == 9s);  // an explicit key beats a merged one
        CHECK(c->recipients.columns.user_name == "name");
        CHECK(c->lines.at("service.base_url") == 2);
    }

    TEST_CASE("a tab delimiter may be written \\t, tab or as the character") {
        Folder folder;
        for (const std::string written : {"'\\t'", "tab", "\"\\t\""}) {
            auto c = folder.load(
                "name: t\nservice: {base_url: https://h, api_key: key-0123456789}\nmessage: {type: text, text: hi}\n"
                "recipients: {file: samples/r.csv, delimiter: " +
                written + ", columns: {wa_id: a, user_name: b}}\n");
            REQUIRE_MESSAGE(c.ok(), written);
            CHECK(c->recipients.delimiter == '\t');
        }
    }

    TEST_CASE("with optional secrets an unset api key or token leaves the field empty") {
        Folder folder;
        auto c = folder.load(R"(name: dry
service: {base_url: https://h, api_key: "${NOPE_KEY}", access_token: "${NOPE_TOKEN}"}
recipients: {file: samples/r.csv, columns: {wa_id: a, user_name: b, user_id: c}}
message: {type: text, text: hi}
cleanup: {delete_contacts: yes}
)",
                             LoadOptions{.secrets = SecretsPolicy::optional});
        REQUIRE_MESSAGE(c.ok(), (c.ok() ? "" : c.error().message));
        CHECK(c->service.api_key.empty());
        CHECK(c->service.access_token.empty());
    }

    TEST_CASE("the access token's variable may be unset when there is no cleanup") {
        Folder folder;
        auto c = folder.load(R"(name: a
service: {base_url: https://h, api_key: key-0123456789, access_token: "${NOPE_TOKEN}"}
recipients: {file: samples/r.csv, columns: {wa_id: a, user_name: b}}
message: {type: text, text: hi}
)");
        REQUIRE_MESSAGE(c.ok(), (c.ok() ? "" : c.error().message));
        CHECK(c->service.access_token.empty());
    }

    TEST_CASE("start_at takes Z and offsets in several spellings") {
        Folder folder;
        using namespace std::chrono;
        const auto noon = sys_days(2026y / March / 5) + 12h;
        for (const auto& [written, expected] : std::vector<std::pair<std::string, system_clock::time_point>>{
                 {"2026-03-05T12:00:00Z", noon},
                 {"2026-03-05T04:00:00-0800", noon},
                 {"2026-03-05T17:30+05:30", noon},
                 {"2026-03-05 13:00:00.250+01", noon + 250ms}}) {
            auto c = folder.load(k_minimal + "schedule: {start_at: \"" + written + "\"}\n");
            REQUIRE_MESSAGE(c.ok(), written);
            CHECK(c->schedule.start_at == expected);
        }
    }

    TEST_CASE("window days take short or full names; every day and 00:00-24:00 by default") {
        Folder folder;
        auto c =
            folder.load(k_minimal + "schedule: {window: {timezone: UTC, days: [Sunday, SAT, sat], to: \"24:00\"}}\n");
        REQUIRE_MESSAGE(c.ok(), (c.ok() ? "" : c.error().message));
        CHECK(c->schedule.window->days == std::vector<int>{0, 6});
        CHECK(c->schedule.window->to_minute == 24 * 60);
        auto d = folder.load(k_minimal + "schedule: {window: {timezone: UTC}}\n");
        REQUIRE(d.ok());
        CHECK(d->schedule.window->days == std::vector<int>{0, 1, 2, 3, 4, 5, 6});
        CHECK(d->schedule.window->from_minute == 0);
        CHECK(d->schedule.window->to_minute == 24 * 60);
    }

    TEST_CASE("an empty image label means no label") {
        Folder folder;
        auto c = folder.load(R"(name: img
service: {base_url: https://h, api_key: key-0123456789}
recipients: {file: samples/r.csv, columns: {wa_id: a, user_name: b}}
message: {type: image, source: "https://x/{{img}}", label: ""}
)");
        REQUIRE(c.ok());
        CHECK_FALSE(c->message.label.has_value());
    }

    TEST_CASE("message.check_media is off unless the campaign says true") {
        Folder folder;
        const std::string image = R"(name: img
service: {base_url: https://h, api_key: key-0123456789}
recipients: {file: samples/r.csv, columns: {wa_id: a, user_name: b}}
message: {type: image, source: "https://x/{{img}}")";
        auto off = folder.load(image + "}\n");
        REQUIRE(off.ok());
        CHECK_FALSE(off->message.check_media);
        auto on = folder.load(image + ", check_media: true}\n");
        REQUIRE(on.ok());
        CHECK(on->message.check_media);
    }
}
