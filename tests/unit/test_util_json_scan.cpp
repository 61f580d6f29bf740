#include <doctest/doctest.h>

#include <string>

#include "../fuzz/json_scan_mirror.hpp"
#include "util/json_scan.hpp"

TEST_SUITE("util::JsonScanner") {
    TEST_CASE("reads the members asked for and skips the rest") {
        util::JsonScanner in(
            R"({"success": false, "data": {"messageId": "wamid.1", "x": [1, {"y": null}]}, "n": -42})");
        bool success = true;
        std::string id;
        std::int64_t n = 0;
        const bool ok = in.read_object([&](std::string_view key) {
            if (key == "success") {
                return in.read_bool(success);
            }
            if (key == "n") {
                return in.read_int(n);
            }
            if (key == "data") {
                return in.read_object([&](std::string_view inner) {
                    return inner == "messageId" ? in.read_string(id) : in.skip_value();
                });
            }
            return in.skip_value();
        });
        CHECK(ok);
        CHECK(in.finish());
        CHECK_FALSE(success);
        CHECK(id == "wamid.1");
        CHECK(n == -42);
    }
    TEST_CASE("a string without escapes is a view of the text; with escapes it is decoded") {
        const std::string text = R"(["plain", "tab\there \u00e9 \ud83d\ude00"])";
        util::JsonScanner in(text);
        std::string_view first;
        std::string_view second;
        std::string scratch_first;
        std::string scratch_second;
        int index = 0;
        CHECK(in.read_array([&] {
            return index++ == 0 ? in.read_string(first, scratch_first) : in.read_string(second, scratch_second);
        }));
        CHECK(first == "plain");
        CHECK(first.data() >= text.data());
        CHECK(first.data() < text.data() + text.size());
        CHECK(second == "tab\there \xC3\xA9 \xF0\x9F\x98\x80");
    }
    TEST_CASE("integers that overflow, fractions and exponents are not integers") {
        for (const char* text :
             {"9223372036854775808", "18446744073709551616", "1.5", "1e3", "-9223372036854775809", "01"}) {
            util::JsonScanner in(text);
            std::int64_t value = 0;
            CHECK_FALSE_MESSAGE(in.read_int(value), text);
        }
        util::JsonScanner max("-9223372036854775808");
        std::int64_t value = 0;
        CHECK(max.read_int(value));
        CHECK(value == std::numeric_limits<std::int64_t>::min());
    }
    TEST_CASE("problems are reported with their column; nesting is bounded") {
        util::JsonScanner in(R"({"a": tru})");
        CHECK_FALSE(in.skip_value());
        CHECK(in.error().find("column") != std::string::npos);
        const std::string deep = std::string(33, '[') + std::string(33, ']');
        util::JsonScanner nested(deep);
        CHECK_FALSE(nested.skip_value());
        CHECK(nested.error().find("nested too deeply") != std::string::npos);
        util::JsonScanner trailing(R"({} x)");
        CHECK(trailing.skip_value());
        CHECK_FALSE(trailing.finish());
    }
    TEST_CASE("agrees with nlohmann::json on valid and invalid texts") {
        // The same comparison the fuzz harness (tests/fuzz/fuzz_json_scan.cpp) makes at random.
        for (const char* text : {
                 R"({"success":true,"data":{"messageId":"wamid.HBg"}})",
                 R"({"error":{"message":"(#130429) Rate limit hit","code":130429,"error_data":{"details":"x"}}})",
                 R"([1,-0,0.5,1e3,1E-2,9223372036854775807,9223372036854775808,18446744073709551616])",
                 R"(["\"\\\/\b\f\n\r\t","\u0000","\u00e9","\ud83d\ude00"])",
                 R"({"a":1,"a":2})",
                 "  {\"a\" : [ true , false , null ] }\r\n",
                 "\"\xC3\xA9\"",
                 "[1.53e75806]",  // past a double: the scanner skips it, nlohmann cannot hold it
                 // Refused by both:
                 "",
                 "{",
                 "[1,]",
                 "{\"a\":1,}",
                 "01",
                 "1.",
                 ".5",
                 "-",
                 "+1",
                 "NaN",
                 "Infinity",
                 "tru",
                 "nul",
                 "\"unterminated",
                 "\"\\x\"",
                 "\"\\u12\"",
                 "\"a\tb\"",
                 "\"\xC3\"",
                 "\"\xFF\"",
                 "\"\\ud800\"",
                 "\"\\udc00\"",
                 "\"\xED\xA0\x80\"",
                 "\"\xC0\xAF\"",
                 "[] []",
                 "{\"a\" 1}",
                 "{1:2}",
             }) {
            CHECK_MESSAGE(json_mirror::compare(text) == "", "text: ", std::string(text));
        }
        CHECK(json_mirror::compare(std::string_view("6\0", 2)) == "");  // nlohmann stops at a NUL
    }
}
