#include <doctest/doctest.h>
#include <nlohmann/json.hpp>

#include <string_view>

#include "util/text.hpp"

using namespace std::string_view_literals;

TEST_SUITE("util::printable") {
    TEST_CASE("escapes control characters and escape sequences") {
        CHECK(util::printable("\x1b]0;evil\x07 title") == "\\x1b]0;evil\\x07 title");
        CHECK(util::printable("a\nb\tc\rd") == "a\\nb\\tc\\rd");
        CHECK(util::printable("del\x7f") == "del\\x7f");
    }
    TEST_CASE("escapes C1 controls and bidirectional overrides, keeps other Unicode") {
        CHECK(util::printable("\xc2\x9b"
                              "2J") == "\\u009b2J");
        CHECK(util::printable("abc\xe2\x80\xae"
                              "fdp.exe") == "abc\\u202efdp.exe");
        CHECK(util::printable("\xe2\x81\xa6x\xe2\x81\xa9") == "\\u2066x\\u2069");
        CHECK(util::printable("Aarav Shāh — नमस्ते") == "Aarav Shāh — नमस्ते");
    }
    TEST_CASE("replaces bytes that are not UTF-8") {
        CHECK(util::printable("a\xff"
                              "b") ==
              "a\xEF\xBF\xBD"
              "b");
    }
    TEST_CASE("keeps line breaks when asked, and only those") {
        CHECK(util::printable("one\ntwo\x1b[2J\r", util::LineBreaks::keep) == "one\ntwo\\x1b[2J\\r");
    }
    TEST_CASE("writes line breaks and tabs as spaces when asked, for a cell of a table") {
        CHECK(util::printable("a\r\nb\tc\x1b", util::LineBreaks::space) == "a  b c\\x1b");
    }
    TEST_CASE("printable text is left as it is") {
        const std::string once = util::printable("x\x1b y\\z");
        CHECK(util::printable(once) == once);
    }
}

TEST_SUITE("util::trim") {
    TEST_CASE("drops spaces, tabs and line breaks around a text, keeps those inside") {
        CHECK(util::trim("  a b\t\r\n") == "a b");
        CHECK(util::trim("\tx") == "x");
        CHECK(util::trim(" \n ").empty());
        CHECK(util::trim("").empty());
    }
}

TEST_SUITE("util::ascii_lower") {
    TEST_CASE("lowers ASCII letters only") {
        CHECK(util::ascii_lower("Content-TYPE") == "content-type");
        CHECK(util::ascii_lower("ÉCOLE Mo") == "École mo");
    }
}

TEST_SUITE("util::ascii_upper") {
    TEST_CASE("raises ASCII letters only, whatever the locale") {
        CHECK(util::ascii_upper("in") == "IN");
        CHECK(util::ascii_upper("Marketing-1_x") == "MARKETING-1_X");
        CHECK(util::ascii_upper("école ı") == "éCOLE ı");
        CHECK(util::ascii_upper("") == "");
    }
}

TEST_SUITE("util::starts_with_nocase") {
    TEST_CASE("compares ASCII letters without regard to case") {
        CHECK(util::starts_with_nocase("HTTPS://example.com", "https://"));
        CHECK(util::starts_with_nocase("Bearer abc", "bearer "));
        CHECK(util::starts_with_nocase("application/JSON", "Application/json"));
        CHECK(util::starts_with_nocase("abc", ""));
        CHECK(util::starts_with_nocase("abc", "abc"));
    }
    TEST_CASE("needs the whole prefix, and equal bytes beyond ASCII letters") {
        CHECK_FALSE(util::starts_with_nocase("http", "https://"));
        CHECK_FALSE(util::starts_with_nocase("", "a"));
        CHECK_FALSE(util::starts_with_nocase("ftp://x", "http://"));
        CHECK_FALSE(util::starts_with_nocase("École", "école"));  // not ASCII: bytes differ
        CHECK_FALSE(util::starts_with_nocase("a[b", "a{b"));      // '[' and '{' differ by 0x20 too
    }
}

TEST_SUITE("util::hex_digits") {
    TEST_CASE("gives the two digits of a byte, high first, in the case asked") {
        CHECK(util::hex_digits(0x0a) == std::array<char, 2>{'0', 'a'});
        CHECK(util::hex_digits(0xff) == std::array<char, 2>{'f', 'f'});
        CHECK(util::hex_digits(0xab, util::HexCase::upper) == std::array<char, 2>{'A', 'B'});
    }
}

