#include <doctest/doctest.h>

#include <string>

#include "util/utf8.hpp"

TEST_SUITE("util::decode_utf8") {
    TEST_CASE("reads ASCII and well-formed sequences with their code points") {
        CHECK(util::decode_utf8("a").length == 1);
        CHECK(util::decode_utf8("a").code_point == U'a');
        CHECK(util::decode_utf8("é!").length == 2);
        CHECK(util::decode_utf8("é!").code_point == U'é');
        CHECK(util::decode_utf8("न").code_point == U'न');
        CHECK(util::decode_utf8("\xF0\x9F\x98\x80").length == 4);
        CHECK(util::decode_utf8("\xF0\x9F\x98\x80").code_point == U'\U0001F600');
    }
    TEST_CASE("rejects overlong forms, surrogates, code points above U+10FFFF and cut sequences") {
        CHECK(util::decode_utf8("").length == 0);
        CHECK(util::decode_utf8("\xC0\xAF").length == 0);
        CHECK(util::decode_utf8("\xE0\x80\xAF").length == 0);
        CHECK(util::decode_utf8("\xED\xA0\x80").length == 0);
        CHECK(util::decode_utf8("\xF4\x90\x80\x80").length == 0);
        CHECK(util::decode_utf8("\xF5\x80\x80\x80").length == 0);
        CHECK(util::decode_utf8("\xE2\x82").length == 0);
        CHECK(util::decode_utf8("\x80").length == 0);
    }
}

TEST_SUITE("util::find_invalid_utf8") {
    TEST_CASE("finds the first byte that starts no character, or npos") {
        CHECK(util::find_invalid_utf8("Aarav Shāh — नमस्ते") == std::string_view::npos);
        CHECK(util::find_invalid_utf8(std::string_view("a\0b", 3)) == std::string_view::npos);
        CHECK(util::find_invalid_utf8("ab\xff"
                                      "c") == 2);
        CHECK(util::find_invalid_utf8("é\xE2\x82") == 2);
    }
}

TEST_SUITE("util::clip_utf8") {
    TEST_CASE("keeps a short text as it is") {
        CHECK(util::clip_utf8("short", 10) == "short");
        CHECK(util::clip_utf8("exact", 5) == "exact");
    }
    TEST_CASE("cuts a long text at a character boundary and adds an ellipsis") {
        CHECK(util::clip_utf8("héllo", 2) == "h…");
        CHECK(util::clip_utf8("héllo", 3) == "hé…");
        CHECK(util::clip_utf8("abcdef", 3) == "abc…");
        CHECK(util::clip_utf8("नमस्ते", 4) == "न…");
    }
}

TEST_SUITE("util::display_width") {
    TEST_CASE("counts columns, not bytes") {
        CHECK(util::display_width("") == 0);
        CHECK(util::display_width("sent 3") == 6);
        CHECK(util::display_width("sent 3 · failed 0") == 17);  // "·" is two bytes, one column
        CHECK(util::display_width("starts in 5s — at") == 17);
        CHECK(util::display_width("…") == 1);
    }
    TEST_CASE("wide characters take two columns, combining marks none") {
        CHECK(util::display_width("日本") == 4);
        CHECK(util::display_width("e\xCC\x81") == 1);  // e and a combining acute accent
    }
    TEST_CASE("a byte that starts no character takes one column") {
        CHECK(util::display_width("a\xff"
                                  "b") == 3);
    }
}

TEST_SUITE("util::clip_to_width") {
    TEST_CASE("keeps a text that fits") {
        CHECK(util::clip_to_width("sent 3 · failed 0", 17) == "sent 3 · failed 0");
        CHECK(util::clip_to_width("", 0).empty());
    }
    TEST_CASE("cuts at a character and ends with an ellipsis, within the columns") {
        CHECK(util::clip_to_width("sent 3 · failed 0", 9) == "sent 3 ·…");
        CHECK(util::clip_to_width("日本語", 4) == "日…");
        CHECK(util::clip_to_width("日本語", 3) == "日…");
        CHECK(util::clip_to_width("abc", 1) == "…");
        CHECK(util::clip_to_width("abc", 0).empty());
    }
}
