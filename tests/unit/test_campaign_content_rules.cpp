#include <doctest/doctest.h>

#include <string>

#include "campaign/content_rules.hpp"
#include "campaign/render.hpp"
#include "util/utf8.hpp"

using campaign::code_points;
using campaign::content_problem;

namespace {

std::string repeat(std::string_view piece, std::size_t times) {
    std::string out;
    for (std::size_t i = 0; i < times; ++i) {
        out += piece;
    }
    return out;
}

service::OutgoingMessage text_message(std::string text) {
    service::OutgoingMessage m;
    m.kind = service::MessageKind::text;
    m.text = std::move(text);
    return m;
}

service::OutgoingMessage image_message(std::string source, std::string label = "") {
    service::OutgoingMessage m;
    m.kind = service::MessageKind::image;
    m.source = std::move(source);
    m.has_label = !label.empty();
    m.label = std::move(label);
    return m;
}

}  // namespace

TEST_SUITE("campaign::content_rules") {
    TEST_CASE("code points, not bytes and not what a reader sees as one character") {
        CHECK(code_points("") == 0);
        CHECK(code_points("abc") == 3);
        CHECK(code_points("\xc3\xa9") == 1);                          // é, precomposed: 2 bytes
        CHECK(code_points("e\xcc\x81") == 2);                         // e + combining acute
        CHECK(code_points("\xf0\x9f\x98\x80") == 1);                  // 😀: 4 bytes
        CHECK(code_points("\xf0\x9f\x91\x8d\xf0\x9f\x8f\xbd") == 2);  // 👍🏽: emoji + skin tone
        CHECK(code_points("\xe0\xa4\xa8\xe0\xa4\xae") == 2);          // नम
        CHECK(code_points("a\xff"
                          "b") == 3);  // a stray byte counts as one
    }
    TEST_CASE("code points of long texts: ASCII runs and multi-byte characters at every offset") {
        // A one-byte-at-a-time count, the rule itself, against the counter at each position of
        // a 2-, 3- and 4-byte character and a stray byte within and across eight-byte words.
        const auto reference = [](std::string_view text) {
            std::size_t n = 0;
            for (std::size_t i = 0; i < text.size(); ++n) {
                const std::size_t length = util::decode_utf8(text.substr(i)).length;
                i += length == 0 ? 1 : length;
            }
            return n;
        };
        for (const std::string piece : {"\xc3\xa9", "\xe0\xa4\xa8", "\xf0\x9f\x98\x80", "\xff", "\xf0\x9f"}) {
            for (std::size_t before = 0; before < 20; ++before) {
                const std::string text = repeat("a", before) + piece + repeat("b", 19 - before);
                CAPTURE(text);
                CHECK(code_points(text) == reference(text));
            }
        }
        CHECK(code_points(repeat("a", 1000)) == 1000);
        CHECK(code_points(repeat("\xc3\xa9", 500) + repeat("a", 17)) == 517);
    }
    TEST_CASE("a media link must be an absolute http(s) URL with a host") {
        for (const char* good : {"http://a", "https://cdn.example.com/p.jpg", "HTTPS://EXAMPLE.COM", "hTtP://h:8080/x",
                                 "https://user:pw@host/x", "https://h?q=1", "https://h#f", "https://a@b@host/"}) {
            CAPTURE(good);
            CHECK(campaign::absolute_http_url(good));
        }
        for (const char* bad : {"",
                                "http",
                                "http:/",
                                "http://",
                                "https://",
                                "ftp://host/x",
                                "httpss://host",
                                "htt://host",
                                "//host/x",
                                "https:///path",
                                "https://user@/x",
                                "https://:80/x",
                                "https://user@:80/x",
                                "https://host/a b",
                                "https://host/\x7f",
                                "https://host/\t",
                                " https://host/",
                                "https://host/x\n",
                                "file:///etc/passwd",
                                "https:/host",
                                "https//host",
                                "xhttps://host"}) {
            CAPTURE(bad);
            CHECK_FALSE(campaign::absolute_http_url(bad));
        }
    }
    TEST_CASE("a text of exactly 4,096 characters passes; 4,097 is refused, naming the limit") {
        CHECK_FALSE(content_problem(text_message(repeat("a", 4096))));
        const auto problem = content_problem(text_message(repeat("a", 4097)));
        REQUIRE(problem);
        CHECK(problem->find("4097 characters") != std::string::npos);
        CHECK(problem->find("limit of 4096") != std::string::npos);
        CHECK(problem->find("message.text") != std::string::npos);
    }
    TEST_CASE("the text limit counts multi-byte characters once") {
        // 4,096 emoji are 16,384 bytes and still within the limit.
        CHECK_FALSE(content_problem(text_message(repeat("\xf0\x9f\x98\x80", 4096))));
        CHECK(content_problem(text_message(repeat("\xf0\x9f\x98\x80", 4097))));
        // A combining accent is a code point of its own: 2,048 "é" written decomposed are 4,096.
        CHECK_FALSE(content_problem(text_message(repeat("e\xcc\x81", 2048))));
        CHECK(content_problem(text_message(repeat("e\xcc\x81", 2048) + "x")));
    }
    TEST_CASE("a text that renders empty or only whitespace is refused") {
        CHECK(content_problem(text_message("")));
        CHECK(content_problem(text_message(" \t\n")));
        CHECK(content_problem(text_message(""))->find("empty") != std::string::npos);
        CHECK_FALSE(content_problem(text_message(".")));
    }
    TEST_CASE("a caption of exactly 1,024 characters passes; 1,025 is refused") {
        const std::string url = "https://cdn.example.com/a.png";
        CHECK_FALSE(content_problem(image_message(url, repeat("\xc3\xa9", 1024))));
        const auto problem = content_problem(image_message(url, repeat("\xc3\xa9", 1025)));
        REQUIRE(problem);
        CHECK(problem->find("1025 characters") != std::string::npos);
        CHECK(problem->find("limit of 1024") != std::string::npos);
        CHECK(problem->find("message.label") != std::string::npos);
        CHECK_FALSE(content_problem(image_message(url)));  // no caption at all
    }
    TEST_CASE("an image source must be an absolute http(s) URL") {
        CHECK_FALSE(content_problem(image_message("https://cdn.example.com/a.png")));
        CHECK_FALSE(content_problem(image_message("HTTP://cdn.example.com:8080/a.png?x=1")));
        CHECK_FALSE(content_problem(image_message("http://[::1]:8080/a.png")));
        for (const char* bad : {"not a url", "", "cdn.example.com/a.png", "/a.png", "ftp://cdn.example.com/a.png",
                                "file:///etc/passwd", "https://", "https:///a.png", "https://cdn.example.com/a b.png",
                                "https://cdn.example.com/a.png\n", "javascript://x", "https://:80/a.png"}) {
            CAPTURE(bad);
            const auto problem = content_problem(image_message(bad));
            REQUIRE(problem);
            CHECK(problem->find("message.source") != std::string::npos);
        }
    }
    TEST_CASE("a refused source is quoted printable and cut short") {
        const auto problem = content_problem(image_message("\x1b[2J" + repeat("x", 500)));
        REQUIRE(problem);
        CHECK(problem->find('\x1b') == std::string::npos);
        CHECK(problem->size() < 400);
    }
}

TEST_SUITE("campaign::Template") {
    TEST_CASE("render_into names the placeholders that took their default, each once") {
        auto parsed = campaign::Template::parse("Hi {{name|there}}, {{date|soon}} {{date|soon}} at {{place}}");
        REQUIRE(parsed.ok());
        auto bound = parsed->bind({"name", "date", "place"});
        REQUIRE(bound.ok());
        std::string out;
        std::vector<std::string> defaults;
        REQUIRE(bound->render_into({"Asha", "", "home"}, out, &defaults).ok());
        CHECK(out == "Hi Asha, soon soon at home");
        CHECK(defaults == std::vector<std::string>{"date"});
        REQUIRE(bound->render_into({" ", "", "home"}, out, &defaults).ok());
        CHECK(defaults == std::vector<std::string>{"date", "name"});  // appended to what was there
    }
}