TEST_SUITE("util::json_safe") {
    TEST_CASE("escapes DEL, C1 controls and bidi overrides; leaves other text and the meaning alone") {
        CHECK(util::json_safe(R"({"a":"plain"})") == R"({"a":"plain"})");
        CHECK(util::json_safe("{\"a\":\"x\x7f\xc2\x9b\xe2\x80\xae\xe2\x81\xa6y\"}") ==
              R"({"a":"x\u007f\u009b\u202e\u2066y"})");
        CHECK(util::json_safe("{\"a\":\"caf\xc3\xa9 \xe0\xa4\xa8\xe0\xa4\xae\"}") ==
              "{\"a\":\"caf\xc3\xa9 \xe0\xa4\xa8\xe0\xa4\xae\"}");
        const std::string doc = "[\"\xe2\x80\xae\", \"\xc2\x85\"]";
        CHECK(nlohmann::json::parse(util::json_safe(doc)) == nlohmann::json::parse(doc));
    }
}

TEST_SUITE("util::printable and util::json_safe on hostile text") {
    // An input, then what printable makes of it with LineBreaks escape, keep and space, then json_safe.
    struct Escapes {
        std::string_view input, escape, keep, space, json;
    };

    TEST_CASE("controls, C1, bidi overrides and isolates, stray and cut UTF-8, zero-width characters") {
        const Escapes k_cases[] = {
            {""sv, ""sv, ""sv, ""sv, ""sv},
            {"plain ASCII, with \\ and \"quotes\""sv, "plain ASCII, with \\ and \"quotes\""sv,
             "plain ASCII, with \\ and \"quotes\""sv, "plain ASCII, with \\ and \"quotes\""sv,
             "plain ASCII, with \\ and \"quotes\""sv},
            {"nul\x00 soh\x01 esc\x1b[2J bel\x07 bs\x08 vt\x0b ff\x0c us\x1f del\x7f"sv,
             "nul\\x00 soh\\x01 esc\\x1b[2J bel\\x07 bs\\x08 vt\\x0b ff\\x0c us\\x1f del\\x7f"sv,
             "nul\\x00 soh\\x01 esc\\x1b[2J bel\\x07 bs\\x08 vt\\x0b ff\\x0c us\\x1f del\\x7f"sv,
             "nul\\x00 soh\\x01 esc\\x1b[2J bel\\x07 bs\\x08 vt\\x0b ff\\x0c us\\x1f del\\x7f"sv,
             "nul\x00 soh\x01 esc\x1b[2J bel\x07 bs\x08 vt\x0b ff\x0c us\x1f del\\u007f"sv},
            {"tab\tlf\ncr\rcrlf\r\n"sv, "tab\\tlf\\ncr\\rcrlf\\r\\n"sv, "tab\\tlf\ncr\\rcrlf\\r\n"sv,
             "tab lf cr crlf  "sv, "tab\tlf\ncr\rcrlf\r\n"sv},
            {"lone \x80 and \xbf continuation, \xfe\xff, \xf8\x88\x80\x80\x80"sv,
             "lone \xef\xbf\xbd and \xef\xbf\xbd continuation, \xef\xbf\xbd\xef\xbf\xbd, \xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd"sv,
             "lone \xef\xbf\xbd and \xef\xbf\xbd continuation, \xef\xbf\xbd\xef\xbf\xbd, \xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd"sv,
             "lone \xef\xbf\xbd and \xef\xbf\xbd continuation, \xef\xbf\xbd\xef\xbf\xbd, \xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd"sv,
             "lone \x80 and \xbf continuation, \xfe\xff, \xf8\x88\x80\x80\x80"sv},
            {"overlong \xc0\xaf \xc1\xbf \xe0\x80\xaf \xe0\x9f\xbf \xf0\x80\x80\xaf \xf0\x8f\xbf\xbf"sv,
             "overlong \xef\xbf\xbd\xef\xbf\xbd \xef\xbf\xbd\xef\xbf\xbd \xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd \xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd \xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd \xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd"sv,
             "overlong \xef\xbf\xbd\xef\xbf\xbd \xef\xbf\xbd\xef\xbf\xbd \xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd \xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd \xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd \xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd"sv,
             "overlong \xef\xbf\xbd\xef\xbf\xbd \xef\xbf\xbd\xef\xbf\xbd \xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd \xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd \xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd \xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd"sv,
             "overlong \xc0\xaf \xc1\xbf \xe0\x80\xaf \xe0\x9f\xbf \xf0\x80\x80\xaf \xf0\x8f\xbf\xbf"sv},
            {"surrogates \xed\xa0\x80 \xed\xbf\xbf, last BMP \xed\x9f\xbf"sv,
             "surrogates \xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd \xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd, last BMP \xed\x9f\xbf"sv,
             "surrogates \xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd \xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd, last BMP \xed\x9f\xbf"sv,
             "surrogates \xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd \xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd, last BMP \xed\x9f\xbf"sv,
             "surrogates \xed\xa0\x80 \xed\xbf\xbf, last BMP \xed\x9f\xbf"sv},
            {"beyond \xf4\x90\x80\x80 \xf5\x80\x80\x80, last \xf4\x8f\xbf\xbf"sv,
             "beyond \xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd \xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd, last \xf4\x8f\xbf\xbf"sv,
             "beyond \xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd \xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd, last \xf4\x8f\xbf\xbf"sv,
             "beyond \xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd \xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd, last \xf4\x8f\xbf\xbf"sv,
             "beyond \xf4\x90\x80\x80 \xf5\x80\x80\x80, last \xf4\x8f\xbf\xbf"sv},
            {"C1 \xc2\x80 \xc2\x85 \xc2\x9b[2J \xc2\x9f, nbsp \xc2\xa0"sv,
             "C1 \\u0080 \\u0085 \\u009b[2J \\u009f, nbsp \xc2\xa0"sv,
             "C1 \\u0080 \\u0085 \\u009b[2J \\u009f, nbsp \xc2\xa0"sv,
             "C1 \\u0080 \\u0085 \\u009b[2J \\u009f, nbsp \xc2\xa0"sv,
             "C1 \\u0080 \\u0085 \\u009b[2J \\u009f, nbsp \xc2\xa0"sv},
            {"bidi \xe2\x80\xaa\xe2\x80\xab\xe2\x80\xac\xe2\x80\xad\xe2\x80\xae \xe2\x81\xa6\xe2\x81\xa7\xe2\x81\xa8\xe2\x81\xa9"sv,
             "bidi \\u202a\\u202b\\u202c\\u202d\\u202e \\u2066\\u2067\\u2068\\u2069"sv,
             "bidi \\u202a\\u202b\\u202c\\u202d\\u202e \\u2066\\u2067\\u2068\\u2069"sv,
             "bidi \\u202a\\u202b\\u202c\\u202d\\u202e \\u2066\\u2067\\u2068\\u2069"sv,
             "bidi \\u202a\\u202b\\u202c\\u202d\\u202e \\u2066\\u2067\\u2068\\u2069"sv},
            {"around \xe2\x80\xa9 \xe2\x80\xaf \xe2\x81\xa5 \xe2\x81\xaa"sv,
             "around \xe2\x80\xa9 \xe2\x80\xaf \xe2\x81\xa5 \xe2\x81\xaa"sv,
             "around \xe2\x80\xa9 \xe2\x80\xaf \xe2\x81\xa5 \xe2\x81\xaa"sv,
             "around \xe2\x80\xa9 \xe2\x80\xaf \xe2\x81\xa5 \xe2\x81\xaa"sv,
             "around \xe2\x80\xa9 \xe2\x80\xaf \xe2\x81\xa5 \xe2\x81\xaa"sv},
            {"zero width \xe2\x80\x8b\xe2\x80\x8c\xe2\x80\x8d lrm \xe2\x80\x8e rlm \xe2\x80\x8f alm \xd8\x9c bom \xef\xbb\xbf"sv,
             "zero width \xe2\x80\x8b\xe2\x80\x8c\xe2\x80\x8d lrm \xe2\x80\x8e rlm \xe2\x80\x8f alm \xd8\x9c bom \xef\xbb\xbf"sv,
             "zero width \xe2\x80\x8b\xe2\x80\x8c\xe2\x80\x8d lrm \xe2\x80\x8e rlm \xe2\x80\x8f alm \xd8\x9c bom \xef\xbb\xbf"sv,
             "zero width \xe2\x80\x8b\xe2\x80\x8c\xe2\x80\x8d lrm \xe2\x80\x8e rlm \xe2\x80\x8f alm \xd8\x9c bom \xef\xbb\xbf"sv,
             "zero width \xe2\x80\x8b\xe2\x80\x8c\xe2\x80\x8d lrm \xe2\x80\x8e rlm \xe2\x80\x8f alm \xd8\x9c bom \xef\xbb\xbf"sv},
            {"text caf\xc3\xa9 \xe0\xa4\xa8\xe0\xa4\xae\xe0\xa4\xb8\xe0\xa5\x8d\xe0\xa4\xa4\xe0\xa5\x87 \xf0\x9f\x98\x80"sv,
             "text caf\xc3\xa9 \xe0\xa4\xa8\xe0\xa4\xae\xe0\xa4\xb8\xe0\xa5\x8d\xe0\xa4\xa4\xe0\xa5\x87 \xf0\x9f\x98\x80"sv,
             "text caf\xc3\xa9 \xe0\xa4\xa8\xe0\xa4\xae\xe0\xa4\xb8\xe0\xa5\x8d\xe0\xa4\xa4\xe0\xa5\x87 \xf0\x9f\x98\x80"sv,
             "text caf\xc3\xa9 \xe0\xa4\xa8\xe0\xa4\xae\xe0\xa4\xb8\xe0\xa5\x8d\xe0\xa4\xa4\xe0\xa5\x87 \xf0\x9f\x98\x80"sv,
             "text caf\xc3\xa9 \xe0\xa4\xa8\xe0\xa4\xae\xe0\xa4\xb8\xe0\xa5\x8d\xe0\xa4\xa4\xe0\xa5\x87 \xf0\x9f\x98\x80"sv},
            {"cut inside \xe2\x82x \xf0\x9f\x98! \xc3"sv,
             "cut inside \xef\xbf\xbd\xef\xbf\xbdx \xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd! \xef\xbf\xbd"sv,
             "cut inside \xef\xbf\xbd\xef\xbf\xbdx \xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd! \xef\xbf\xbd"sv,
             "cut inside \xef\xbf\xbd\xef\xbf\xbdx \xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd! \xef\xbf\xbd"sv,
             "cut inside \xe2\x82x \xf0\x9f\x98! \xc3"sv},
            {"cut at end \xe2\x82"sv, "cut at end \xef\xbf\xbd\xef\xbf\xbd"sv, "cut at end \xef\xbf\xbd\xef\xbf\xbd"sv,
             "cut at end \xef\xbf\xbd\xef\xbf\xbd"sv, "cut at end \xe2\x82"sv},
            {"cut at end \xf0\x9f\x98"sv, "cut at end \xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd"sv,
             "cut at end \xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd"sv, "cut at end \xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd"sv,
             "cut at end \xf0\x9f\x98"sv},
            {"cut at end \xc3"sv, "cut at end \xef\xbf\xbd"sv, "cut at end \xef\xbf\xbd"sv, "cut at end \xef\xbf\xbd"sv,
             "cut at end \xc3"sv},
            {"<a href=\"x\">Tom & 'Jerry'</a>"sv, "<a href=\"x\">Tom & 'Jerry'</a>"sv,
             "<a href=\"x\">Tom & 'Jerry'</a>"sv, "<a href=\"x\">Tom & 'Jerry'</a>"sv,
             "<a href=\"x\">Tom & 'Jerry'</a>"sv},
            {"{\"a\":\"x\x7f\xc2\x9b\xe2\x80\xae y\",\"b\":\"caf\xc3\xa9\"}"sv,
             "{\"a\":\"x\\x7f\\u009b\\u202e y\",\"b\":\"caf\xc3\xa9\"}"sv,
             "{\"a\":\"x\\x7f\\u009b\\u202e y\",\"b\":\"caf\xc3\xa9\"}"sv,
             "{\"a\":\"x\\x7f\\u009b\\u202e y\",\"b\":\"caf\xc3\xa9\"}"sv,
             "{\"a\":\"x\\u007f\\u009b\\u202e y\",\"b\":\"caf\xc3\xa9\"}"sv},
        };
        for (const Escapes& c : k_cases) {
            CAPTURE(c.input);
            CHECK(util::printable(c.input) == c.escape);
            CHECK(util::printable(c.input, util::LineBreaks::keep) == c.keep);
            CHECK(util::printable(c.input, util::LineBreaks::space) == c.space);
            CHECK(util::json_safe(std::string(c.input)) == c.json);
        }
    }
}
