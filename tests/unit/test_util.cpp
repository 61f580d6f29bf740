#include <doctest/doctest.h>

#include <fstream>
#include <optional>
#include <string_view>
#include <vector>

#include "fakes.hpp"
#include "util/duration.hpp"
#include "util/env.hpp"
#include "util/nearest.hpp"
#include "util/redact.hpp"
#include "util/sha256.hpp"

using namespace std::chrono_literals;

TEST_SUITE("util::parse_duration") {
    TEST_CASE("reads the units of campaign files") {
        CHECK(*util::parse_duration("500ms") == 500ms);
        CHECK(*util::parse_duration("15s") == 15s);
        CHECK(*util::parse_duration("2m") == 120s);
        CHECK(*util::parse_duration("1h30m") == 90min);
        CHECK(*util::parse_duration("1.5s") == 1500ms);
    }
    TEST_CASE("a bare number is seconds") {
        CHECK(*util::parse_duration("10") == 10s);
    }
    TEST_CASE("rejects what is not a duration") {
        CHECK_FALSE(util::parse_duration("").ok());
        CHECK_FALSE(util::parse_duration("fast").ok());
        CHECK_FALSE(util::parse_duration("10 parsecs").ok());
        CHECK_FALSE(util::parse_duration("-5s").ok());
        CHECK_FALSE(util::parse_duration("5x").ok());
        CHECK_FALSE(util::parse_duration("400d").ok());
    }
}

TEST_SUITE("util::interpolate") {
    const util::MapEnvironment env({{"KEY", "s3cret"}, {"EMPTY", ""}});
    TEST_CASE("replaces variables") {
        CHECK(*util::interpolate("k=${KEY};", env) == "k=s3cret;");
        CHECK(*util::interpolate("${EMPTY}", env) == "");
        CHECK(*util::interpolate("no vars $ here", env) == "no vars $ here");
        CHECK(*util::interpolate("$${KEY}", env) == "${KEY}");
    }
    TEST_CASE("a missing variable is an error that names it") {
        auto r = util::interpolate("${WACAMP_NOPE}", env);
        REQUIRE_FALSE(r.ok());
        CHECK(r.error().message.find("WACAMP_NOPE") != std::string::npos);
    }
    TEST_CASE("an unterminated reference is an error") {
        CHECK_FALSE(util::interpolate("${KEY", env).ok());
    }
}

TEST_SUITE("util::Redactor") {
    TEST_CASE("masks every registered secret") {
        util::Redactor r;
        r.add("abcd1234");
        r.add("tok");  // too short to mask safely
        CHECK(r.apply("url?apiKey=abcd1234&x=abcd1234") == "url?apiKey=***&x=***");
        CHECK(r.apply("tok stays") == "tok stays");
    }
}

TEST_SUITE("util::sha256") {
    TEST_CASE("matches the known digest of abc") {
        fakes::TempDir temp;
        const auto path = temp.file("abc.txt");
        std::ofstream(path) << "abc";
        CHECK(*util::sha256_file(path) == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
    }
    TEST_CASE("a missing file is an error naming it") {
        auto r = util::sha256_file("/nonexistent/wacamp.csv");
        REQUIRE_FALSE(r.ok());
        CHECK(r.error().message.find("/nonexistent/wacamp.csv") != std::string::npos);
    }
}

TEST_SUITE("util::nearest") {
    TEST_CASE("edit_distance counts insertions, deletions and substitutions") {
        CHECK(util::edit_distance("ordr_id", "order_id") == 1);
        CHECK(util::edit_distance("per_secnd", "per_second") == 1);
        CHECK(util::edit_distance("", "abc") == 3);
        CHECK(util::edit_distance("kitten", "sitting") == 3);
    }
    TEST_CASE("the nearest candidate is suggested only when near enough to be a typo") {
        const std::vector<std::string_view> columns = {"phone", "name", "order_id", "discount"};
        CHECK(util::nearest("ordr_id", columns) == std::optional<std::string_view>("order_id"));
        CHECK(util::nearest("nme", columns) == std::optional<std::string_view>("name"));
        CHECK_FALSE(util::nearest("delivery_date", columns));
        CHECK_FALSE(util::nearest("x", std::vector<std::string_view>{}));
    }
}
