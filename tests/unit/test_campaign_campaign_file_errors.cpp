#include <doctest/doctest.h>
#include <sys/stat.h>

#include "campaign_file_fixture.hpp"

using namespace campaign_file_test;
using namespace std::chrono_literals;
using campaign::SecretsPolicy;

TEST_SUITE("campaign::load_campaign errors") {
    TEST_CASE("a missing or unreadable file is named with the reason") {
        Folder folder;
        const std::string missing = folder.str("nope.yaml");
        auto r = campaign::load_campaign(missing, k_env);
        REQUIRE_FALSE(r.ok());
        CHECK(r.error().message == missing + ": cannot read: No such file or directory");
        const std::string dir = folder.str("samples");
        auto d = campaign::load_campaign(dir, k_env);
        REQUIRE_FALSE(d.ok());
        CHECK(d.error().message == dir + ": cannot read: Is a directory");
    }

    TEST_CASE("a message template holding a secret's value is refused: it would go to every recipient") {
        Folder folder;
        const std::string base = k_minimal.substr(0, k_minimal.find("  text:"));
        const std::string text = folder.problems(base + "  text: \"Your key: ${WACAMP_API_KEY}\"\n");
        CHECK(text.find("\n10: message.text: holds the value of a secret") != std::string::npos);
        CHECK(text.find("key-0123456789") == std::string::npos);
        const std::string image =
            folder.problems(base.substr(0, base.find("  type: text")) +
                            "  type: image\n  source: \"https://x.example/a.png?t=${WACAMP_API_KEY}\"\n  label: ok\n");
        CHECK(image.find("message.source: holds the value of a secret") != std::string::npos);
        // An ordinary variable is fine.
        CHECK(folder.problems(base + "  text: \"Hi from ${HOST}\"\n").empty());
    }

    TEST_CASE(
        "a message naming a variable wacamp reads a secret from is refused, whether the campaign uses it or not") {
        Folder folder;
        const std::string base = k_minimal.substr(0, k_minimal.find("  text:"));
        // No cleanup: the campaign never uses the access token, yet it is a secret.
        const std::string token = folder.problems(base + "  text: \"t=${WACAMP_ACCESS_TOKEN}\"\n");
        CHECK(token.find("\n10: message.text: ") != std::string::npos);
        CHECK(token.find("token-0123456789") == std::string::npos);
        // The Pushgateway's URL holds its password: refused by name, and its value never shown.
        std::map<std::string, std::string> vars = k_vars;
        vars["WACAMP_METRICS_PUSH"] = "http://pushuser:push-pw-4321@gw.example:9091";
        vars["REDIS_PW"] = "redis-pw-77";  // refused by its name, as well as by its value
        const std::string rate = "rate: {per_second: 5}\naccount:\n  rate_store: redis://:${REDIS_PW}@10.1.2.3\n";
        for (const std::string text : {"${WACAMP_METRICS_PUSH}", "redis ${REDIS_PW}"}) {
            folder.put("campaign.yaml", base + "  text: \"" + text + "\"\n" + rate);
            auto c = campaign::load_campaign(folder.campaign_path(), util::MapEnvironment(vars));
            REQUIRE_FALSE(c.ok());
            const std::string message = c.error().message;
            CAPTURE(message);
            CHECK(message.find(":10: message.text: ") != std::string::npos);
            CHECK(message.find("secret") != std::string::npos);
            CHECK(message.find("push-pw-4321") == std::string::npos);
        }
        // An ordinary variable beside them is fine.
        folder.put("campaign.yaml", base + "  text: \"Hi from ${HOST}\"\n" + rate);
        CHECK(campaign::load_campaign(folder.campaign_path(), util::MapEnvironment(vars)).ok());
    }

    TEST_CASE("a YAML syntax error gives yaml-cpp's message and the line") {
        Folder folder;
        CHECK_PROBLEM(folder.problems("name: a\nservice: [1\n"), "3: end of sequence flow not found");
    }

    TEST_CASE("the file must hold one mapping") {
        Folder folder;
        CHECK_PROBLEM(folder.problems(""),
                      "1: the file is empty; expected a mapping with name, service, recipients and message");
        CHECK_PROBLEM(folder.problems("- a\n"), "1: expected a mapping at the top level, got a list");
        CHECK_PROBLEM(folder.problems(k_minimal + "---\nname: b\n"),
                      "12: a second YAML document; a campaign file holds one");
    }

    TEST_CASE("deep nesting and huge files are refused, not a crash") {
        Folder folder;
        CHECK(folder.problems("a: " + std::string(100'000, '[')).find("nested too deeply") != std::string::npos);
        CHECK(folder.problems(std::string(2 << 20, '#')).find("cannot read: larger than 1024 KiB") !=
              std::string::npos);
    }

    TEST_CASE("merge keys that multiply are cut short") {
        Folder folder;
        std::string yaml = "x-0: &a0 {name: a}\n";
        for (int i = 1; i <= 12; ++i) {
            const std::string prev = "*a" + std::to_string(i - 1);
            yaml += "x-" + std::to_string(i) + ": &a" + std::to_string(i) + " {<<: [" + prev + ", " + prev + ", " +
                    prev + ", " + prev + "]}\n";
        }
        yaml += "<<: *a12\n";
        CHECK(folder.problems(yaml).find("too many merge keys") != std::string::npos);
    }

    TEST_CASE("every problem is reported, ordered by line") {
        Folder folder;
        CHECK(folder.problems(R"(name: bad name
service:
  base_url: https://h
  api_key: key-0123456789
  timout: 5s
recipients: {file: samples/r.csv, columns: {wa_id: a, user_name: b}}
rate: {per_second: fast}
)") == "\n1: name: must be letters, digits, '-' or '_' (at most 100), got \"bad name\"\n"
       "1: missing required key \"message\"\n"
       "5: unknown key \"service.timout\" (did you mean \"timeout\"?)\n"
       "7: rate.per_second: expected unlimited or a number, got \"fast\"\n");
    }

    TEST_CASE("unknown keys are named with their path and the nearest known key") {
        Folder folder;
        const auto p = folder.problems(k_minimal + "rate:\n  per_sec: 5\nfoo: 1\nretyr: {}\n");
        CHECK_PROBLEM(p, "12: unknown key \"rate.per_sec\" (did you mean \"per_second\"?)");
        CHECK_PROBLEM(p, "13: unknown key \"foo\"");
        CHECK_PROBLEM(p, "14: unknown key \"retyr\" (did you mean \"retry\"?)");
    }

    TEST_CASE("a key given twice in one mapping is refused") {
        Folder folder;
        CHECK_PROBLEM(folder.problems(k_minimal + "rate:\n  burst: 1\n  burst: 2\n"),
                      "13: duplicate key \"rate.burst\" (first on line 12)");
    }

    TEST_CASE("missing required keys are named") {
        Folder folder;
        const auto p = folder.problems(
            "service: {base_url: https://h}\nrecipients: {columns: {wa_id: a}}\n"
            "message: {type: text}\n");
        CHECK_PROBLEM(p, "1: missing required key \"name\"");
        CHECK_PROBLEM(p, "1: missing required key \"service.api_key\"");
        CHECK_PROBLEM(p, "2: missing required key \"recipients.file\"");
        CHECK_PROBLEM(p, "2: missing required key \"recipients.columns.user_name\"");
        CHECK_PROBLEM(p, "3: missing required key \"message.text\"");
        CHECK_PROBLEM(folder.problems(minimal_with("type: text\n  text: \"Hi {{name}}\"", "type: image")),
                      "8: missing required key \"message.source\"");
        const auto bare = folder.problems("name: a\n");
        CHECK_PROBLEM(bare, "1: missing required key \"service\"");
        CHECK_PROBLEM(bare, "1: missing required key \"recipients\"");
        CHECK_PROBLEM(bare, "1: missing required key \"message\"");
        CHECK_PROBLEM(folder.problems(minimal_with("  columns: {wa_id: phone, user_name: name}\n", "")),
                      "5: missing required key \"recipients.columns\"");
    }

    TEST_CASE("a required key without a value is refused") {
        Folder folder;
        CHECK_PROBLEM(folder.problems(minimal_with("name: spring", "name:")), "1: name: a value is required");
        CHECK_PROBLEM(folder.problems(minimal_with("text: \"Hi {{name}}\"", "text: \"\"")),
                      "10: message.text: must not be empty");
    }

    TEST_CASE("a wrong type says what was expected and what was found") {
        Folder folder;
        const auto p =
            folder.problems(k_minimal +
                            "rate:\n  per_second: fast\n  concurrency: 2.5\nretry: [1]\n"
                            "cleanup: {delete_contacts: maybe}\nabort: {max_consecutive_failures: {a: 1}}\n");
        CHECK_PROBLEM(p, "12: rate.per_second: expected unlimited or a number, got \"fast\"");
        CHECK_PROBLEM(p, "13: rate.concurrency: expected a whole number, got \"2.5\"");
        CHECK_PROBLEM(p, "14: retry: expected a mapping, got a list");
        CHECK_PROBLEM(p, "15: cleanup.delete_contacts: expected true or false, got \"maybe\"");
        CHECK_PROBLEM(p, "16: abort.max_consecutive_failures: expected a whole number, got a mapping");
    }

    TEST_CASE("numbers out of range are refused") {
        Folder folder;
        const auto p = folder.problems(k_minimal +
                                       "rate:\n  per_second: 0\n  burst: -1\n  concurrency: 1025\n"
                                       "  per_day: 0\nretry: {max_attempts: 0}\ncleanup: {batch_size: 1001}\n"
                                       "abort: {max_consecutive_failures: 0}\n");
        CHECK_PROBLEM(p, "12: rate.per_second: must be more than 0 and at most 100000, got 0");
        CHECK_PROBLEM(p, "13: rate.burst: must be between 0 and 100000, got -1");
        CHECK_PROBLEM(p, "14: rate.concurrency: must be between 1 and 1024, got 1025");
        CHECK_PROBLEM(p, "15: rate.per_day: must be between 1 and 1000000000, got 0");
        CHECK_PROBLEM(p, "16: retry.max_attempts: must be between 1 and 100, got 0");
        CHECK_PROBLEM(p, "17: cleanup.batch_size: must be between 1 and 1000, got 1001");
        CHECK_PROBLEM(p, "18: abort.max_consecutive_failures: must be between 1 and 1000000, got 0");
        const auto q =
            folder.problems(k_minimal + "rate: {per_second: -1, concurrency: 0}\ncleanup: {batch_size: 0}\n");
        CHECK_PROBLEM(q, "11: rate.per_second: must be more than 0 and at most 100000, got -1");
        CHECK_PROBLEM(q, "11: rate.concurrency: must be between 1 and 1024, got 0");
        CHECK_PROBLEM(q, "12: cleanup.batch_size: must be between 1 and 1000, got 0");
    }

    TEST_CASE("huge numbers are out of range, not overflowed") {
        Folder folder;
        const auto p = folder.problems(k_minimal + "rate:\n  per_second: 1e400\n  per_day: 99999999999999999999999\n");
        CHECK_PROBLEM(p, "12: rate.per_second: must be more than 0 and at most 100000, got 1e400");
        CHECK_PROBLEM(p, "13: rate.per_day: must be between 1 and 1000000000, got 99999999999999999999999");
    }

    TEST_CASE("bad durations are refused") {
        Folder folder;
        const std::string why = " is not a duration (examples: 500ms, 15s, 2m, 1h)";
        const auto p =
            folder.problems(with_service("  base_url: https://h\n  api_key: key-0123456789\n  timeout: fast\n") +
                            "retry: {initial_backoff: 2 weeks}\n");
        CHECK_PROBLEM(p, "7: service.timeout: \"fast\"" + why);
        CHECK_PROBLEM(p, "8: retry.initial_backoff: \"2 weeks\"" + why);
        CHECK_PROBLEM(
            folder.problems(with_service("  base_url: https://h\n  api_key: key-0123456789\n  timeout: 500ms\n")),
            "7: service.timeout: must be between 1s and 10m, got 500ms");
        CHECK_PROBLEM(
            folder.problems(with_service("  base_url: https://h\n  api_key: key-0123456789\n  timeout: 11m\n")),
            "7: service.timeout: must be between 1s and 10m, got 11m");
    }

    TEST_CASE("abort.max_throttled is a duration of at least a second") {
        Folder folder;
        CHECK_PROBLEM(folder.problems(k_minimal + "abort: {max_throttled: 500ms}\n"),
                      "11: abort.max_throttled: must be between 1s and 7d, got 500ms");
        CHECK_PROBLEM(folder.problems(k_minimal + "abort: {max_throttled: forever}\n"),
                      "11: abort.max_throttled: \"forever\" is not a duration (examples: 500ms, 15s, 2m, 1h)");
    }

    TEST_CASE("abort.max_invalid_share is a number from 0 to 1") {
        Folder folder;
        CHECK_PROBLEM(folder.problems(k_minimal + "abort: {max_invalid_share: 5%}\n"),
                      "11: abort.max_invalid_share: expected a number from 0 to 1 (0.05 is 5%), got \"5%\"");
        CHECK_PROBLEM(folder.problems(k_minimal + "abort: {max_invalid_share: 1.5}\n"),
                      "11: abort.max_invalid_share: expected a number from 0 to 1 (0.05 is 5%), got \"1.5\"");
        CHECK(folder.problems(k_minimal + "abort: {max_invalid_share: 1}\n").empty());
    }

    TEST_CASE("initial_backoff may not exceed max_backoff") {
        Folder folder;
        CHECK_PROBLEM(folder.problems(k_minimal + "retry:\n  initial_backoff: 2m\n  max_backoff: 1m\n"),
                      "12: retry.initial_backoff: must not be longer than retry.max_backoff");
    }

    TEST_CASE("a value outside its set of names is refused, with a suggestion") {
        Folder folder;
        CHECK_PROBLEM(folder.problems(minimal_with("type: text", "type: imgae")),
                      "9: message.type: expected text, image or template, got \"imgae\" (did you mean \"image\"?)");
        const auto p = folder.problems(k_minimal + "cleanup: {only: some}\nretry: {ambiguous: maybe}\n");
        CHECK_PROBLEM(p, "11: cleanup.only: expected sent or all, got \"some\"");
        CHECK_PROBLEM(p, "12: retry.ambiguous: expected retry or hold, got \"maybe\"");
    }

    TEST_CASE("the name is letters, digits, - and _") {
        Folder folder;
        const std::string rule = "1: name: must be letters, digits, '-' or '_' (at most 100), got ";
        CHECK_PROBLEM(folder.problems(minimal_with("name: spring", "name: spring offer")), rule + "\"spring offer\"");
        CHECK_PROBLEM(folder.problems(minimal_with("name: spring", "name: ../x")), rule + "\"../x\"");
        CHECK(folder.problems(minimal_with("name: spring", "name: " + std::string(101, 'a'))).find(rule) !=
              std::string::npos);
    }

    TEST_CASE("base_url must be an http or https address without a query") {
        Folder folder;
        const std::string scheme = "3: service.base_url: must start with http:// or https:// and name a host, got ";
        const std::string url = "base_url: https://api.example.com";
        CHECK_PROBLEM(folder.problems(minimal_with(url, "base_url: ftp://h")), scheme + "\"ftp://h\"");
        CHECK_PROBLEM(folder.problems(minimal_with(url, "base_url: https://")), scheme + "\"https://\"");
        CHECK_PROBLEM(folder.problems(minimal_with(url, "base_url: https://h/x?y=1")),
                      "3: service.base_url: must not hold a query, a fragment or spaces, got \"https://h/x?y=1\"");
    }

    TEST_CASE("base_url must name a port from 1 to 65535, if any") {
        Folder folder;
        const std::string url = "base_url: https://api.example.com";
        const std::string rule = "3: service.base_url: must name a host, and a port from 1 to 65535 if any, got ";
        CHECK_PROBLEM(folder.problems(minimal_with(url, "base_url: http://127.0.0.1:189910")),
                      rule + "\"http://127.0.0.1:189910\"");
        CHECK_PROBLEM(folder.problems(minimal_with(url, "base_url: https://h:0")), rule + "\"https://h:0\"");
        CHECK_PROBLEM(folder.problems(minimal_with(url, "base_url: https://h:x/")), rule + "\"https://h:x/\"");
        CHECK(folder.problems(minimal_with(url, "base_url: https://h:8443/api")) == "");
        CHECK(folder.problems(minimal_with(url, "base_url: http://[::1]:8080")) == "");
    }

    TEST_CASE("base_url refuses a user name or password without repeating it") {
        Folder folder;
        const auto p = folder.problems(
            minimal_with("base_url: https://api.example.com", "base_url: https://admin:hunter2secret@api.example.com"));
        CHECK_PROBLEM(p,
                      "3: service.base_url: must not hold a user name or password, got "
                      "\"https://***@api.example.com\": the service authenticates with service.api_key, "
                      "from the environment");
        CHECK(p.find("hunter2secret") == std::string::npos);
        CHECK(p.find("admin") == std::string::npos);
        const auto q =
            folder.problems(minimal_with("base_url: https://api.example.com", "base_url: ftp://u:hunter2secret@h"));
        CHECK(q.find("hunter2secret") == std::string::npos);
    }

    TEST_CASE("plain http to a host that is not loopback needs allow_insecure_http") {
        Folder folder;
        CHECK_PROBLEM(
            folder.problems(minimal_with("base_url: https://api.example.com", "base_url: http://api.example.com")),
            "3: service.base_url: plain http:// would send the API key unencrypted to api.example.com: "
            "use https://, or set service.allow_insecure_http: true if the network is trusted");
        CHECK(folder
                  .problems(minimal_with("base_url: https://api.example.com",
                                         "base_url: http://api.example.com\n  allow_insecure_http: true"))
                  .empty());
        for (const char* loopback : {"http://127.0.0.1:8080", "http://127.1.2.3", "http://localhost:9/x",
                                     "http://LOCALHOST", "http://[::1]:8080"}) {
            CHECK_MESSAGE(folder
                              .problems(minimal_with("base_url: https://api.example.com",
                                                     std::string("base_url: \"") + loopback + "\""))
                              .empty(),
                          loopback);
        }
        for (const char* remote : {"http://127.0.0.1.example.com", "http://localhost.evil.com", "http://10.0.0.1",
                                   "http://[::2]", "http://1270.0.0.1"}) {
            CHECK_MESSAGE(folder.problems(minimal_with("base_url: https://api.example.com",
                                                       std::string("base_url: \"") + remote + "\""))
                                  .find("plain http://") != std::string::npos,
                          remote);
        }
    }

    TEST_CASE("an unset variable is named with the key that uses it") {
        Folder folder;
        CHECK_PROBLEM(folder.problems(minimal_with("${WACAMP_API_KEY}", "${WACAMP_NOPE}")),
                      "4: service.api_key: environment variable WACAMP_NOPE is not set");
        CHECK_PROBLEM(folder.problems(minimal_with("Hi {{name}}", "Hi ${NOPE}")),
                      "10: message.text: environment variable NOPE is not set");
    }

    TEST_CASE("optional secrets excuse only the api key and the token") {
        Folder folder;
        CHECK_PROBLEM(folder.problems(minimal_with("Hi {{name}}", "Hi ${NOPE}"), {.secrets = SecretsPolicy::optional}),
                      "10: message.text: environment variable NOPE is not set");
    }

    TEST_CASE("secret values never appear in a message") {
        Folder folder;
        const util::MapEnvironment env({{"KEY", "key-0123456789"}, {"BROKEN", "abc\ndef"}, {"TOKEN", "tok-987654"}});
        folder.put("campaign.yaml", R"(name: "x ${KEY}"
service:
  base_url: https://h
  api_key: ${KEY}
  access_token: ${BROKEN}
  headers: {X-Token: "${TOKEN}\n"}
recipients: {file: "${TOKEN}.csv", columns: {wa_id: a, user_name: b}}
message: {type: text, text: hi}
cleanup: {delete_contacts: true}
)");
        auto r = campaign::load_campaign(folder.campaign_path(), env);
        REQUIRE_FALSE(r.ok());
        const std::string& message = r.error().message;
        CHECK(message.find("key-0123456789") == std::string::npos);
        CHECK(message.find("abc") == std::string::npos);
        CHECK(message.find("tok-987654") == std::string::npos);
        CHECK(message.find("service.access_token: contains a line break or NUL character") != std::string::npos);
        CHECK(message.find("service.headers.X-Token: value contains a line break") != std::string::npos);
        CHECK(message.find("name: must be letters, digits, '-' or '_' (at most 100), got \"x ***\"") !=
              std::string::npos);
    }

    TEST_CASE("an API key or token under 8 characters is refused (exit 2), naming the key, never the value") {
        Folder folder;
        for (const std::string key : {"k", "Zq7Xw", "Zq7Xw-9"}) {
            CAPTURE(key);
            auto vars = k_vars;
            vars["WACAMP_API_KEY"] = key;
            vars["WACAMP_ACCESS_TOKEN"] = key;
            folder.put("campaign.yaml",
                       minimal_with("  api_key: ${WACAMP_API_KEY}\n",
                                    "  api_key: ${WACAMP_API_KEY}\n  access_token: ${WACAMP_ACCESS_TOKEN}\n"));
            auto r = campaign::load_campaign(folder.campaign_path(), util::MapEnvironment(vars));
            REQUIRE_FALSE(r.ok());
            const std::string& message = r.error().message;
            CHECK(message.find(":4: service.api_key: is shorter than 8 characters: too short to be masked") !=
                  std::string::npos);
            CHECK(message.find(":5: service.access_token: is shorter than 8 characters") != std::string::npos);
            CHECK(message.find("Zq7") == std::string::npos);
        }
        // Written in the file, too; 8 characters are enough.
        const std::string in_file = folder.problems(with_service("  base_url: https://h\n  api_key: k\n"));
        CHECK_MESSAGE(in_file.find("\n6: service.api_key: is shorter than 8 characters") != std::string::npos, in_file);
        CHECK(folder.problems(with_service("  base_url: https://h\n  api_key: Zq7Xw-9a\n")) == "");
    }

    TEST_CASE("an API key or token with a space, a control or a non-ASCII character is refused, never repeated") {
        Folder folder;
        for (const std::string key : {"key 0123456789",
                                      "key\x01"
                                      "0123456789",
                                      "Sk9ZzLongKey\xc3\xbc"}) {
            CAPTURE(key);
            auto vars = k_vars;
            vars["WACAMP_API_KEY"] = key;
            vars["WACAMP_ACCESS_TOKEN"] = key;
            folder.put("campaign.yaml",
                       minimal_with("  api_key: ${WACAMP_API_KEY}\n",
                                    "  api_key: ${WACAMP_API_KEY}\n  access_token: ${WACAMP_ACCESS_TOKEN}\n"));
            auto r = campaign::load_campaign(folder.campaign_path(), util::MapEnvironment(vars));
            REQUIRE_FALSE(r.ok());
            const std::string& message = r.error().message;
            CHECK(message.find("service.api_key: must be visible ASCII characters only") != std::string::npos);
            CHECK(message.find("service.access_token: must be visible ASCII characters only") != std::string::npos);
            CHECK(message.find("0123456789") == std::string::npos);
            CHECK(message.find("LongKey") == std::string::npos);
        }
    }

    TEST_CASE("a campaign file that is a FIFO is refused at once, not waited on") {
        Folder folder;
        const std::string fifo = folder.str("campaign.fifo");
        REQUIRE(::mkfifo(fifo.c_str(), 0644) == 0);
        auto r = campaign::load_campaign(fifo, k_env);
        REQUIRE_FALSE(r.ok());
        CHECK(r.error().message == fifo + ": cannot read: it is a FIFO, not a file");
    }

    TEST_CASE("deleting contacts needs the access token and the user_id column") {
        Folder folder;
        const auto p = folder.problems(k_minimal + "cleanup: {delete_contacts: true}\n");
        CHECK_PROBLEM(p, "2: missing required key \"service.access_token\"");
        CHECK_PROBLEM(p, "7: missing required key \"recipients.columns.user_id\"");
        CHECK_PROBLEM(folder.problems(
                          with_service("  base_url: https://h\n  api_key: key-0123456789\n  access_token: ${NOPE}\n") +
                          "cleanup: {delete_contacts: true}\n"),
                      "7: service.access_token: environment variable NOPE is not set");
    }

    TEST_CASE("fields of the other message type are refused") {
        Folder folder;
        const auto p = folder.problems(k_minimal + "  label: x\n  source: y\n");
        CHECK_PROBLEM(p, "11: message.label: not allowed with type text (it is an image's caption)");
        CHECK_PROBLEM(p, "12: message.source: not allowed with type text (an image message has a source)");
        CHECK_PROBLEM(folder.problems(minimal_with("type: text", "type: image\n  source: s")),
                      "11: message.text: not allowed with type image (use label for a caption)");
    }

    TEST_CASE("message.check_media takes true or false, and only on an image message") {
        Folder folder;
        const std::string image = minimal_with("type: text\n  text: \"Hi {{name}}\"", "type: image\n  source: s");
        CHECK_PROBLEM(folder.problems(image + "  check_media: maybe\n"),
                      "11: message.check_media: expected true or false, got \"maybe\"");
        CHECK_PROBLEM(folder.problems(image + "  check_media: [true]\n"),
                      "11: message.check_media: expected true or false, got a list");
        CHECK_PROBLEM(folder.problems(image + "  check_midea: true\n"),
                      "11: unknown key \"message.check_midea\" (did you mean \"check_media\"?)");
        CHECK_PROBLEM(folder.problems(k_minimal + "  check_media: true\n"),
                      "11: message.check_media: only applies to type image (a text message has no image to check)");
        CHECK(folder.problems(k_minimal + "  check_media: false\n") == "");
    }

    TEST_CASE("message.check_media applies to a template with a media header, not to one without") {
        Folder folder;
        const std::string text = "type: text\n  text: \"Hi {{name}}\"";
        CHECK_PROBLEM(
            folder.problems(minimal_with(text, "type: template\n  template: thank_you") + "  check_media: true\n"),
            "11: message.check_media: only applies to a template with an image, video or document "
            "header (this one has no media to check)");
        CHECK_PROBLEM(folder.problems(minimal_with(text, "type: template\n  template: t\n  header: {text: Hi}") +
                                      "  check_media: true\n"),
                      "12: message.check_media: only applies to a template with an image, video or document "
                      "header (this one has no media to check)");
        for (const std::string header :
             {"image: \"https://cdn.example.com/a.jpg\"", "video: \"https://cdn.example.com/a.mp4\"",
              "document: \"https://cdn.example.com/a.pdf\""}) {
            CAPTURE(header);
            CHECK(folder.problems(minimal_with(text, "type: template\n  template: t\n  header: {" + header + "}") +
                                  "  check_media: true\n") == "");
        }
    }

    TEST_CASE("the CSV file must be readable") {
        Folder folder;
        CHECK_PROBLEM(folder.problems(minimal_with("samples/r.csv", "../samples/x.csv")),
                      "6: recipients.file: cannot read \"../samples/x.csv\": No such file or directory");
    }

    TEST_CASE("the delimiter is one character and default_country two letters") {
        Folder folder;
        const std::string one = "must be one character other than a quote or line break (or \"\\t\"), got ";
        const auto p = folder.problems(minimal_with(
            "  file: samples/r.csv\n", "  file: samples/r.csv\n  delimiter: \";;\"\n  default_country: IND\n"));
        CHECK_PROBLEM(p, "7: recipients.delimiter: " + one + "\";;\"");
        CHECK_PROBLEM(p, "8: recipients.default_country: expected a two-letter country code such as IN, got \"IND\"");
        CHECK_PROBLEM(
            folder.problems(minimal_with("  file: samples/r.csv\n", "  file: samples/r.csv\n  delimiter: '\"'\n")),
            "7: recipients.delimiter: " + one + "\"\"\"");
    }

    TEST_CASE("headers: wacamp's own are refused, names are tokens, each given once") {
        Folder folder;
        const auto p =
            folder.problems(with_service("  base_url: https://h\n  api_key: key-0123456789\n  headers:\n"
                                         "    Content-Type: x\n    \"a b\": y\n    X-A: \"1\"\n"
                                         "    x-a: \"2\"\n    apikey: z\n"));
        CHECK_PROBLEM(p, "8: service.headers.Content-Type: wacamp sets this header itself");
        CHECK_PROBLEM(p, "9: service.headers.a b: not a valid header name");
        CHECK_PROBLEM(p, "11: service.headers.x-a: header given twice (also on line 10)");
        CHECK_PROBLEM(p, "12: service.headers.apikey: wacamp sets this header itself");
    }

    TEST_CASE("api_key_in names header, query or both") {
        Folder folder;
        CHECK_PROBLEM(
            folder.problems(with_service("  base_url: https://h\n  api_key: key-0123456789\n  api_key_in: []\n")),
            "7: service.api_key_in: must name header, query or both");
        CHECK_PROBLEM(folder.problems(with_service(
                          "  base_url: https://h\n  api_key: key-0123456789\n  api_key_in: [header, body]\n")),
                      "7: service.api_key_in[1]: expected header or query, got \"body\"");
    }

    TEST_CASE("start_at needs a UTC offset and a real date") {
        Folder folder;
        CHECK_PROBLEM(folder.problems(k_minimal + "schedule: {start_at: 2026-12-01T09:00:00}\n"),
                      "11: schedule.start_at: \"2026-12-01T09:00:00\" has no UTC offset: add Z or one like +05:30");
        const std::string like = " is not a date and time like 2026-12-01T09:00:00+05:30";
        CHECK_PROBLEM(folder.problems(k_minimal + "schedule: {start_at: 2026-02-30T09:00:00Z}\n"),
                      "11: schedule.start_at: \"2026-02-30T09:00:00Z\"" + like);
        CHECK_PROBLEM(folder.problems(k_minimal + "schedule: {start_at: tomorrow}\n"),
                      "11: schedule.start_at: \"tomorrow\"" + like);
    }

    TEST_CASE("window: a known zone, real days, times of day, opening before closing") {
        Folder folder;
        const auto p = folder.problems(k_minimal +
                                       "schedule:\n  window:\n    timezone: Mars/Olympus\n"
                                       "    days: [mon, funday]\n    from: \"25:00\"\n    to: 9am\n");
        CHECK_PROBLEM(p,
                      "13: schedule.window.timezone: unknown time zone \"Mars/Olympus\" (expected an IANA name like "
                      "Asia/Kolkata)");
        CHECK_PROBLEM(p, "14: schedule.window.days: expected sun, mon, tue, wed, thu, fri or sat, got \"funday\"");
        CHECK_PROBLEM(p, "15: schedule.window.from: expected a time of day like 09:00, got \"25:00\"");
        CHECK_PROBLEM(p, "16: schedule.window.to: expected a time of day like 18:00 (or 24:00), got \"9am\"");
        const auto q = folder.problems(k_minimal +
                                       "schedule:\n  window: {timezone: ../../etc/passwd, days: [], "
                                       "from: \"18:00\", to: \"09:00\"}\n");
        CHECK(q.find("unknown time zone \"../../etc/passwd\"") != std::string::npos);
        CHECK_PROBLEM(q, "12: schedule.window.days: must name at least one day");
        CHECK_PROBLEM(q, "12: schedule.window.from: the window must open before it closes, got from 18:00 to 09:00");
    }

    TEST_CASE("results must name a file") {
        Folder folder;
        CHECK_PROBLEM(folder.problems(k_minimal + "results: samples/\n"),
                      "11: results: must name a file, got the folder \"samples/\"");
    }
}
