// service.http: which HTTP version a campaign speaks to the service.

#include <doctest/doctest.h>

#include "campaign_file_fixture.hpp"

using namespace campaign_file_test;
using service::HttpVersion;

namespace {

// k_minimal with `line` added to its service section (on line 5).
std::string with_http(const std::string& line) {
    return minimal_with("  api_key: ${WACAMP_API_KEY}\n", "  api_key: ${WACAMP_API_KEY}\n  " + line + "\n");
}

}  // namespace

TEST_SUITE("campaign::load_campaign service.http") {
    TEST_CASE("without the key a campaign speaks auto") {
        Folder folder;
        auto c = folder.load(k_minimal);
        REQUIRE(c.ok());
        CHECK(c->service.http == HttpVersion::automatic);
    }

    TEST_CASE("auto, 1.1 and 2 are read quoted or not: YAML's 1.1 and 2 are the same scalars") {
        Folder folder;
        const std::pair<const char*, HttpVersion> cases[] = {
            {"http: auto", HttpVersion::automatic}, {"http: \"auto\"", HttpVersion::automatic},
            {"http: 1.1", HttpVersion::http1_1},    {"http: \"1.1\"", HttpVersion::http1_1},
            {"http: '1.1'", HttpVersion::http1_1},  {"http: 2", HttpVersion::http2},
            {"http: \"2\"", HttpVersion::http2},    {"http: '2'", HttpVersion::http2},
        };
        for (const auto& [line, expected] : cases) {
            CAPTURE(line);
            auto c = folder.load(with_http(line));
            REQUIRE_MESSAGE(c.ok(), (c.ok() ? "" : c.error().message));
            CHECK(c->service.http == expected);
        }
    }

    TEST_CASE("\"2\" needs https://: plain http:// is refused, with auto and 1.1 accepted there") {
        Folder folder;
        const std::string plain = "base_url: http://127.0.0.1:8080\n";
        for (const char* line : {"  http: 2\n", "  http: \"2\"\n"}) {
            CHECK_PROBLEM(folder.problems(minimal_with("base_url: https://api.example.com\n", plain + line)),
                          "4: service.http: \"2\" needs an https:// base_url (HTTP/2 is negotiated over TLS); "
                          "use auto or \"1.1\" for plain http://");
        }
        for (const char* line : {"  http: auto\n", "  http: 1.1\n"}) {
            CHECK(folder.problems(minimal_with("base_url: https://api.example.com\n", plain + line)).empty());
        }
    }

    TEST_CASE("any other value is refused with its line and the values allowed") {
        Folder folder;
        CHECK_PROBLEM(folder.problems(with_http("http: 3")),
                      "5: service.http: expected auto, 1.1 or 2, got \"3\" (did you mean \"2\"?)");
        CHECK_PROBLEM(folder.problems(with_http("http: http/2")),
                      "5: service.http: expected auto, 1.1 or 2, got \"http/2\"");
        CHECK_PROBLEM(folder.problems(with_http("http: h2")),
                      "5: service.http: expected auto, 1.1 or 2, got \"h2\" (did you mean \"2\"?)");
        CHECK_PROBLEM(folder.problems(with_http("http: Auto")),
                      "5: service.http: expected auto, 1.1 or 2, got \"Auto\" (did you mean \"auto\"?)");
        CHECK_PROBLEM(folder.problems(with_http("http: 1.0")),
                      "5: service.http: expected auto, 1.1 or 2, got \"1.0\" (did you mean \"1.1\"?)");
        CHECK(folder.problems(with_http("http: [2]")).find("5: service.http: expected") != std::string::npos);
    }

    TEST_CASE("a misspelt key is suggested") {
        Folder folder;
        CHECK(folder.problems(with_http("htp: 2")).find("5: unknown key \"service.htp\" (did you mean \"http\"?)") !=
              std::string::npos);
    }
}
