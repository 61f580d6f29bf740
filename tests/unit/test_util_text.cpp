#include <doctest/doctest.h>
#include <nlohmann/json.hpp>

#include "util/text.hpp"

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
