#include <doctest/doctest.h>

#include <algorithm>

#include "campaign/campaign.hpp"
#include "campaign_file_fixture.hpp"

using namespace campaign_file_test;

namespace {

campaign::Campaign load_with(const Folder& folder, const std::string& yaml, const util::Environment& env) {
    folder.put("campaign.yaml", yaml);
    auto c = campaign::load_campaign(folder.campaign_path(), env);
    REQUIRE_MESSAGE(c.ok(), (c.ok() ? "" : c.error().message));
    return std::move(c.value());
}

// The default account of the minimal campaign with `base_url` as its service's base URL.
std::string default_account(const Folder& folder, const std::string& base_url) {
    std::string yaml = k_minimal;
    yaml.replace(yaml.find("https://api.example.com"), 23, base_url);
    auto c = folder.load(yaml);
    REQUIRE(c);
    return c->account.name;
}

}  // namespace

// Checks that `problems` has a line starting with `start` ("12: rate.burst:").
#define CHECK_PROBLEM_START(problems, start) \
    CHECK_MESSAGE((problems).find("\n" + std::string(start)) != std::string::npos, problems)

TEST_SUITE("campaign::load_campaign account") {
    TEST_CASE("the account defaults to the service's host, the ledger to ~/.local/state") {
        Folder folder;
        auto c = folder.load(k_minimal);
        REQUIRE(c);
        CHECK(c->account.name == "api.example.com");
        CHECK(c->account.ledger == folder.str("home/.local/state/wacamp/ledger.sqlite"));
        CHECK(c->suppression.files.empty());
        CHECK(c->suppression.undeliverable_after == 2);
        CHECK_FALSE(c->rate.per_recipient.has_value());
    }

    TEST_CASE("XDG_STATE_HOME places the default ledger; a relative one is ignored") {
        Folder folder;
        const util::MapEnvironment xdg(
            {{"WACAMP_API_KEY", "key-0123456789"}, {"HOME", "/home/tester"}, {"XDG_STATE_HOME", "/var/state"}});
        CHECK(load_with(folder, k_minimal, xdg).account.ledger == "/var/state/wacamp/ledger.sqlite");
        const util::MapEnvironment relative(
            {{"WACAMP_API_KEY", "key-0123456789"}, {"HOME", "/home/tester"}, {"XDG_STATE_HOME", "state"}});
        CHECK(load_with(folder, k_minimal, relative).account.ledger ==
              "/home/tester/.local/state/wacamp/ledger.sqlite");
    }

    TEST_CASE("without HOME or XDG_STATE_HOME the ledger needs a path or off") {
        Folder folder;
        const util::MapEnvironment bare(std::map<std::string, std::string>{{"WACAMP_API_KEY", "key-0123456789"}});
        folder.put("campaign.yaml", k_minimal);
        auto c = campaign::load_campaign(folder.campaign_path(), bare);
        REQUIRE_FALSE(c.ok());
        CHECK(c.error().message.find("account.ledger: neither XDG_STATE_HOME nor HOME is set") != std::string::npos);
        CHECK_FALSE(load_with(folder, k_minimal + "account: {ledger: off}\n", bare).account.ledger.has_value());
    }

    TEST_CASE("a word that means no ledger elsewhere is a problem, not a ledger file of that name") {
        Folder folder;
        for (const std::string word : {"none", "None", "no", "false", "disabled"}) {
            CAPTURE(word);
            CHECK_PROBLEM(folder.problems(k_minimal + "account: {ledger: " + word + "}\n"),
                          "11: account.ledger: expected a path or `off`, got \"" + word +
                              "\": `off` keeps no ledger; a file of that name is written ./" + word);
        }
        CHECK(folder.problems(k_minimal + "account: {ledger: ./none}\n") == "");
    }

    TEST_CASE("the account name keeps a port that is not the scheme's default") {
        Folder folder;
        CHECK(default_account(folder, "http://127.0.0.1:8080/v1") == "127.0.0.1:8080");
        CHECK(default_account(folder, "https://API.Example.com:443") == "api.example.com");
    }

    TEST_CASE("the account name spells localhost, 127.0.0.1 and [::1] one way: 127.0.0.1") {
        Folder folder;
        for (const std::string url :
             {"http://localhost:8080", "http://LocalHost:8080/", "http://127.0.0.1:8080", "http://[::1]:8080"}) {
            CHECK_MESSAGE(default_account(folder, url) == "127.0.0.1:8080", url);
        }
        CHECK(default_account(folder, "http://localhost") == "127.0.0.1");
        CHECK(default_account(folder, "https://[::1]:443") == "127.0.0.1");
        // Another address may be another service.
        CHECK(default_account(folder, "http://127.0.0.2:8080") == "127.0.0.2:8080");
    }

    TEST_CASE("account name and ledger path as written; the path is relative to the campaign file") {
        Folder folder;
        auto c = folder.load(k_minimal + "account: {name: acme, ledger: ../state/ledger.sqlite}\n");
        REQUIRE(c);
        CHECK(c->account.name == "acme");
        CHECK(c->account.ledger == folder.str("../state/ledger.sqlite"));
    }

    TEST_CASE("a PostgreSQL URL is kept as written, never a path; its password from ${VAR} is kept apart") {
        Folder folder;
        auto vars = k_vars;
        vars["PGPASS"] = "pg-S3cret/@pass";
        vars["DB_HOST"] = "db.internal";
        const std::string yaml =
            k_minimal + "account:\n  ledger: postgresql://wacamp:${PGPASS}@${DB_HOST}:5432/wacamp?sslmode=require\n";
        auto c = load_with(folder, yaml, util::MapEnvironment(vars));
        CHECK(c.account.ledger == "postgresql://wacamp@db.internal:5432/wacamp?sslmode=require");
        CHECK(c.account.ledger_password == "pg-S3cret/@pass");
        // A password written in the URL is percent-decoded, as libpq would.
        auto d = load_with(folder, k_minimal + "account:\n  ledger: postgres://wacamp:p%40ss-word@db/wacamp\n", k_env);
        CHECK(d.account.ledger == "postgres://wacamp@db/wacamp");
        CHECK(d.account.ledger_password == "p@ss-word");
        // The whole URL from one variable.
        vars["LEDGER_URL"] = "postgresql://wacamp:w%2Fhole-pw@db/wacamp";
        auto whole = load_with(folder, k_minimal + "account:\n  ledger: ${LEDGER_URL}\n", util::MapEnvironment(vars));
        CHECK(whole.account.ledger == "postgresql://wacamp@db/wacamp");
        CHECK(whole.account.ledger_password == "w/hole-pw");
        // No password: libpq's PGPASSWORD or PGPASSFILE apply.
        auto e = load_with(folder, k_minimal + "account:\n  ledger: postgresql://wacamp@db/wacamp\n", k_env);
        CHECK(e.account.ledger_password.empty());
    }

    TEST_CASE("a PostgreSQL password's unset variable is a problem only where secrets are required") {
        Folder folder;
        const std::string yaml = k_minimal + "account:\n  ledger: postgresql://wacamp:${PGPASS}@db/wacamp\n";
        CHECK_PROBLEM(folder.problems(yaml), "12: account.ledger: environment variable PGPASS is not set");
        auto c = folder.load(yaml, {.secrets = campaign::SecretsPolicy::optional});
        REQUIRE(c);
        CHECK(c->account.ledger == "postgresql://wacamp@db/wacamp");
        CHECK(c->account.ledger_password.empty());
    }

    TEST_CASE("a PostgreSQL password never appears in a problem, even where another key shows it") {
        Folder folder;
        auto vars = k_vars;
        vars["PGPASS"] = "pg-S3cretpass";
        const std::string yaml = k_minimal +
                                 "account:\n  ledger: postgresql://wacamp:${PGPASS}@db/wacamp\n"
                                 "  name: \"pg-S3cretpass\\t\"\n";
        folder.put("campaign.yaml", yaml);
        auto c = campaign::load_campaign(folder.campaign_path(), util::MapEnvironment(vars));
        REQUIRE_FALSE(c.ok());
        CHECK(c.error().message.find("account.name") != std::string::npos);
        CHECK(c.error().message.find("pg-S3cretpass") == std::string::npos);
    }

    TEST_CASE("a message holding the PostgreSQL password is refused") {
        Folder folder;
        auto vars = k_vars;
        vars["PGPASS"] = "pg-S3cretpass";
        const std::string yaml = k_minimal.substr(0, k_minimal.find("  text:")) +
                                 "  text: \"Your password: ${PGPASS}\"\n" +
                                 "account:\n  ledger: postgresql://wacamp:${PGPASS}@db/wacamp\n";
        folder.put("campaign.yaml", yaml);
        auto c = campaign::load_campaign(folder.campaign_path(), util::MapEnvironment(vars));
        REQUIRE_FALSE(c.ok());
        CHECK(c.error().message.find("message.text: holds the value of a secret") != std::string::npos);
        CHECK(c.error().message.find("pg-S3cretpass") == std::string::npos);
    }

    TEST_CASE("bad account keys name their line") {
        Folder folder;
        CHECK_PROBLEM(folder.problems(k_minimal + "account: {nmae: acme}\n"),
                      "11: unknown key \"account.nmae\" (did you mean \"name\"?)");
        CHECK_PROBLEM_START(folder.problems(k_minimal + "account:\n  ledger: postgresql://u:${NOT_SET}@db/wacamp\n"),
                            "12: account.ledger: environment variable NOT_SET is not set");
        CHECK_PROBLEM_START(folder.problems(k_minimal + "account:\n  name: \"a\\tb\"\n"),
                            "12: account.name: expected a name of 1 to 200 printable characters");
    }

    TEST_CASE("suppression: files resolved and checked, undeliverable_after bounded") {
        Folder folder;
        folder.put("lists/dnc.csv", "phone\n+919812345678\n");
        auto c = folder.load(k_minimal + "suppression:\n  files: [lists/dnc.csv]\n  undeliverable_after: 3\n");
        REQUIRE(c);
        REQUIRE(c->suppression.files.size() == 1);
        CHECK(c->suppression.files[0] == folder.str("lists/dnc.csv"));
        CHECK(c->suppression.undeliverable_after == 3);
        CHECK_PROBLEM_START(folder.problems(k_minimal + "suppression:\n  files:\n    - lists/missing.csv\n"),
                            "13: suppression.files: \"lists/missing.csv\" is not a readable file");
        CHECK_PROBLEM_START(folder.problems(k_minimal + "suppression: {undeliverable_after: 0}\n"),
                            "11: suppression.undeliverable_after:");
    }

    TEST_CASE("rate.per_recipient: max and per, with defaults and bounds") {
        Folder folder;
        auto c = folder.load(k_minimal + "rate:\n  per_recipient: {max: 2, per: 3d}\n");
        REQUIRE(c);
        REQUIRE(c->rate.per_recipient.has_value());
        CHECK(c->rate.per_recipient->max == 2);
        CHECK(c->rate.per_recipient->per == std::chrono::hours(72));
        auto d = folder.load(k_minimal + "rate:\n  per_recipient: {}\n");
        REQUIRE(d);
        REQUIRE(d->rate.per_recipient.has_value());
        CHECK(d->rate.per_recipient->max == 1);
        CHECK(d->rate.per_recipient->per == std::chrono::hours(24 * 7));
        CHECK_PROBLEM_START(folder.problems(k_minimal + "rate:\n  per_recipient: {max: 0}\n"),
                            "12: rate.per_recipient.max:");
        CHECK_PROBLEM_START(folder.problems(k_minimal + "rate:\n  per_recipient: {per: 1s}\n"),
                            "12: rate.per_recipient.per:");
        CHECK_PROBLEM(folder.problems(k_minimal + "rate:\n  per_recipient: {mx: 1}\n"),
                      "12: unknown key \"rate.per_recipient.mx\" (did you mean \"max\"?)");
    }

    TEST_CASE("default_ledger_path: XDG_STATE_HOME, else HOME, each only when absolute") {
        using campaign::default_ledger_path;
        using Vars = std::map<std::string, std::string>;
        CHECK(default_ledger_path(util::MapEnvironment(Vars{{"XDG_STATE_HOME", "/s"}, {"HOME", "/h"}})) ==
              "/s/wacamp/ledger.sqlite");
        CHECK(default_ledger_path(util::MapEnvironment(Vars{{"XDG_STATE_HOME", "s"}, {"HOME", "/h"}})) ==
              "/h/.local/state/wacamp/ledger.sqlite");
        CHECK_FALSE(default_ledger_path(util::MapEnvironment(Vars{{"HOME", "h"}})).has_value());
        CHECK_FALSE(default_ledger_path(util::MapEnvironment(Vars{})).has_value());
    }

    TEST_CASE("an account name is 1 to 200 printable characters") {
        CHECK(campaign::valid_account_name("acme"));
        CHECK(campaign::valid_account_name("api.example.com:8443"));
        CHECK(campaign::valid_account_name(std::string(200, 'a')));
        CHECK_FALSE(campaign::valid_account_name(std::string(201, 'a')));
        CHECK_FALSE(campaign::valid_account_name(""));
        CHECK_FALSE(campaign::valid_account_name("ac\x1bme"));
    }

    TEST_CASE("account.rate_store: a redis:// URL whose password comes from the environment, masked") {
        Folder folder;
        auto vars = k_vars;
        vars["HOME"] = folder.str("home");
        vars["REDIS_PASSWORD"] = "redis-pw-0123456789";
        const util::MapEnvironment env(vars);
        const std::string yaml =
            k_minimal + "account:\n  rate_store: redis://pacer:${REDIS_PASSWORD}@10.1.2.3:6380/2\n";
        const auto c = load_with(folder, yaml, env);
        REQUIRE(c.account.rate_store);
        CHECK(c.account.rate_store->host == "10.1.2.3");
        CHECK(c.account.rate_store->port == 6380);
        CHECK(c.account.rate_store->db == 2);
        CHECK(c.account.rate_store->user == "pacer");
        CHECK(c.account.rate_store->password == "redis-pw-0123456789");
        const auto secrets = campaign::secrets_of(c);
        CHECK(std::find(secrets.begin(), secrets.end(), "redis-pw-0123456789") != secrets.end());
        CHECK_FALSE(load_with(folder, k_minimal, env).account.rate_store.has_value());
    }

    TEST_CASE("a ledger's or rate store's password under 8 characters is refused, naming the key, not the value") {
        Folder folder;
        auto vars = k_vars;
        vars["HOME"] = folder.str("home");
        vars["SHORTPW"] = "Qz7#pw1";  // 7 characters
        vars["LEDGER_URL"] = "postgresql://wacamp:Qz7%23pw1@db/wacamp";
        const std::vector<std::pair<std::string, std::string>> cases = {
            {"account:\n  ledger: postgresql://wacamp:${SHORTPW}@db/wacamp\n", "12: account.ledger: its password is "},
            {"account:\n  ledger: postgresql://wacamp:Qz7%23pw1@db/wacamp\n", "12: account.ledger: its password is "},
            {"account:\n  ledger: ${LEDGER_URL}\n", "12: account.ledger: its password is "},
            {"account:\n  rate_store: redis://:${SHORTPW}@10.1.2.3\n", "12: account.rate_store: its password is "}};
        for (const auto& [yaml, problem] : cases) {
            CAPTURE(yaml);
            folder.put("campaign.yaml", k_minimal + yaml);
            auto c = campaign::load_campaign(folder.campaign_path(), util::MapEnvironment(vars));
            REQUIRE_FALSE(c.ok());
            const std::string& message = c.error().message;
            CHECK(message.find(problem + std::string("shorter than 8 characters")) != std::string::npos);
            CHECK(message.find("Qz7") == std::string::npos);
        }
        // 8 characters are enough.
        vars["SHORTPW"] = "Qz7#pw12";
        folder.put("campaign.yaml", k_minimal + "account:\n  rate_store: redis://:${SHORTPW}@10.1.2.3\n");
        CHECK(campaign::load_campaign(folder.campaign_path(), util::MapEnvironment(vars)).ok());
    }

    TEST_CASE("account.rate_store: a malformed URL, `unlimited`, an unset variable are problems that show no secret") {
        Folder folder;
        const std::string bad =
            folder.problems(k_minimal + "account:\n  rate_store: redis://:hunter2-pw@host:notaport\n");
        CHECK_PROBLEM_START(bad, "12: account.rate_store: the port must be a number from 1 to 65535");
        CHECK(bad.find("hunter2-pw") == std::string::npos);
        CHECK_PROBLEM_START(folder.problems(k_minimal + "account:\n  rate_store: rediss://host\n"),
                            "12: account.rate_store: rediss:// (TLS) is not supported");
        CHECK_PROBLEM_START(folder.problems(k_minimal + "rate: {per_second: unlimited}\naccount:\n  rate_store: "
                                                        "redis://host\n"),
                            "13: account.rate_store: rate.per_second is unlimited");
        const std::string unset_yaml = k_minimal + "account:\n  rate_store: redis://:${NOT_SET_PW}@host\n";
        CHECK_PROBLEM_START(folder.problems(unset_yaml), "12: account.rate_store: environment variable");
        // validate and dry runs never contact Redis: the variable may be unset there.
        auto dry = folder.load(unset_yaml, LoadOptions{.secrets = campaign::SecretsPolicy::optional});
        REQUIRE(dry);
        CHECK_FALSE(dry->account.rate_store.has_value());
    }
}
