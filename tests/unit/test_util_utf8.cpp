#include <doctest/doctest.h>

#include <string>
#include <vector>

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

namespace {

// The walk over `text` as (bytes, code point, valid) triples, each as a string for easy comparison.
std::vector<std::string> pieces(std::string_view text) {
    std::vector<std::string> out;
    util::for_each_utf8_piece(text, [&out](const util::Utf8Piece& piece) {
        out.push_back(std::string(piece.bytes) + "|" + std::to_string(static_cast<unsigned>(piece.code_point)) +
                      (piece.valid ? "" : "|stray"));
    });
    return out;
}

}  // namespace

TEST_SUITE("util::for_each_utf8_piece") {
    TEST_CASE("yields each character with its bytes and code point") {
        CHECK(pieces("").empty());
        CHECK(pieces("a\x1b") == std::vector<std::string>{"a|97", "\x1b|27"});
        CHECK(pieces(std::string_view("\0z", 2)) == std::vector<std::string>{std::string("\0|0", 3), "z|122"});
        CHECK(pieces("é\xe2\x80\xae\xf0\x9f\x98\x80") ==
              std::vector<std::string>{"é|233", "\xe2\x80\xae|8238", "\xf0\x9f\x98\x80|128512"});
    }
    TEST_CASE("yields a byte that starts no character alone, as U+FFFD, and goes on after it") {
        CHECK(pieces("\xff"
                     "a") == std::vector<std::string>{"\xff|65533|stray", "a|97"});
        CHECK(pieces("\xc0\xaf") == std::vector<std::string>{"\xc0|65533|stray", "\xaf|65533|stray"});  // overlong
        CHECK(pieces("\xed\xa0\x80") ==
              std::vector<std::string>{"\xed|65533|stray", "\xa0|65533|stray", "\x80|65533|stray"});  // surrogate
    }
    TEST_CASE("a sequence cut by the end of the text is one stray byte a piece") {
        CHECK(pieces("a\xe2\x82") == std::vector<std::string>{"a|97", "\xe2|65533|stray", "\x82|65533|stray"});
        CHECK(pieces("\xf0\x9f\x98") ==
              std::vector<std::string>{"\xf0|65533|stray", "\x9f|65533|stray", "\x98|65533|stray"});
    }
    TEST_CASE("the pieces' bytes, joined, are the text, each a view into it") {
        const std::string_view text = "ab\xff\xe2\x82 c\xc3\xa9\xf4\x8f\xbf\xbf";
        std::string joined;
        util::for_each_utf8_piece(text, [&](const util::Utf8Piece& piece) {
            CHECK(piece.bytes.data() == text.data() + joined.size());
            joined += piece.bytes;
        });
        CHECK(joined == text);
    }
    TEST_CASE("stops when `each` returns false") {
        std::string seen;
        util::for_each_utf8_piece(
            "ab\xff"
            "cd",
            [&seen](const util::Utf8Piece& piece) {
                seen += piece.bytes;
                return piece.valid;
            });
        CHECK(seen == "ab\xff");
    }
}

TEST_SUITE("util::rewrite_utf8") {
    TEST_CASE("copies the pieces kept and writes the others") {
        const auto keep = [](const util::Utf8Piece& piece) { return piece.valid && piece.code_point != U'é'; };
        const auto write = [](std::string& out, const util::Utf8Piece& piece) { out += piece.valid ? "<e>" : "<?>"; };
        CHECK(util::rewrite_utf8("", keep, write).empty());
        CHECK(util::rewrite_utf8("plain", keep, write) == "plain");
        CHECK(util::rewrite_utf8("café", keep, write) == "caf<e>");
        CHECK(util::rewrite_utf8("éa\xff"
                                 "b\xe2\x82",
                                 keep, write) == "<e>a<?>b<?><?>");
    }
}

TEST_SUITE("util::first_utf8_piece") {
    TEST_CASE("is empty for an empty text, else the text's first character or stray byte") {
        CHECK(util::first_utf8_piece("").bytes.empty());
        CHECK_FALSE(util::first_utf8_piece("").valid);
        CHECK(util::first_utf8_piece("\xc2\x9bx").bytes == "\xc2\x9b");
        CHECK(util::first_utf8_piece("\xc2\x9bx").code_point == 0x9B);
        CHECK_FALSE(util::first_utf8_piece("\xc2x").valid);
        CHECK(util::first_utf8_piece("\xc2x").bytes == "\xc2");
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
